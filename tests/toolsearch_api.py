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

It also plays the API's own search tool (``{"type": "tool_search_tool_bm25_20251119", "name":
"tool_search_tool_bm25"}``). A script's call of ``tool_search_tool_bm25`` with ``{query}`` (plain
words) is answered here, as the API would: a ``server_tool_use`` block, then a
``tool_search_tool_result`` whose ``tool_references`` name the best ``REFERENCES`` deferred tools
of the request (``harness.toolindex``'s BM25 over each one's name, description and parameter
names: what the request holds), then the turn's other calls, which may use what it loaded. Its
refusals, inferred (the API's wording for them has not been quoted):

    tools.0: tool type 'tool_search_tool_bm25_20251119' needs the beta header anthropic-beta: advanced-tool-use-2025-11-20
    messages.1.content.1: `server_tool_use` ids were found without `tool_search_tool_result` blocks immediately after: srvtoolu_01
    messages.1.content.2: `tool_search_tool_result` block srvtoolu_01 is not the one the API sent (send server tool blocks back as they came)
"""

from __future__ import annotations

import json
from typing import Any

from messages_api import MessagesAPI, Refused

from harness.toolindex import Doc, Index, Query

SERVER_TYPE, SERVER_NAME, BETA = "tool_search_tool_bm25_20251119", "tool_search_tool_bm25", "advanced-tool-use-2025-11-20"
SERVER_BLOCKS = ("server_tool_use", "tool_search_tool_result")
REFERENCES = 5  # tools a search loads at most (the API's documentation: three to five)
MARK = "stand_in_server_tool"  # on the custom tool the base stand-in is shown in the server tool's place


class ToolSearchAPI(MessagesAPI):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: dict[tuple[str, str], dict[str, Any]] = {}  # each server block it answered with, by (type, id)
        self.betas: list[str | None] = []  # each request's anthropic-beta header, in order

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any], dict[str, Any]]:
        try:
            request = json.loads(body)
        except ValueError:
            return super().answer(path, headers, body)
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            return super().answer(path, headers, body)
        lower = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            self.betas.append(lower.get("anthropic-beta"))
        try:
            _check_beta(request, lower)
            loaded = _check(request)
            self._check_echo(request)
            self._check_script(request, loaded)
        except Refused as refused:
            return refused.status, {"type": "error", "error": {"type": refused.kind, "message": refused.message}}, request
        status, answer, _ = super().answer(path, headers, json.dumps(_as_text(request)).encode())
        if status == 200:
            with self._lock:
                self.sent.update({(b["type"], _block_id(b)): b for b in answer["content"] if b["type"] in SERVER_BLOCKS})
        return status, answer, request

    def _check_script(self, request: dict[str, Any], loaded: set[str]) -> None:
        deferred = {t["name"] for t in request.get("tools") or [] if isinstance(t, dict) and t.get("defer_loading") is True}
        turn = sum(1 for m in request["messages"] if isinstance(m, dict) and m.get("role") == "assistant")
        if turn < len(self.scenario.turns):
            loaded = set(loaded)
            for call in self.scenario.turns[turn].calls:
                if call.name == SERVER_NAME and _searchable(request):  # what it loads, the turn's later calls may use
                    loaded.update(_search(request, call.input.get("query")))
                elif call.name in deferred and call.name not in loaded:
                    raise Refused(400, "invalid_request_error", f"stand-in: {call.where}.name: '{call.name}' is deferred and no tool_reference loaded it")

    def _check_echo(self, request: dict[str, Any]) -> None:
        """Each server block of an assistant message is one this stand-in sent, unchanged, and each search has its result."""
        for k, message in enumerate(request["messages"]):
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            blocks = _blocks(message)
            for j, block in enumerate(blocks):
                if block.get("type") not in SERVER_BLOCKS:
                    continue
                with self._lock:
                    sent = self.sent.get((block["type"], _block_id(block)))
                if sent != block:
                    raise Refused(400, "invalid_request_error", f"messages.{k}.content.{j}: `{block['type']}` block {_block_id(block)} "
                                                                "is not the one the API sent (send server tool blocks back as they came)")
                after = blocks[j + 1] if j + 1 < len(blocks) else {}
                if block["type"] == "server_tool_use" and (after.get("type"), after.get("tool_use_id")) != ("tool_search_tool_result", block["id"]):
                    raise Refused(400, "invalid_request_error", f"messages.{k}.content.{j}: `server_tool_use` ids were found without "
                                                                f"`tool_search_tool_result` blocks immediately after: {block['id']}")

    def _reply(self, request: dict[str, Any], names: list[str], number: int) -> dict[str, Any]:
        """The base's answer, with each script call of the server tool answered here as the API answers it."""
        history = [m for m in request["messages"] if m.get("role") == "assistant"]
        if not _searchable(request) or len(history) >= len(self.scenario.turns):
            return super()._reply(request, names, number)
        script = self.scenario.turns[len(history)]
        used = sum(1 for m in history for b in _blocks(m) if b.get("type") == "tool_use")
        searched = sum(1 for m in history for b in _blocks(m) if b.get("type") == "server_tool_use")
        content: list[dict[str, Any]] = [{"type": "text", "text": script.text}] if script.text else []
        for call in script.calls:
            if call.name == SERVER_NAME:
                searched += 1
                ident = f"srvtoolu_{searched:02d}"
                found = _search(request, call.input.get("query"))
                content += [{"type": "server_tool_use", "id": ident, "name": SERVER_NAME, "input": dict(call.input)},
                            {"type": "tool_search_tool_result", "tool_use_id": ident, "content": {
                                "type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": n} for n in found]}}]
                continue
            if call.name not in names:
                raise Refused(400, "invalid_request_error", f"stand-in: {call.where}.name: '{call.name}' is not in the request's tools ({', '.join(names)})")
            used += 1
            content.append({"type": "tool_use", "id": f"toolu_{used:02d}", "name": call.name, "input": call.input})
        clients = [c for c in script.calls if c.name != SERVER_NAME]
        return {"id": f"msg_standin_{number:04d}", "type": "message", "role": "assistant", "model": request["model"],
                "content": content, "stop_reason": "tool_use" if clients else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}


