"""The plan says `unchanged docs`: the reload line reads `reload cline_mcp_settings.json:
unchanged docs`, and the hub is not asked to do anything; docs keeps its process. The file is parsed before it is compared, and `fingerprint` hashes the
connection-relevant fields as data (`json.dumps(..., sort_keys=True)`), so key order and
spacing never reach it. Only a change to what the server is started with (command, args,
env, cwd, url, headers, transport, disabled) restarts it.
"""

from expect import equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Load both spellings with `harness.config.load` and compare them with '
    '`harness.reload.diff(before, after)` and `harness.reload.fingerprint(server)`.'
)


def solve(env):
    import tempfile
    from pathlib import Path

    from harness import config, reload

    written = '{"mcpServers": {"docs": {"command": "${PYTHON}", "args": ["-m", "mock_servers.docs", "--transport", "stdio"]}}}'
    rewritten = """{
      "mcpServers"  :  {
        "docs" : {
            "args"    : [ "-m",  "mock_servers.docs", "--transport", "stdio" ],
            "command" : "${PYTHON}"
        }
      }
    }"""
    with tempfile.TemporaryDirectory() as root:
        paths = config.Paths(home=Path(root), cwd=Path(root), managed=Path(root))
        path = Path(root) / "cline_mcp_settings.json"
        path.write_text(written, encoding="utf-8")
        before = config.load(paths, [path])
        path.write_text(rewritten, encoding="utf-8")
        after = config.load(paths, [path])
    plan = reload.diff(before, after)
    return bool(plan), plan.summary(), reload.fingerprint(before[0]) == reload.fingerprint(after[0])


def check(result):
    anything, summary, same = result
    equal((anything, summary), (False, "unchanged docs"), "(a change to apply, its summary)")
    equal(same, True, "the two spellings to have one fingerprint:")


def wrong(result):
    return True, "restart docs", False  # a reformatted file taken for a change
