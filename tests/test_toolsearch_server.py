"""``--tool-search server``: the Messages API's own search tool in place of ours. s36 live against the stand-in
(``tests/toolsearch_api.py``, which plays the API's search), the stand-in's refusals, the part's rules, and the
refusal offline (no scripted model can run Anthropic's search)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import anyio
import pytest
from conftest import run_lesson
from test_toolsearch import run
from toolsearch_api import BETA, SERVER_NAME, SERVER_TYPE, ToolSearchAPI

from harness.apisearch import ApiSearch
from harness.config.search_policy import Mode
from harness.errors import UsageError
from harness.toolsearch import NAME, Deferred, ToolSearch

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "lessons" / "s36" / "server.yaml"
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ANTHROPIC_AUTH_TOKEN")


def _point(monkeypatch, url: str) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)


def _blocks(request: dict, kinds: tuple[str, ...]) -> list[dict]:
    return [b for m in request["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") in kinds]


def test_a_live_s36_run_with_server_mode_sends_the_apis_search_tool_and_its_blocks_back(monkeypatch):
    with ToolSearchAPI.from_file(SCRIPT) as api:
        _point(monkeypatch, api.url)
        code, text = run_lesson("s36", "--live", "--model", "claude-stand-in", "--tool-search", "server", "--scenario", str(SCRIPT))
    assert code == 0, text
    assert [e.status for e in api.exchanges] == [200] * 5, api.refusals
    assert api.betas == [BETA] * 5, f"expected the beta header on every request (each has the API's tool), got {api.betas}"
    tools = api.exchanges[0].request["tools"]
    assert len({json.dumps(e.request["tools"]) for e in api.exchanges}) == 1, "expected one tools array for every request, reconnect included"
    assert {"type": SERVER_TYPE, "name": SERVER_NAME} in tools and NAME not in {t.get("name") for t in tools}, \
        "expected the API's search tool in place of ours"
    assert sum(t.get("defer_loading") is True for t in tools) == 198
    last = api.exchanges[-1].request
    sent = [b for e in api.exchanges for b in e.response["content"] if b["type"] in ("server_tool_use", "tool_search_tool_result")]
    assert len(sent) == 4 and _blocks(last, ("server_tool_use", "tool_search_tool_result")) == sent, \
        "expected the API's two searches and their results back in the last request, verbatim"
    ours = [b for m in last["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]
            if isinstance(b.get("content"), list) and any(p.get("type") == "tool_reference" for p in b["content"])]
    assert ours == [], "expected no tool_reference of ours: the API loaded every tool"
    assert "  <- tracker.search_issues: ok" in text and "  <- chat.search_messages: ok" in text, text
    assert "deferred and not loaded" not in text, "expected no refusal of a tool the API loaded"
    assert "the API's tool_search_tool_bm25 searches those of chat, cloud, db, storage, tracker" in text


def _post(url: str, body: dict, beta: str | None = BETA) -> tuple[int, dict]:
    headers = {"content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01", **({"anthropic-beta": beta} if beta else {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{url}/v1/messages", json.dumps(body).encode(), headers), timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


TOOLS = [{"type": SERVER_TYPE, "name": SERVER_NAME},
         {"name": "mcp__t__search_issues", "description": "Search issues by text.", "defer_loading": True,
          "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}},
         {"name": "mcp__t__close_issue", "description": "Close an issue.", "defer_loading": True,
          "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}}}]


def test_the_stand_in_refuses_the_server_tool_without_its_beta_header_and_blocks_sent_back_wrongly(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("prompt: p\nturns:\n  - tool_calls:\n      - {name: tool_search_tool_bm25, input: {query: search issues}}\n"
                      "      - {name: mcp__t__search_issues, input: {query: x}}\n  - text: done\n", encoding="utf-8")
    first = {"model": "m", "max_tokens": 10, "tools": TOOLS, "messages": [{"role": "user", "content": "go"}]}
    with ToolSearchAPI.from_file(script) as api:
        status, answer = _post(api.url, first, beta=None)
        assert (status, answer["error"]["message"]) == (400, f"tools.0: tool type '{SERVER_TYPE}' needs the beta header anthropic-beta: {BETA}")
        status, answer = _post(api.url, first)
        assert status == 200, answer
        content = answer["content"]
        assert [b["type"] for b in content] == ["server_tool_use", "tool_search_tool_result", "tool_use"]
        assert content[1]["content"]["tool_references"][0] == {"type": "tool_reference", "tool_name": "mcp__t__search_issues"}
        result = [{"type": "tool_result", "tool_use_id": content[2]["id"], "content": "found"}]

        def second(assistant):
            return {**first, "messages": [*first["messages"], {"role": "assistant", "content": assistant}, {"role": "user", "content": result}]}

        changed = json.loads(json.dumps(content))
        changed[1]["content"]["tool_references"] = []
        status, answer = _post(api.url, second(changed))
        assert (status, answer["error"]["message"]) == (400, "messages.1.content.1: `tool_search_tool_result` block srvtoolu_01 is not the one "
                                                              "the API sent (send server tool blocks back as they came)")
        status, answer = _post(api.url, second([content[0], content[2]]))
        assert (status, answer["error"]["message"]) == (400, "messages.1.content.0: `server_tool_use` ids were found without "
                                                              "`tool_search_tool_result` blocks immediately after: srvtoolu_01")
        status, answer = _post(api.url, second(content))
        assert status == 200 and answer["content"] == [{"type": "text", "text": "done"}], answer


def test_server_mode_offline_is_refused_at_once_naming_what_it_needs(capsys):
    code, text = run_lesson("s36", "--tool-search", "server")
    assert code == 2 and "state:" not in text, f"expected a usage error before any server started, got {code}: {text}"
    assert "error: --tool-search server needs --live: the Messages API runs that search" in capsys.readouterr().err
    with pytest.raises(UsageError, match="--tool-search server needs --live"):
        anyio.run(ToolSearch("server").enter, None)  # the part refuses before it reads what it was built with


def test_a_servers_own_server_field_offers_the_apis_tool_live_and_falls_back_to_ours_offline():
    async def live(rig):
        turn = rig.turn()
        names = [t.name for t in turn.tools]
        assert SERVER_NAME in names and NAME in names, f"expected both searches (chat: server, tracker: on), got {names[:6]}"
        assert isinstance(next(t for t in turn.tools if t.name == SERVER_NAME), ApiSearch)
        assert "find them with tool_search_tool_bm25" in turn.system and "tools of tracker are deferred: find them with tool_search " in turn.system
        chat = next(t for t in turn.tools if t.name == "mcp__chat__search_messages")
        assert isinstance(chat, Deferred) and rig.part.searcher.refusal(chat) is None, "expected a tool the API loads not refused"
        tracker = next(t for t in turn.tools if t.name == "mcp__tracker__search_issues")
        assert rig.part.searcher.refusal(tracker) is not None, "expected a tool of ours still refused until tool_search loads it"
        return None
    run({"chat": 30, "tracker": 30}, live, mode="on", fields={"chat": {"toolSearch": "server"}}, api=True)

    async def offline(rig):
        turn = rig.turn()
        assert SERVER_NAME not in [t.name for t in turn.tools] and rig.part.searcher.modes["chat"] == Mode("on")
        assert "warning: server 'chat': field 'toolSearch': server needs a live model (the Messages API runs that search); " \
               "its tools are on: found by tool_search" in rig.said()
        return None
    run({"chat": 30, "tracker": 30}, offline, mode="on", fields={"chat": {"toolSearch": "server"}})
