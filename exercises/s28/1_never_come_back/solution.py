"""With the stack's `Reconnect` part left out (`without=(Reconnect,)`: no connection gets a
`lifecycle.Supervisor` with `lifecycle.Backoff()`), a crash is final: after `state: deploy: connected -> failed` there
is no `failed -> pending: retry 1 in 1 s`, no `pending -> connected: session established`,
and the by-hand reconnect at the end finds nothing to renew. A failed server offers no
tools, so on the model's third turn `mcp__deploy__trigger` is not in the pool: the scripted
model refuses the call it was scripted to make, and the run stops with exit code 1. (A
live model would just not see the tool.)
"""

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
    assert run.code == 1, f"expected exit code 1\n{run.text}"
    crash = "state: deploy: connected -> failed: connection lost: the server exited with code 3"
    assert crash in run.lines, run.text
    after = run.lines[run.lines.index(crash) + 1:]
    assert not any(line.startswith(("state: deploy: failed -> pending", "state: deploy: pending -> connected")) for line in after), run.text
    assert "turns[2].tool_calls[0].name: 'mcp__deploy__trigger' is not in this turn's pool" in run.lines[-1], run.lines[-1]
