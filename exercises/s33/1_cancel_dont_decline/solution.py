"""The server reads the action it was sent and says so: `not filed: the user chose cancel`,
where the pinned run says `...chose decline`. The ticket is not filed either way, and
the transcript shows the answer as `scripted answered: cancel`.

The two mean different things (the MCP spec's elicitation result): `decline` is an
explicit no to this request, so a real server should not ask again in the same way;
`cancel` means the user dismissed the question without choosing (closed the dialog), so
the server may ask again later, or fall back to a default. Neither is an error: both are
answers, and the tool's result tells the model which one it got.
"""

EDITS = {
    "lessons/s33/scenario.yaml": [(
        "  - decline\n",
        "  - cancel\n",
    )],
}
RUN = ()
SLOW = True


def check(run):
    assert run.code == 0, run.text
    printer = run.lines.index('  -> mcp__desk__file_ticket {"summary": "Printer jam"}')
    assert run.lines[printer + 3] == "     scripted answered: cancel", run.lines[printer:printer + 5]
    assert run.lines[printer + 4] == "  <- not filed: the user chose cancel", run.lines[printer:printer + 5]
    assert "  <- ticket T-1 filed for team web, priority normal, notify true" in run.lines, "the first ticket is filed as before"
