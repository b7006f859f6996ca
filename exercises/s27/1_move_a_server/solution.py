"""The local entry still wins. Claude Code's scopes, from the one that wins: local
(`~/.claude.json`, under `projects[<folder>]`), then project (`.mcp.json`), then user
(`~/.claude.json`, top level). The closer a scope is to this one person in this one
folder, the more it says. So a project entry overrides the user's docs, and the user's
own local override for this project beats both; the project's `--slow-start 1` is never
used.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Add a `docs` entry to `lessons/s27/config/mcp.json` (the project scope) with other args than the '
    'local one; `harness.config.load(paths)` keeps one entry per name, from the scope that wins.'
)

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
    equal(scope, "local", "docs's scope")
    that("--noisy-stderr" in args and "--slow-start" not in args,
         "the local entry's args (--noisy-stderr, no --slow-start)", show(args))


def wrong(servers):
    scope, args = servers["docs"]
    return {**servers, "docs": ("project", (*args[:4], "--slow-start", "1"))}  # the project's entry taken to win
