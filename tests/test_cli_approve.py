"""``approve`` and ``deny`` of a ``.mcp.json`` server: written into ``~/.claude.json`` (under ``--home``) as Claude Code does.

The file is one a Claude Code user has: full of other fields, other projects, and this
project's own entry. Everything but the two lists must come back as it was.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from test_app import cli, server

CLAUDE_JSON = {
    "numStartups": 42, "theme": "dark", "autoUpdates": False, "userID": "abc123", "tipsHistory": {"memory": 3},
    "mcpServers": {"global": {"command": "true"}},
    "oauthAccount": {"emailAddress": "me@example.com", "organizationUuid": "u-1"},
    "projects": {
        "/some/other/project": {"allowedTools": ["Bash(ls)"], "enabledMcpjsonServers": ["x"], "history": [{"display": "hi"}]},
    },
    "cachedChangelog": "# 1.0\n- ünïcode kept",
}


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    folder, home = tmp_path / "project", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": server("docs"), "my.tool": server("deploy")}}), encoding="utf-8")
    data = json.loads(json.dumps(CLAUDE_JSON))
    data["projects"][str(folder.resolve())] = {"allowedTools": [], "disabledMcpjsonServers": ["docs"], "hasTrustDialogAccepted": True}
    (home / ".claude.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.chmod(home / ".claude.json", 0o640)
    return folder, home


def _states(folder: Path, home: Path) -> dict[str, str]:
    done = cli("--home", str(home), "servers", "--json", cwd=folder)
    assert done.returncode == 0, done
    return {r["name"]: r["state"] for r in json.loads(done.stdout) if r["scope"] == "project"}


def test_approve_then_deny_write_the_lists_and_keep_every_other_field(project):
    folder, home = project
    claude = home / ".claude.json"
    key = str(folder.resolve())
    assert _states(folder, home) == {"docs": "disabled", "my.tool": "blocked"}
    approved = cli("--home", str(home), "approve", "docs", cwd=folder)
    assert (approved.returncode, approved.stdout) == (0, f"docs: approved for {key} (enabledMcpjsonServers in {claude})\n"), approved
    assert cli("--home", str(home), "approve", "my_tool", cwd=folder).returncode == 0  # named as Claude Code compares names
    after = json.loads(claude.read_text(encoding="utf-8"))
    entry = after["projects"].pop(key)
    assert entry == {"allowedTools": [], "disabledMcpjsonServers": [], "hasTrustDialogAccepted": True,
                     "enabledMcpjsonServers": ["docs", "my.tool"]}, entry
    assert after == CLAUDE_JSON and list(after) == list(CLAUDE_JSON), "expected every other field as it was, in its order"
    assert stat.S_IMODE(claude.stat().st_mode) == 0o640, "expected the file's mode kept"
    assert sorted(p.name for p in home.iterdir()) == [".claude.json"], "expected no temporary file left"
    assert _states(folder, home) == {"docs": "connected", "my.tool": "connected"}

    denied = cli("--home", str(home), "deny", "my.tool", cwd=folder)
    assert denied.returncode == 0 and "my.tool: denied for" in denied.stdout, denied
    entry = json.loads(claude.read_text(encoding="utf-8"))["projects"][key]
    assert (entry["enabledMcpjsonServers"], entry["disabledMcpjsonServers"]) == (["docs"], ["my.tool"])
    assert "approved already" in cli("--home", str(home), "approve", "docs", cwd=folder).stdout


def test_approve_writes_a_new_claude_json_private(tmp_path):
    folder, home = tmp_path / "project", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": server("docs")}}), encoding="utf-8")
    assert cli("--home", str(home), "approve", "docs", cwd=folder).returncode == 0
    claude = home / ".claude.json"
    assert json.loads(claude.read_text(encoding="utf-8")) == {"projects": {str(folder.resolve()): {"enabledMcpjsonServers": ["docs"]}}}
    assert stat.S_IMODE(claude.stat().st_mode) == 0o600


def test_approve_goes_through_a_symlinked_claude_json(project, tmp_path):
    folder, home = project
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    (home / ".claude.json").rename(real)
    (home / ".claude.json").symlink_to(real)
    assert cli("--home", str(home), "approve", "docs", cwd=folder).returncode == 0
    assert (home / ".claude.json").is_symlink(), "expected the symlink kept, its target written"
    assert json.loads(real.read_text(encoding="utf-8"))["projects"][str(folder.resolve())]["enabledMcpjsonServers"] == ["docs"]


@pytest.mark.parametrize(("argv", "message"), [
    (["approve", "nope"], "error: no .mcp.json server 'nope' here (approve answers for this folder's .mcp.json servers: docs, my.tool)\n"),
    (["--config", ".mcp.json", "deny", "docs"], "error: deny answers for this folder's .mcp.json servers; it takes no --config\n"),
])
def test_approve_of_what_is_not_a_project_server_is_bad_usage(project, argv, message):
    folder, home = project
    before = (home / ".claude.json").read_bytes()
    done = cli("--home", str(home), *argv, cwd=folder)
    assert (done.returncode, done.stderr) == (2, message), done
    assert (home / ".claude.json").read_bytes() == before, "expected the file untouched"
