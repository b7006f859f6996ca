"""Adding `"env": {"TOKEN": "${DOCS_TOKEN}"}` to docs is a restart: `env` is one of the
fields the connection depends on, and it changed as written. Changing the *value* of
`DOCS_TOKEN` alone, with the file as it is, is not: `fingerprint` hashes the entry as
written, so `${DOCS_TOKEN}` is hashed as the text `${DOCS_TOKEN}`, and the secret never
enters the fingerprint (nor the transcript). The running process keeps the value it was
started with; the next time docs starts (a restart, a reconnect), `config.expand` reads
the environment of that moment.
"""

from expect import equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`harness.reload.diff(before, after).summary()` compares two `harness.config.load(...)` readings; '
    '`harness.config.expand(spec, environ)` is where `${VAR}` is read.'
)


def solve(env):
    import json
    import tempfile
    from pathlib import Path

    from harness import config, reload

    base = {"command": "${PYTHON}", "args": ["-m", "mock_servers.docs", "--transport", "stdio"]}

    def load(docs, root):
        path = Path(root) / "cline_mcp_settings.json"
        path.write_text(json.dumps({"mcpServers": {"docs": docs}}), encoding="utf-8")
        return config.load(config.Paths(home=Path(root), cwd=Path(root), managed=Path(root)), [path])

    with tempfile.TemporaryDirectory() as root:
        before = load(base, root)
        with_env = load({**base, "env": {"TOKEN": "${DOCS_TOKEN}"}}, root)
        added = reload.diff(before, with_env).summary()
        # The value of DOCS_TOKEN changes; the file does not: the same reading, twice.
        value_only = reload.diff(with_env, load({**base, "env": {"TOKEN": "${DOCS_TOKEN}"}}, root)).summary()
        expanded = [config.expand(with_env[0].spec, {"PYTHON": "python", "DOCS_TOKEN": v}).env["TOKEN"] for v in ("one", "two")]
    return added, value_only, expanded


def check(result):
    added, value_only, expanded = result
    equal(added, "restart docs", "adding an env entry to be")
    equal(value_only, "unchanged docs", "a changed variable's value (the file the same) to be")
    equal(expanded, ["one", "two"], "the value read when the server starts:")


def wrong(result):
    added, value_only, expanded = result
    return added, "restart docs", expanded  # thinking the reload sees the variable change
