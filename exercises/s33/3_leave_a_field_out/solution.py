"""The transcript says `scripted answered: decline (missing required team)`, and the
server answers `not filed: the user chose decline`. The harness checks an answer against
the form's schema before it sends it: `team` is required and the answer has none, so it
sends no half-filled accept (the priority given is not sent either).

Decline is the safe answer: an accept without a required field would be rejected by a
careful server, and filled with a guess by a careless one; either way the user did not
give what was asked. A decline is an answer the server understands, and says why in the
transcript.
"""

EDITS = {
    "lessons/s33/scenario.yaml": [(
        "  - form: {team: web}\n",
        "  - form: {priority: high}\n",
    )],
}
RUN = ()
SLOW = True


def check(run):
    assert run.code == 0, run.text
    login = run.lines.index('  -> mcp__desk__file_ticket {"summary": "Login fails"}')
    assert run.lines[login + 3] == "     scripted answered: decline (missing required team)", run.lines[login:login + 5]
    assert run.lines[login + 4] == "  <- not filed: the user chose decline", run.lines[login:login + 5]
    assert not any(line.startswith("  <- ticket T-1 filed") for line in run.lines), "no ticket is filed without a team"
