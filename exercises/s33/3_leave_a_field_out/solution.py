"""The transcript says `scripted answered: decline (missing required team)`, and the
server answers `not filed: the user chose decline`. The harness checks an answer against
the form's schema before it sends it: `team` is required and the answer has none, so it
sends no half-filled accept (the priority given is not sent either).

Decline is the safe answer: an accept without a required field would be rejected by a
careful server, and filled with a guess by a careless one; either way the user did not
give what was asked. A decline is an answer the server understands, and says why in the
transcript.
"""

from expect import equal, exit_code, line_at, none_of  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'The form answer is `form: {team: web}` in `lessons/s33/scenario.yaml`; leave `team` out (give '
    "only `priority`) and the form's schema refuses it."
)

EDITS = {
    "lessons/s33/scenario.yaml": [(
        "  - form: {team: web}\n",
        "  - form: {priority: high}\n",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    login = line_at(run, '  -> mcp__desk__file_ticket {"summary": "Login fails"}')
    equal(run.lines[login + 3:login + 5], ["     scripted answered: decline (missing required team)",
                                           "  <- not filed: the user chose decline"], "the login ticket's answer and result")
    none_of(run.lines, lambda line: line.startswith("  <- ticket T-1 filed"), "ticket filed without a team")
