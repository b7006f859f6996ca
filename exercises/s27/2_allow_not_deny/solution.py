"""With an allow list, everything it does not name is blocked, each with a reason that
says so: deploy and metrics are blocked as "not in allowedMcpServers" (from
managed-settings.json), shell too. wiki stays failed: its entry is broken (no `command`),
and a broken entry is reported as broken before any policy is applied to it. Only docs
is left to start. An allow list is the safer default for an enterprise: a server someone
adds later is blocked until it is named.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'In `lessons/s27/config/managed-settings.json`, replace `deniedMcpServers` with an '
    '`allowedMcpServers` list (`[{"serverName": "docs"}]`): every server not on it is blocked.'
)

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
    equal(servers["docs"][0], "pending", "docs's state")
    for name in ("deploy", "metrics", "shell"):
        state, reason = servers[name]
        that(state == "blocked" and "allowedMcpServers" in reason, f"{name} blocked by allowedMcpServers",
             f"{state}: {show(reason)}")
    equal(servers["wiki"], ("failed", "server 'wiki': field 'command': required"), "wiki's (state, reason)")
