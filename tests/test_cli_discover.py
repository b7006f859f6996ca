"""``discover``: every client's config file under --home and from the folder up, each with its servers; nothing started."""

from __future__ import annotations

import json
from pathlib import Path

from test_app import cli


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_discover_lists_each_client_s_file_with_its_servers_and_a_broken_one_with_why(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"docs": {"command": "never-run"}, "wiki": {"url": "https://e.example/mcp"}}}))
    _write(home / ".codex" / "config.toml", '[mcp_servers.tasks]\ncommand = "never-run"\n')
    _write(home / ".claude.json", "{broken")
    _write(project / ".vscode" / "mcp.json", '// VS Code\n{"servers": {"v": {"type": "stdio", "command": "never-run"}},}\n')
    _write(project / ".mcp.json", json.dumps({"mcpServers": {"p": {"command": "never-run"}}}))
    argv = ("--home", str(home), "--managed", str(tmp_path / "managed"), "discover")
    rows = json.loads(cli(*argv, "--json", cwd=project).stdout)
    got = {(r["client"], Path(r["path"]).resolve()): ([s["name"] for s in r["servers"]], r["error"]) for r in rows}
    assert got == {
        ("claude-code", (home / ".claude.json").resolve()): ([], got[("claude-code", (home / ".claude.json").resolve())][1]),
        ("claude-code", (project / ".mcp.json").resolve()): (["p"], None),
        ("codex", (home / ".codex" / "config.toml").resolve()): (["tasks"], None),
        ("vscode", (project / ".vscode" / "mcp.json").resolve()): (["v"], None),
        ("cursor", (home / ".cursor" / "mcp.json").resolve()): (["docs", "wiki"], None),
    }, rows
    assert "not valid JSON" in got[("claude-code", (home / ".claude.json").resolve())][1]
    text = cli(*argv, cwd=project)
    assert text.returncode == 0 and "cursor" in text.stdout and "2 servers: docs, wiki" in text.stdout, text
    assert "cannot be read: " in text.stdout, text


def test_discover_with_nothing_found_says_where_it_looked(tmp_path):
    done = cli("--home", str(tmp_path), "--managed", str(tmp_path / "managed"), "discover", cwd=tmp_path)
    assert done.stdout.startswith("no MCP client config found (looked under "), done
