"""s38 end to end: each server runs once however many agents use it, an agent's own server starts and stops with
its task, and the pools, the inherited decisions and the cancel are what the pinned run shows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import run_lesson

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def test_each_server_is_spawned_once_whatever_the_number_of_agents_using_it(tmp_path):
    frames = tmp_path / "frames.jsonl"
    code, text = run_lesson("s38", "--frames", str(frames))
    assert code == 0, text
    opened = Counter(f["server"] for f in map(json.loads, frames.read_text().splitlines())
                     if f["direction"] == "send" and f["message"].get("method") in ("server/discover", "initialize"))
    assert opened == {"docs": 1, "handbook": 1, "deploy": 1, "prod": 1}, f"expected one session per server, got {dict(opened)}"
    assert "note: server processes: 3, one per server" in text and "note: server processes after the run: 3" in text, text
    lines = text.splitlines()
    assert lines.index("[deployer] state: prod: pending -> connected: tools: trigger, status") < lines.index(
        "[deployer] state: prod: connected -> closed: agent 'deployer' is done") < lines.index(
        "note: server processes after the run: 3"), "expected prod started for the deployer and stopped before the lead's end"
    calls = [line for line in lines if "  -> mcp__" in line]
    assert all(line.startswith(("[researcher]   -> mcp__docs__", "[researcher]   -> mcp__handbook__", "[deployer]   -> mcp__deploy__",
                                "[deployer]   -> mcp__prod__", "  -> mcp__deploy__")) for line in calls), calls


def test_the_cancel_ends_the_agents_call_and_loop_and_exits_130():
    code, text = run_lesson("s38", "--scenario", str(ROOT / "lessons/s38/cancel.yaml"), "--ctrl-c-on", "get_version")
    assert code == 130, text
    lines = text.splitlines()
    assert lines[-1] == "error: interrupted", lines[-1]
    assert "note: agent 'researcher': cancelled, with its loop (its call to mcp__docs__get_version was in flight)" in lines, text
    assert not any(line.startswith("assistant> Never reached") for line in lines), "expected no turn after the cancel"
