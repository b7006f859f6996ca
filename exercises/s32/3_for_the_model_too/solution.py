"""With `audience: ["user", "assistant"]` the raw log is meant for both, so it is sent: the
`note: for the user only, ...` line is gone, and the model's result for `triage` has two
lines, "3 deploys need attention." and "raw log: web-7 OOM at 03:12". The audience is how
a server says who a block is for; the harness keeps a user-only block out of the model's
context (and shows it to the user), and sends everything else.
"""

from expect import equal, exit_code, line_at, none_of  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'A block\'s `annotations.audience` in `mock_servers/catalog.py` says who it is for; `["user", '
    '"assistant"]` is both.'
)

EDITS = {
    "mock_servers/catalog.py": [(
        '''{"type": "text", "text": "raw log: web-7 OOM at 03:12", "annotations": {"audience": ["user"], "priority": 0.2}},''',
        '''{"type": "text", "text": "raw log: web-7 OOM at 03:12", "annotations": {"audience": ["user", "assistant"], "priority": 0.2}},''',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    none_of(run.lines, lambda line: line.startswith("note: for the user only"), "'note: for the user only' line")
    lines = run.lines_without("  ok ")  # where the permissions' decision lines are kept, they come between a call and its result
    triage = line_at(lines, "  -> mcp__media__triage {}")
    equal(lines[triage + 1:triage + 3], ["  <- 3 deploys need attention.", "     raw log: web-7 OOM at 03:12"],
          "triage's result")
