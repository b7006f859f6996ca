"""``call``, ``read --server`` and ``prompt SERVER/NAME`` start only the server they name.

Each server of the config is a counting mock server: before it runs the course's mock
server, it appends its name to a log file, so the log says which servers were started.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
COUNTING = ("import runpy, sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n'); "
            "sys.argv = [sys.argv[3], '--transport', 'stdio']; runpy.run_module(sys.argv[0], run_name='__main__')")


def counted(log: Path, name: str, module: str) -> dict:
    return {"command": sys.executable, "args": ["-c", COUNTING, str(log), name, f"mock_servers.{module}"]}


@pytest.fixture
def six(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "started.log"
    servers = {"docs": "docs", "deploy": "deploy", "handbook": "handbook", "media": "media", "my.notes": "notes", "docs2": "docs"}
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text(json.dumps({"mcpServers": {name: counted(log, name, module) for name, module in servers.items()}}), encoding="utf-8")
    return path, log


def _started(log: Path) -> list[str]:
    return sorted(log.read_text(encoding="utf-8").split()) if log.exists() else []


def test_call_on_a_six_server_config_starts_only_the_server_its_tool_names(six):
    config, log = six
    done = cli("--config", str(config), "call", "mcp__deploy__trigger", '{"service": "web"}')
    assert done.returncode == 0, done
    assert _started(log) == ["deploy"], "expected one server started for the call"


def test_a_name_normalized_in_the_tool_name_still_finds_its_one_server(six):
    config, log = six
    done = cli("--config", str(config), "tools", "--json")
    tool = next(r["name"] for r in json.loads(done.stdout) if r["server"] == "my.notes")
    log.unlink()
    # The tool's own answer, or its schema refusing {} before it is sent: the start is the point.
    assert cli("--config", str(config), "call", tool, "{}").returncode in (0, 1, 2)
    assert _started(log) == ["my.notes"]


def test_a_tool_name_that_names_no_server_starts_them_all_and_lists_their_tools(six):
    config, log = six
    done = cli("--config", str(config), "call", "mcp__nope__x")
    assert done.returncode == 2 and "error: no tool 'mcp__nope__x' among the connected servers' tools (mcp__deploy__status" in done.stderr, done
    assert _started(log) == ["deploy", "docs", "docs2", "handbook", "media", "my.notes"]


def test_read_with_server_and_prompt_with_server_name_start_one_server(six):
    config, log = six
    read = cli("--config", str(config), "read", "handbook://pages/style", "--server", "handbook")
    assert read.returncode == 0 and read.stdout.startswith("# Style"), read
    prompt = cli("--config", str(config), "prompt", "handbook/summarize", '{"title": "style"}')
    assert prompt.returncode == 0, prompt
    assert _started(log) == ["handbook", "handbook"]
