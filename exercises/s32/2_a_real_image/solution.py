"""A real PNG of 6 MB is still a PNG (its first bytes are PNG's signature), but it is over
the 5 MB an image block may be. So it is not sent: it is saved as
`.mcp-output/001-media-chart.bin`, and the model reads a note in its place: `[image
(image/png, too large), application/octet-stream, 6291456 bytes: saved to ...]`. The
chart's text still reaches the model. (Its 8 MB of base64 fit in one frame: the frame
limit is 16 MiB.) The files after it are numbered one higher.
"""

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
    assert run.code == 0, run.text
    lines = run.lines_without("  ok ")  # where the permissions' decision lines are kept, they come between a call and its result
    chart = lines.index("  -> mcp__media__chart {}")
    assert lines[chart + 1] == "  <- Deploys per week, last 4 weeks.", lines[chart + 1]
    assert lines[chart + 2] == ("     [image (image/png, too large), application/octet-stream, 6291456 bytes: "
                                "saved to .mcp-output/001-media-chart.bin]"), lines[chart + 2]
    assert not any("sent to the model]" in line for line in run.lines), "no image block is sent"
