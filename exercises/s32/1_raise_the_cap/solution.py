"""The report is 400 lines of 37 characters: some 15,000 characters with the line breaks, an
estimated 3,800 tokens (a quarter token per character). Under a cap of 5,000 it is not cut: the
model gets all 400 lines, with no `[cut: ...]` hint, and no report file is written. So
three files are saved instead of four: the bad image, the audio and the archive, which
are saved because a `tool_result` cannot hold them, whatever the cap. The numbering
shifts too: the archive is now `003-media-links.zip`.
"""

from expect import equal, exit_code, has_line, line_at, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'The cap is `"maxOutputTokens"` in `lessons/s32/cline_mcp_settings.json`; `harness/output.py` '
    'applies it.'
)

EDITS = {
    "lessons/s32/cline_mcp_settings.json": [(
        '"maxOutputTokens": 300',
        '"maxOutputTokens": 5000',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    lines = run.lines_without("  ok ")  # where the permissions' decision lines are kept, they come between a call and its result
    has_line(lines, "     0400 deploy web to staging: ok in 4 s", "(all 400 lines reach the model)")
    none_of(lines, lambda line: "[cut:" in line, "[cut: ...] line")
    listing = line_at(lines, '  -> list_dir {"path": ".mcp-output"}')
    equal([line.strip() for line in lines[listing + 1:listing + 4]],
          ["<- 001-media-fake_chart.bin", "002-media-voice.wav", "003-media-links.zip"], "the spilled files")
    that(lines[listing + 4].startswith("assistant> "), "the model's answer after the listing", show(lines[listing + 4]))
