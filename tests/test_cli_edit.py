"""``add`` then ``servers`` for every format ``add`` writes, and ``remove`` giving back the file byte for byte."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import ROOT, cli

from harness.config.formats import CLINE_SETTINGS

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
DOCS = ["--", sys.executable, "-m", "mock_servers.serve", "docs", "--transport", "stdio"]


@pytest.mark.parametrize(("fmt", "scope", "where"), [
    ("claude-code", "local", ".claude.json"), ("claude-code", "user", ".claude.json"), ("claude-code", "project", ".mcp.json"),
    ("claude-desktop", None, ".config/Claude/claude_desktop_config.json"), ("cline", None, str(CLINE_SETTINGS)),
])
def test_add_then_servers_round_trips_and_remove_gives_the_file_back(tmp_path, fmt, scope, where):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    home.mkdir()
    path = (project if where == ".mcp.json" else home) / where
    path.parent.mkdir(parents=True, exist_ok=True)
    before = {"theme": "dark", "mcpServers": {"kept": {"command": "never-run", "args": ["--x"]}}, "zz": [1, 2]}
    original = json.dumps(before, indent=4) + "\n"  # a file of the user's, in four spaces
    path.write_text(original, encoding="utf-8")
    options = ["--home", str(home), "--managed", str(tmp_path / "managed"), *(["--format", fmt] if fmt != "claude-code" else [])]
    scoped = ["--scope", scope] if scope else []
    added = cli(*options, "add", "docs", *scoped, *DOCS, cwd=project)
    assert added.returncode == 0 and added.stdout.startswith("docs: added to "), added
    after = json.loads(path.read_text(encoding="utf-8"))
    assert [k for k in after if k in before] == list(before) and after["theme"] == "dark" and after["zz"] == [1, 2], after
    listing = ["--config", str(path)] if fmt != "claude-code" else []
    if scope == "project":  # a .mcp.json server waits for approval, as Claude Code's do
        assert cli(*options, "approve", "docs", cwd=project).returncode == 0
    rows = {r["name"]: r for r in json.loads(cli(*options, *listing, "servers", "--json", cwd=project).stdout)}
    assert rows["docs"]["state"] == "connected" and "search" in rows["docs"]["tools"], rows
    removed = cli(*options, "remove", "docs", *scoped, cwd=project)
    assert removed.returncode == 0, removed
    text = path.read_text(encoding="utf-8")
    if scope == "local":  # the project's entry it made stays, empty; the rest is the file as it was
        text = json.dumps({k: v for k, v in json.loads(text).items() if k != "projects"}, indent=4) + "\n"
    assert text == original, f"expected the file as it was, found:\n{text}"


def test_add_refuses_what_it_cannot_write_and_names_the_file(tmp_path):
    options = ("--home", str(tmp_path), "--managed", str(tmp_path / "managed"))
    cursor = cli(*options, "add", "x", "--format", "cursor", "--", "a", cwd=tmp_path)
    assert cursor.returncode == 2 and f"edit {tmp_path / '.cursor' / 'mcp.json'}" in cursor.stderr, cursor
    both = cli(*options, "add", "x", "--url", "https://e.example/mcp", "--", "a", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr, both
    twice = tmp_path / ".claude.json"
    twice.write_text(json.dumps({"mcpServers": {"x": {"command": "a"}}}), encoding="utf-8")
    again = cli(*options, "add", "x", "--scope", "user", "--", "b", cwd=tmp_path)
    assert again.returncode == 2 and "is in ~/.claude.json already" not in again.stderr and "already" in again.stderr, again
    assert json.loads(twice.read_text(encoding="utf-8")) == {"mcpServers": {"x": {"command": "a"}}}, "expected the file untouched"
