"""harness.tools and harness.loop: the workspace fence, and failures returned as data."""

from __future__ import annotations

import asyncio
import os

import pytest

from harness.errors import ToolError
from harness.loop import Turn, run_agent
from harness.model import Scenario, ScriptedModel
from harness.tools import Tool, Workspace
from harness.transcript import Transcript


def call(workspace, name, **args):
    tool = {t.name: t for t in workspace.tools()}[name]
    return asyncio.run(tool.call(args))


def test_write_read_list_inside_the_workspace(tmp_path):
    ws = Workspace(tmp_path)
    assert call(ws, "write_file", path="notes/a.txt", content="héllo") == "wrote 6 bytes to notes/a.txt"
    assert call(ws, "read_file", path="notes/a.txt") == "héllo"
    assert call(ws, "list_dir") == "notes/"
    assert call(ws, "list_dir", path="notes") == "a.txt"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "notes/../../x"])
def test_paths_that_leave_the_workspace_are_refused(tmp_path, path):
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws").mkdir()
    with pytest.raises(ToolError, match=r"is outside the workspace"):
        call(ws, "read_file", path=path)
    with pytest.raises(ToolError, match=r"is outside the workspace"):
        call(ws, "write_file", path=path, content="x")


def test_a_symlink_pointing_out_is_refused(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", tmp_path / "ws" / "link.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        call(Workspace(tmp_path / "ws"), "read_file", path="link.txt")


def test_missing_and_wrong_arguments(tmp_path):
    ws = Workspace(tmp_path)
    with pytest.raises(ToolError, match="no such file: 'nope'"):
        call(ws, "read_file", path="nope")
    with pytest.raises(ToolError, match="argument 'path': expected a string"):
        call(ws, "read_file", path=3)


def _script(turns):
    return ScriptedModel(Scenario.parse({"prompt": "go", "turns": turns}, "t.yaml"))


def test_tool_errors_go_back_to_the_model_as_error_results():
    async def boom(args):
        raise ToolError("it broke")

    pool = lambda: Turn("sys", (Tool("boom", "", {"type": "object"}, boom),))  # noqa: E731
    transcript = Transcript()
    messages = asyncio.run(run_agent(_script([{"tool_calls": [{"name": "boom"}]}, {"text": "ok"}]), "go", pool, transcript))
    result = messages[2]["content"][0]
    assert result == {"type": "tool_result", "tool_use_id": "toolu_01", "content": "it broke", "is_error": True}
    assert [e["kind"] for e in transcript.events] == ["user", "system", "tools", "tool_call", "tool_result", "assistant"]


def test_harness_bugs_propagate():
    async def bug(args):
        raise KeyError("not a tool failure")

    pool = lambda: Turn("sys", (Tool("bug", "", {"type": "object"}, bug),))  # noqa: E731
    with pytest.raises(KeyError):
        asyncio.run(run_agent(_script([{"tool_calls": [{"name": "bug"}]}, {}]), "go", pool, Transcript()))


def test_turn_limit_stops_the_run():
    async def ok(args):
        return "ok"

    turns = [{"tool_calls": [{"name": "ok"}]}] * 5 + [{}]
    pool = lambda: Turn("sys", (Tool("ok", "", {"type": "object"}, ok),))  # noqa: E731
    transcript = Transcript()
    asyncio.run(run_agent(_script(turns), "go", pool, transcript, max_turns=2))
    assert transcript.events[-1] == {"kind": "warning", "text": "stopped after 2 turns without a final answer"}
