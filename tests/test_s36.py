"""s36 end to end: the tools array is the same bytes on every turn, offline and live, and a live run
sends what the Messages API takes (``defer_loading``, ``tool_reference``), checked by the stand-in."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_lesson
from toolsearch_api import ToolSearchAPI

from harness import model

ROOT = Path(__file__).resolve().parent.parent
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ANTHROPIC_AUTH_TOKEN")


def test_the_tools_array_is_the_same_bytes_on_every_turn_of_the_offline_run(monkeypatch):
    sent: list[str] = []
    reply = model.ScriptedModel.reply

    async def recorded(self, system, messages, tools):
        sent.append(json.dumps([t.spec() for t in tools]))
        return await reply(self, system, messages, tools)

    monkeypatch.setattr(model.ScriptedModel, "reply", recorded)
    code, text = run_lesson("s36")
    assert code == 0, text
    assert len(sent) == 6, f"expected the scenario's 6 turns, got {len(sent)}"
    assert len(set(sent)) == 1, "expected one tools array for every turn (searches, calls, a crash and a reconnect between)"
    tools = json.loads(sent[0])
    assert sum(t.get("defer_loading") is True for t in tools) == 198, "expected every MCP tool deferred but the 2 alwaysLoad ones"


def test_a_live_s36_run_sends_deferred_tools_and_tool_references_the_stand_in_takes(monkeypatch):
    with ToolSearchAPI.from_file(ROOT / "lessons" / "s36" / "scenario.yaml") as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in PROXIES:
            monkeypatch.delenv(name, raising=False)
        code, text = run_lesson("s36", "--live", "--model", "claude-stand-in")
    assert code == 0, text
    assert [e.status for e in api.exchanges] == [200] * 6, api.refusals
    assert len({json.dumps(e.request["tools"]) for e in api.exchanges}) == 1, "expected the same tools array in every request"
    assert sum(t.get("defer_loading") is True for t in api.exchanges[0].request["tools"]) == 198
    references = [p["tool_name"] for e in api.exchanges[-1:] for m in e.request["messages"] if isinstance(m["content"], list)
                  for b in m["content"] if b.get("type") == "tool_result" and isinstance(b.get("content"), list)
                  for p in b["content"] if p.get("type") == "tool_reference"]
    assert references == ["mcp__tracker__create_issue", "mcp__chat__send_direct_message"]


def test_the_stand_in_refuses_a_call_to_a_deferred_tool_nothing_loaded(tmp_path, monkeypatch):
    script = tmp_path / "skip.yaml"
    script.write_text("prompt: File a bug.\nturns:\n  - tool_calls:\n      - {name: mcp__tracker__create_issue, input: {title: x}}\n"
                      "  - text: done\n", encoding="utf-8")
    with ToolSearchAPI.from_file(script) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in PROXIES:
            monkeypatch.delenv(name, raising=False)
        code, text = run_lesson("s36", "--live", "--model", "claude-stand-in", "--scenario", str(script))
    assert code == 1, text
    assert api.refusals == ["stand-in: turns[0].tool_calls[0].name: 'mcp__tracker__create_issue' is deferred and no tool_reference loaded it"]
