"""The server reads the action it was sent and says so: `not filed: the user chose cancel`,
where the pinned run says `...chose decline`. The ticket is not filed either way, and
the transcript shows the answer as `scripted answered: cancel`.

The two mean different things (the MCP spec's elicitation result): `decline` is an
explicit no to this request, so a real server should not ask again in the same way;
`cancel` means the user dismissed the question without choosing (closed the dialog), so
the server may ask again later, or fall back to a default. Neither is an error: both are
answers, and the tool's result tells the model which one it got.
"""

from expect import equal, exit_code, has_line, line_at  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "The scripted user's answers to forms are the `answers:` of `lessons/s33/scenario.yaml`: "
    '`decline`, `cancel`, or `form: {...}`.'
)

EDITS = {
    "lessons/s33/scenario.yaml": [(
        "  - decline\n",
        "  - cancel\n",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    printer = line_at(run, '  -> mcp__desk__file_ticket {"summary": "Printer jam"}')
    equal(run.lines[printer + 3:printer + 5], ["     scripted answered: cancel", "  <- not filed: the user chose cancel"],
          "the printer ticket's answer and result")
    has_line(run, "  <- ticket T-1 filed for team web, priority normal, notify true", "(the first ticket, filed as before)")
