"""With an allow list, everything it does not name is blocked, each with a reason that
says so: deploy and metrics are blocked as "not in allowedMcpServers" (from
managed-settings.json), shell too. wiki stays failed: its entry is broken (no `command`),
and a broken entry is reported as broken before any policy is applied to it. Only docs
is left to start. An allow list is the safer default for an enterprise: a server someone
adds later is blocked until it is named.
"""

EDITS = {
    "lessons/s27/config/managed-settings.json": [(
        '''  "deniedMcpServers": [
    {"serverName": "shell"},
    {"serverUrl": "https://*.untrusted.example/*"}
  ]''',
        '''  "allowedMcpServers": [{"serverName": "docs"}]''',
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
    assert servers["docs"][0] == "pending", servers
    for name in ("deploy", "metrics", "shell"):
        state, reason = servers[name]
        assert state == "blocked" and "allowedMcpServers" in reason, (name, state, reason)
    assert servers["wiki"] == ("failed", "server 'wiki': field 'command': required"), servers["wiki"]
