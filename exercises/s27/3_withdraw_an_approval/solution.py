"""deploy is `blocked`, and its reason says how to approve it (the project's `.mcp.json`
asks for it, the user has not said yes). A blocked server is never started, so its tools
never reach the pool: the model cannot call `mcp__deploy__trigger`, and `connect_mcp
deploy` answers that it is blocked. Opening a cloned repository must never start its
programs; that is why an approval is per project and per server.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "The approvals of `.mcp.json` servers are the `enabledMcpjsonServers` list in the project's entry "
    'of `lessons/s27/config/claude.json`.'
)

EDITS = {
    "lessons/s27/config/claude.json": [(
        '''"enabledMcpjsonServers": ["deploy", "wiki", "shell"]''',
        '''"enabledMcpjsonServers": ["wiki", "shell"]''',
    )],
}


def solve(env):
    import tempfile
    from pathlib import Path

    from harness import config

    with tempfile.TemporaryDirectory() as root:
        servers = config.load(env.lesson().lay_out(Path(root)))
        return {s.name: (s.state.value, s.reason) for s in servers}


def check(servers):
    state, reason = servers["deploy"]
    equal(state, "blocked", "deploy's state")
    that("enabledMcpjsonServers" in reason or "approve" in reason, "the reason to say how to approve it", show(reason))
    equal(servers["docs"][0], "pending", "docs's state")
