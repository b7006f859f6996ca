"""With the stack's `Reconnect` part left out (`without=(Reconnect,)`: no connection gets a
`lifecycle.Supervisor` with `lifecycle.Backoff()`), a crash is final: after `state: deploy: connected -> failed` there
is no `failed -> pending: retry 1 in 1 s`, no `pending -> connected: session established`,
and the by-hand reconnect at the end finds nothing to renew. A failed server offers no
tools, so on the model's third turn `mcp__deploy__trigger` is not in the pool: the scripted
model refuses the call it was scripted to make, and the run stops with exit code 1. (A
live model would just not see the tool.)
"""

from expect import contains, exit_code, line_at, none_of  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`upto("s28", without=(Reconnect,))` in `lessons/s28/code.py` leaves the reconnect part out of the '
    'stack (`Reconnect` is in `harness.stack`; every connection then gets `reconnect=never`).'
)

EDITS = {
    "lessons/s28/code.py": [(
        'Stack(servers, run.transcript, upto("s28"), environ=environ, tap=tap)',
        'Stack(servers, run.transcript, upto("s28", without=(Reconnect,)), environ=environ, tap=tap)',
    ), (
        "from harness.stack import Stack, upto",
        "from harness.stack import Reconnect, Stack, upto",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 1)
    crash = "state: deploy: connected -> failed: connection lost: the server exited with code 3"
    after = run.lines[line_at(run, crash) + 1:]
    none_of(after, lambda line: line.startswith(("state: deploy: failed -> pending", "state: deploy: pending -> connected")),
            "reconnect of deploy after its crash")
    contains(run.lines[-1], "turns[2].tool_calls[0].name: 'mcp__deploy__trigger' is not in this turn's pool", "the last line")