def _check_beta(request: dict[str, Any], headers: dict[str, str]) -> None:
    for i, tool in enumerate(request.get("tools") or []):
        if isinstance(tool, dict) and tool.get("type") == SERVER_TYPE:
            if BETA not in [b.strip() for b in headers.get("anthropic-beta", "").split(",")]:
                raise Refused(400, "invalid_request_error", f"tools.{i}: tool type '{SERVER_TYPE}' needs the beta header anthropic-beta: {BETA}")
            if tool.get("name") != SERVER_NAME:
                raise Refused(400, "invalid_request_error", f"tools.{i}.{SERVER_TYPE}.name: Input should be '{SERVER_NAME}'")


def _searchable(request: dict[str, Any]) -> bool:
    """Whether the request offers the API's search tool (in the base's view: the custom tool ``_as_text`` left)."""
    return any(isinstance(t, dict) and (t.get("type") == SERVER_TYPE or t.get(MARK)) for t in request.get("tools") or [])


def _search(request: dict[str, Any], query: Any) -> list[str]:
    """The request's deferred tools that best match ``query`` (plain words), best first: what the API's search returns."""
    if not isinstance(query, str) or not query.strip():
        raise Refused(400, "invalid_request_error", "stand-in: a tool_search_tool_bm25 call needs a query of plain words")
    index = Index()
    index.update("request", [Doc(t["name"], "request", t["name"], t.get("description") or "", "", tuple((t.get("input_schema") or {}).get("properties") or ()))
                             for t in request.get("tools") or [] if isinstance(t, dict) and t.get("defer_loading") is True])
    return [m.name for m in index.search(Query.parse(query.replace("+", " ")), REFERENCES)]


def _block_id(block: dict[str, Any]) -> str:
    return str(block.get("id") if block.get("type") == "server_tool_use" else block.get("tool_use_id"))


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
            if block.get("type") == "tool_search_tool_result" and isinstance(block.get("content"), dict):
                for n, part in enumerate(block["content"].get("tool_references") or []):
                    if part.get("tool_name") not in names:
                        raise Refused(400, "invalid_request_error", f"messages.{k}.content.{j}.content.tool_references.{n}: tool_reference_unresolved: "
                                                                    f"{part.get('tool_name')!r} is not a tool of this request")
                    loaded.add(part["tool_name"])
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
    """``request`` with each ``tool_reference`` block as a text block, and the server tool as a marked custom tool, for
    the base stand-in's checks."""
    copied = json.loads(json.dumps(request))
    copied["tools"] = [{"name": t["name"], "input_schema": {"type": "object"}, MARK: True} if isinstance(t, dict) and t.get("type") == SERVER_TYPE
                       else t for t in copied.get("tools") or []]
    for message in copied["messages"]:
        for block in _blocks(message):
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                block["content"] = [{"type": "text", "text": f"tool_reference: {p.get('tool_name')}"}
                                    if isinstance(p, dict) and p.get("type") == "tool_reference" else p for p in block["content"]]
    return copied


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
