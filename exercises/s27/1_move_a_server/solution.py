"""The local entry still wins. Claude Code's scopes, from the one that wins: local
(`~/.claude.json`, under `projects[<folder>]`), then project (`.mcp.json`), then user
(`~/.claude.json`, top level). The closer a scope is to this one person in this one
folder, the more it says. So a project entry overrides the user's docs, and the user's
own local override for this project beats both; the project's `--slow-start 1` is never
used.
"""

EDITS = {
    "lessons/s27/config/mcp.json": [(
        '''  "mcpServers": {
''',
        '''  "mcpServers": {
    "docs": {
      "command": "${PYTHON:-python3}",
      "args": ["-m", "mock_servers.docs", "--transport", "stdio", "--slow-start", "1"]
    },
''',
    )],
}


def solve(env):
    import tempfile
    from pathlib import Path

    from harness import config

    with tempfile.TemporaryDirectory() as root:
        servers = config.load(env.lesson().lay_out(Path(root)))
        return {s.name: (s.scope, s.spec.args if s.spec else None) for s in servers}


def check(servers):
    scope, args = servers["docs"]
    assert scope == "local", servers["docs"]
    assert "--noisy-stderr" in args and "--slow-start" not in args, args
