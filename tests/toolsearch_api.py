"""The Messages API stand-in (``tests/messages_api.py``) with the rules of deferred tools and ``tool_reference``.

The base stand-in knows only text and image blocks in a tool result. The API also takes a
``tool_reference`` block there, which loads a tool sent with ``defer_loading: true``; this
stand-in checks those rules, then hands the request to the base checks with each
reference as a text block. Its refusals:

    tools.3.defer_loading: Input should be a valid boolean                  (the API's validation wording)
    tools: at least one tool must not be deferred                           (inferred: a search tool must load)
    messages.2.content.0.content.1: tool_reference_unresolved: 'x' is not a tool of this request
    stand-in: turns[2].tool_calls[0].name: 'x' is deferred and no tool_reference loaded it

The first three answer 400 ``invalid_request_error``, as the API does for a malformed request
(the third with the SDK's error code ``tool_reference_unresolved``); the last is the test's
mistake, not the API's: a real model cannot call a tool it has not loaded.
"""

from __future__ import annotations

import json
from typing import Any

from messages_api import MessagesAPI, Refused


class ToolSearchAPI(MessagesAPI):
    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any], dict[str, Any]]:
        try:
            request = json.loads(body)
        except ValueError:
            return super().answer(path, headers, body)
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            return super().answer(path, headers, body)
        try:
            loaded = _check(request)
            self._check_script(request, loaded)
        except Refused as refused:
            return refused.status, {"type": "error", "error": {"type": refused.kind, "message": refused.message}}, request
        status, answer, _ = super().answer(path, headers, json.dumps(_as_text(request)).encode())
        return status, answer, request

    def _check_script(self, request: dict[str, Any], loaded: set[str]) -> None:
        deferred = {t["name"] for t in request.get("tools") or [] if isinstance(t, dict) and t.get("defer_loading") is True}
        turn = sum(1 for m in request["messages"] if isinstance(m, dict) and m.get("role") == "assistant")
        if turn < len(self.scenario.turns):
            for call in self.scenario.turns[turn].calls:
                if call.name in deferred and call.name not in loaded:
                    raise Refused(400, "invalid_request_error", f"stand-in: {call.where}.name: '{call.name}' is deferred and no tool_reference loaded it")


def _check(request: dict[str, Any]) -> set[str]:
    """The names ``tool_reference`` blocks loaded so far, or ``Refused`` with the first broken rule."""
    tools = [t for t in request.get("tools") or [] if isinstance(t, dict)]
    for i, tool in enumerate(tools):
        if "defer_loading" in tool and not isinstance(tool["defer_loading"], bool):
            raise Refused(400, "invalid_request_error", f"tools.{i}.defer_loading: Input should be a valid boolean")
    if tools and all(t.get("defer_loading") is True for t in tools):
        raise Refused(400, "invalid_request_error", "tools: at least one tool must not be deferred")
    names = {t.get("name") for t in tools}
    loaded = set()
    for k, message in enumerate(request["messages"]):
        for j, block in enumerate(_blocks(message)):
            if block.get("type") != "tool_result" or not isinstance(block.get("content"), list):
                continue
            for n, part in enumerate(block["content"]):
                if isinstance(part, dict) and part.get("type") == "tool_reference":
                    if part.get("tool_name") not in names:
                        raise Refused(400, "invalid_request_error", f"messages.{k}.content.{j}.content.{n}: tool_reference_unresolved: "
                                                                    f"{part.get('tool_name')!r} is not a tool of this request")
                    loaded.add(part["tool_name"])
    return loaded


def _as_text(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with each ``tool_reference`` block as a text block, for the base stand-in's checks."""
    copied = json.loads(json.dumps(request))
    for message in copied["messages"]:
        for block in _blocks(message):
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                block["content"] = [{"type": "text", "text": f"tool_reference: {p.get('tool_name')}"}
                                    if isinstance(p, dict) and p.get("type") == "tool_reference" else p for p in block["content"]]
    return copied


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
