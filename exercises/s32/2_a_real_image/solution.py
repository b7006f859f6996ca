"""A real PNG of 6 MB is still a PNG (its first bytes are PNG's signature), but it is over
the 5 MB an image block may be. So it is not sent: it is saved as
`.mcp-output/001-media-chart.bin`, and the model reads a note in its place: `[image
(image/png, too large), application/octet-stream, 6291456 bytes: saved to ...]`. The
chart's text still reaches the model. (Its 8 MB of base64 fit in one frame: the frame
limit is 16 MiB.) The files after it are numbered one higher.
"""

from expect import equal, exit_code, line_at, none_of  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "The chart's image block is in `mock_servers/catalog.py` (`PNG_1X1`); make its data a real PNG "
    'over 5 MB (`base64`), and `harness/output.py` saves it to a file.'
)

EDITS = {
    "mock_servers/catalog.py": [(
        '''                            {"type": "image", "mimeType": "image/png", "data": PNG_1X1}]}
''',
        '''                            {"type": "image", "mimeType": "image/png", "data": _big_png()}]}

    def _big_png() -> str:  # s32 exercise 2: a real PNG signature, then padding to 6 MB
        import base64
        raw = base64.b64decode(PNG_1X1)
        return base64.b64encode(raw + bytes(6 * 1024 * 1024 - len(raw))).decode()
''',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    lines = run.lines_without("  ok ")  # where the permissions' decision lines are kept, they come between a call and its result
    chart = line_at(lines, "  -> mcp__media__chart {}")
    equal(lines[chart + 1], "  <- Deploys per week, last 4 weeks.", "the chart's first line")
    equal(lines[chart + 2], "     [image (image/png, too large), application/octet-stream, 6291456 bytes: "
          "saved to .mcp-output/001-media-chart.bin]", "the chart's image line")
    none_of(run.lines, lambda line: "sent to the model]" in line, "image block sent to the model")
