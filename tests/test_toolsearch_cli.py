"""The user CLI's tool search: ``tools --search`` ranks the connected tools; ``chat --tool-search`` defers them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


def fleet(kind: str, **more) -> dict:
    return {"command": sys.executable, "args": ["-m", "mock_servers.fleet", kind, "--transport", "stdio", "--tools", "40"], **more}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps({"mcpServers": {"chat": fleet("chat"), "tracker": fleet("tracker", toolSearch="on")}}), encoding="utf-8")
    return path


def test_tools_search_ranks_with_scores_and_why(config):
    done = cli("--config", str(config), "tools", "--search", "send a direct message", "--limit", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("mcp__chat__send_direct_message") and "name: send, direct" in lines[0], done.stdout
    assert lines[1] == "    Send a direct message to one person."
    assert len([line for line in lines if line.startswith("mcp__")]) == 2
    rows = json.loads(cli("--config", str(config), "--json", "tools", "--search", "+tracker close", "--limit", "1").stdout)
    assert rows == [{"name": "mcp__tracker__close_issue", "server": "tracker", "score": rows[0]["score"],
                     "why": {"name": ["tracker", "close"], "description": ["close"]}}]
    missed = cli("--config", str(config), "tools", "--search", "zzz")
    assert missed.stdout == "no tool matches 'zzz' among 80 tools\n", missed.stdout


def test_chat_with_tool_search_loads_what_it_finds(config, tmp_path):
    script = tmp_path / "chat.yaml"
    script.write_text("prompt: Tell Priya.\nturns:\n  - tool_calls:\n      - {name: tool_search, input: {query: direct message, limit: 1}}\n"
                      "  - tool_calls:\n      - {name: mcp__chat__send_direct_message, input: {user_id: priya, text: green}}\n"
                      "  - text: Told her.\n", encoding="utf-8")
    done = cli("--config", str(config), "chat", "--scenario", str(script), "--tool-search", "auto", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: tool search: on for chat, tracker (" in done.stdout, done.stdout
    assert "  <- tool_reference: mcp__chat__send_direct_message" in done.stdout
    assert '  <- chat.send_direct_message: ok {"text": "green", "user_id": "priya"}' in done.stdout
    bad = cli("--config", str(config), "chat", "--scenario", str(script), "--tool-search", "sometimes")
    assert bad.returncode == 2 and "--tool-search: expected auto, auto:N" in bad.stderr, bad.stderr
    offline = cli("--config", str(config), "chat", "--scenario", str(script), "--tool-search", "server")
    assert offline.returncode == 2 and "error: --tool-search server needs --live" in offline.stderr and not offline.stdout, offline.stderr
