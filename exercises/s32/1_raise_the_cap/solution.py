"""The report is 400 lines of 37 characters: some 15,000 characters with the line breaks, an
estimated 3,800 tokens (a quarter token per character). Under a cap of 5,000 it is not cut: the
model gets all 400 lines, with no `[cut: ...]` hint, and no report file is written. So
three files are saved instead of four: the bad image, the audio and the archive, which
are saved because a `tool_result` cannot hold them, whatever the cap. The numbering
shifts too: the archive is now `003-media-links.zip`.
"""

EDITS = {
    "lessons/s32/cline_mcp_settings.json": [(
        '"maxOutputTokens": 300',
        '"maxOutputTokens": 5000',
    )],
}
RUN = ()
SLOW = True


def check(run):
    assert run.code == 0, run.text
    lines = run.lines_without("  ok ")  # where the permissions' decision lines are kept, they come between a call and its result
    assert "     0400 deploy web to staging: ok in 4 s" in lines, "all 400 lines reach the model"
    assert not any("[cut:" in line for line in lines), run.text
    listing = lines.index('  -> list_dir {"path": ".mcp-output"}')
    files = [line.strip() for line in lines[listing + 1:listing + 4]]
    assert files == ["<- 001-media-fake_chart.bin", "002-media-voice.wav", "003-media-links.zip"], files
    assert lines[listing + 4].startswith("assistant> "), lines[listing:listing + 5]
