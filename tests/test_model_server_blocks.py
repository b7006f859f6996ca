"""harness.model's live model and a server tool: the beta header only when one is in the request, and the blocks
the harness does not make (``server_tool_use``, ``tool_search_tool_result``) carried back verbatim by ``Reply``."""

from __future__ import annotations

import json
from typing import Any

import anyio
from messages_api import MessagesAPI

from harness.model import AnthropicModel, Reply, Scenario, ToolCall
from harness.tools import Tool

PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ANTHROPIC_AUTH_TOKEN")
SEARCHED = [  # what the API answers when the model used its search tool, then a tool the search loaded
    {"type": "text", "text": "Searching."},
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25", "input": {"query": "file a bug"}},
    {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01",
     "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "mcp__t__create"}]}},
    {"type": "tool_use", "id": "toolu_01", "name": "mcp__t__create", "input": {"title": "x"}},
]


class Recording(MessagesAPI):
    """Answers every request with ``SEARCHED``, keeping each request's beta header."""

    def __init__(self) -> None:
        super().__init__(Scenario.parse({"prompt": "p", "turns": [{"text": "unused"}]}, "unused.yaml"))
        self.betas: list[str | None] = []

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any], dict[str, Any]]:
        self.betas.append({k.lower(): v for k, v in headers.items()}.get("anthropic-beta"))
        return 200, {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": SEARCHED,
                     "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}, json.loads(body)


class Searching(Tool):
    def spec(self) -> dict[str, Any]:
        return {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}


async def _nothing(args):
    return "ok"


def test_the_beta_header_goes_only_with_a_server_tool_and_its_blocks_come_back_verbatim(monkeypatch):
    plain = Tool("mcp__t__create", "Create an issue", {"type": "object", "properties": {"title": {"type": "string"}}}, _nothing)
    search = Searching("tool_search_tool_bm25", "", {}, _nothing)
    with Recording() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in PROXIES:
            monkeypatch.delenv(name, raising=False)
        model = AnthropicModel("claude-test")

        async def main():
            user = [{"role": "user", "content": "go"}]
            return await model.reply("s", user, [plain]), await model.reply("s", user, [search, plain])

        without, with_search = anyio.run(main)
    assert api.betas == [None, "advanced-tool-use-2025-11-20"], f"expected the beta header on the second request only, got {api.betas}"
    assert with_search.text == "Searching." and with_search.tool_calls == (ToolCall("toolu_01", "mcp__t__create", {"title": "x"}),)
    assert with_search.as_message() == {"role": "assistant", "content": SEARCHED}, "expected the API's blocks back as it sent them"
    assert without.as_message()["content"] == SEARCHED  # the API's blocks decide, not the tools asked with


def test_a_reply_without_the_apis_content_makes_its_message_from_text_and_calls():
    reply = Reply("hi", (ToolCall("toolu_01", "x", {}),))
    assert reply.as_message() == {"role": "assistant", "content": [{"type": "text", "text": "hi"},
                                                                   {"type": "tool_use", "id": "toolu_01", "name": "x", "input": {}}]}
