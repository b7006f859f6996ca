"""The user CLI's subagents (s38): ``agents [--json]`` lists the agent files with the tools each would get now,
and ``chat`` offers the lead the task tool over them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

RESEARCHER = "---\nname: researcher\ndescription: Reads the docs.\ntools: mcp__docs__search\nmaxTurns: 3\n---\nYou read.\n"


def project(tmp_path: Path, servers: dict) -> Path:
    """A working folder with .claude/agents (one good file, one broken) and a config of ``servers``."""
    agents = tmp_path / "work" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    (agents / "broken.md").write_text("---\nname: broken\ndescription: x\nmaxTurns: none\n---\n", encoding="utf-8")
    (tmp_path / "work" / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return tmp_path / "work"


def test_agents_lists_each_agent_and_names_a_broken_file_and_its_field(tmp_path):
    work = project(tmp_path, {})
    done = cli("--home", str(tmp_path / "home"), "--config", "mcp.json", "agents", cwd=work)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["researcher  .claude/agents/researcher.md (project), 3 turns at most: Reads the docs.",
                                        "  tools now (0): none"], done.stdout
    assert done.stderr == "warning: .claude/agents/broken.md: field 'maxTurns': expected a whole number of turns, at least 1\n", done.stderr
    rows = json.loads(cli("--home", str(tmp_path / "home"), "--config", "mcp.json", "--json", "agents", cwd=work).stdout)
    assert [(r["name"], r["tools"], r["max_turns"]) for r in rows] == [("researcher", [], 3)], rows


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_agents_shows_the_tools_now_and_chat_runs_an_agent_on_the_lead_s_connection(tmp_path):
    docs = {"command": sys.executable, "args": ["-m", "mock_servers.docs", "--transport", "stdio"]}
    work = project(tmp_path, {"docs": docs})
    home = ("--home", str(tmp_path / "home"), "--config", "mcp.json")
    listed = cli(*home, "--json", "agents", cwd=work)
    assert [r["tools"] for r in json.loads(listed.stdout)] == [["mcp__docs__search"]], listed.stdout
    scenario = work / "chat.yaml"
    scenario.write_text("prompt: What do the docs say about deploys?\nturns:\n"
                        "  - tool_calls: [{name: task, input: {agent: researcher, prompt: 'deploys?'}}]\n"
                        "  - tool_calls: [{name: mcp__docs__search, input: {query: deploy}}]\n"
                        "  - text: Staging first, then production.\n"
                        "  - text: Builds go to staging first.\n", encoding="utf-8")
    done = cli(*home, "chat", "--scenario", str(scenario), cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "warning: .claude/agents/broken.md: field 'maxTurns': expected a whole number of turns, at least 1" in lines, done.stdout
    assert "[researcher] tools (1): mcp__docs__search" in lines, done.stdout
    assert "  <- Staging first, then production." in lines, done.stdout
    assert sum(line.startswith("state: docs: pending -> connected") for line in lines) == 1, "expected docs started once"


def test_agents_says_which_of_its_servers_are_not_connected_and_why(tmp_path):
    work = project(tmp_path, {"docs": {"command": "x", "disabled": True}})
    done = cli("--home", str(tmp_path / "home"), "--config", "mcp.json", "agents", cwd=work)
    assert done.returncode == 0, done.stderr
    assert "  not connected: docs (disabled)" in done.stdout.splitlines(), f"expected the reason its pool is empty, found {done.stdout!r}"
    rows = json.loads(cli("--home", str(tmp_path / "home"), "--config", "mcp.json", "--json", "agents", cwd=work).stdout)
    assert rows[0]["not_connected"] == {"docs": "disabled"}, rows
