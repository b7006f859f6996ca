"""The guard: between the wire tap and the SDK session, so that one bad value costs one call
or one tool, never the session.

``guard(read, write, ...)`` wraps a session's two streams (inside the tap: the frames file
shows the wire as it was). Going out, to the server:

- a frame that JSON text cannot carry (a lone surrogate, U+D800 to U+DFFF, in any string:
  a tool argument a model or user made up) is refused before any transport sees it:
  ``UnsendableFrame`` names where it is, and only the call that sent it fails. Left to the
  transports, it killed the session on all three (stdio's writer died, and the harness
  then blamed the healthy server for exiting).

Coming in, from the server:

- each tool of a ``tools/list`` answer is checked alone, as the SDK would check the page
  (the negotiated version's schema, then the SDK's own model); a tool that fails (no
  ``inputSchema``, or one that is not an object schema) is dropped with a warning naming
  the tool and what is wrong, and the rest of the page goes on. The SDK rejects the whole
  page for one bad tool, so every good tool of that server was lost;
- an error answer to a request the transport saw fail at the HTTP level gets that
  failure's text (``HTTP 400: <body excerpt>``, from ``Context.errors``) as its message;
- an answer the SDK cannot parse (a stdio line or SSE event that is not JSON-RPC, e.g. one
  with a lone surrogate escape, ``"\\ud800"``) but whose id can be read becomes an error
  answer to that request, at once: the call fails with why, instead of waiting out its
  timeout for an answer that already came. A line with no id is skipped, as before;
- a result without ``resultType`` gets ``"complete"``, which its absence means (2026-07-28
  says so; the SDK's schema of that era requires the field, and its handshake-era results
  drop it again).

``trimmed`` applies the per-server caps after a listing: ``Limits.tools`` tools, and
``Limits.description`` characters of each description; each cut is a warning that names
what was cut and the limit.

Used by every transport from s23 on. Not handled here:
schemas the Messages API refuses (a later step reshapes them), names (s21 does).
"""

from __future__ import annotations

from collections import Counter
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import mcp_types as types
import pydantic_core
from mcp.shared.message import SessionMessage
from mcp_types.methods import validate_server_result
from pydantic import ValidationError

from harness import echo, nesting
from harness.jsonvalue import JSON, JSONObject
from harness.spec import Limits
from harness.wire import InvalidFrame, ReadWrapper, Receives, Sends, StreamWrapper

if TYPE_CHECKING:
    from harness.wire import Frame

HANDSHAKE_VERSION = "2025-11-25"  # what the SDK assumes before initialize has answered
TRUNCATED = "… [truncated]"  # after a cut description (Claude Code's marker)
NAMES_SHOWN = 5  # tool names a warning lists before "and N more"
SHOWN = 60  # characters of a server-given name a warning shows

Warn = Callable[[str], None]


class UnsendableFrame(ValueError):
    """A frame the harness refused to send; the message says where the bad string is."""


printable = echo.line  # server-given text on one line, escaped and cut; the name connection.py imports


def unsendable(value: object) -> str | None:
    """Where in ``value`` a string holds a lone surrogate (``arguments.files[2]``), or None."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if (char := _lone(item)) is not None:
                return f"a lone surrogate ({char}) in {where or 'the frame'}"
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                if isinstance(key, str) and (char := _lone(key)) is not None:
                    return f"a lone surrogate ({char}) in a key of {where or 'the frame'}"
                shown = echo.line(str(key), 40)
                stack.append((f"{where}.{shown}" if where else shown, inner))
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{where}[{i}]", inner) for i, inner in reversed(list(enumerate(item))))
    return None


def _lone(text: str) -> str | None:
    """``U+D800`` for the first character of ``text`` that UTF-8 cannot encode, or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"U+{ord(text[exc.start]):04X}"
    return None


def guard(read: Receives, write: Sends, *, errors: dict[types.RequestId, str], warn: Warn,
          closed_code: Counter[str] | None = None) -> tuple[Receives, Sends]:
    """Wrap a session's (read, write) streams; see the module docstring."""
    state = _State(errors, warn, closed_code if closed_code is not None else Counter())
    return _In(read, state), _Out(write, state)


def trimmed(tools: list[JSONObject], limits: Limits, more: bool = False) -> tuple[list[JSONObject], list[str]]:
    """The tools a server may keep, and a warning per kind of cut. ``more``: pages were left unread."""
    warnings = []
    if len(tools) > limits.tools or more:
        count = f"more than {limits.tools}" if more else str(len(tools))
        warnings.append(f"listed {count} tools; kept the first {limits.tools} ({limits.explain('tools')})")
        tools = tools[:limits.tools]
    cut = []
    for tool in tools:
        description = tool.get("description")
        if isinstance(description, str) and len(description) > limits.description:
            tool["description"] = description[:limits.description] + TRUNCATED
            cut.append(echo.line(str(tool.get("name", "?")), SHOWN))
    if cut:
        names = ", ".join(cut[:NAMES_SHOWN]) + (f" and {len(cut) - NAMES_SHOWN} more" if len(cut) > NAMES_SHOWN else "")
        what = "description" if len(cut) == 1 else "descriptions"
        warnings.append(f"cut the {what} of {names} to {limits.description} characters ({limits.explain('description')})")
    return tools, warnings


class _State:
    """What the two wrappers of one session share: the requests to watch the answers of."""

    def __init__(self, errors: dict[types.RequestId, str], warn: Warn, closed_code: Counter[str]) -> None:
        self.errors, self.warn, self.closed_code = errors, warn, closed_code
        self.listings: set[types.RequestId] = set()  # ids of our tools/list requests not answered yet
        self.initialize: types.RequestId | None = None  # id of our initialize request
        self.version = HANDSHAKE_VERSION

    def sent(self, message: types.JSONRPCMessage) -> None:
        if not isinstance(message, types.JSONRPCRequest):
            return
        if message.method == "tools/list":
            self.listings.add(message.id)
        elif message.method == "initialize":
            self.initialize = message.id

    def received(self, item: Frame) -> Frame:
        if isinstance(item, InvalidFrame):
            return _unparsed_answer(item) or item
        if not isinstance(item, SessionMessage):
            return item
        message = item.message
        if isinstance(message, types.JSONRPCResponse):
            if isinstance(message.result, dict) and "resultType" not in message.result:
                message.result["resultType"] = "complete"
            if message.id in self.listings:
                self.listings.discard(message.id)
                self._check_tools(message.result)
            elif message.id == self.initialize and isinstance(message.result, dict):
                version = message.result.get("protocolVersion")
                self.version = version if isinstance(version, str) else self.version
        elif isinstance(message, types.JSONRPCError):
            self.listings.discard(message.id)
            error = message.error
            if (text := self.errors.pop(message.id, None)) is not None:
                error = message.error.model_copy(update={"message": text})
                item = SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error), metadata=item.metadata)
            if error.code == types.CONNECTION_CLOSED:  # the server's own -32000 (its "server error"), not the SDK's "closed"
                self.closed_code[error.message] += 1
        return item

    def _check_tools(self, result: JSON) -> None:
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return  # not a page of tools at all: the SDK rejects it, and says why
        kept = []
        for number, tool in enumerate(tools, 1):
            problem = _problem(tool, self.version)
            if problem is None:
                kept.append(tool)
                continue
            name = tool.get("name") if isinstance(tool, dict) else None
            shown = f"'{echo.line(name, SHOWN)}'" if isinstance(name, str) else f"number {number} (no name)"
            self.warn(f"dropped tool {shown}: {problem}")
        result["tools"] = kept


def _unparsed_answer(frame: InvalidFrame) -> SessionMessage | None:
    """An error answer for the request a frame the SDK cannot parse was answering, if its id can be read."""
    try:
        message = nesting.loads(frame.line)  # Python's json takes what the SDK's refuses (lone surrogates)
    except nesting.TooDeep:  # nothing of it can be parsed: its id, if it comes first, can still be read
        if (key := _leading_id(frame.line)) is None:
            return None
        error = types.ErrorData(code=types.PARSE_ERROR, message=f"the answer is {nesting.too_deep()}")
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=key, error=error))
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" in message or not isinstance(message.get("id"), (int, str)):
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(frame.line, by_name=False)
    except ValidationError as exc:
        reason = exc.errors()[0]["msg"]
    else:
        return None
    error = types.ErrorData(code=types.PARSE_ERROR, message=f"the answer is not valid JSON-RPC ({echo.line(reason, 120)})")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=message["id"], error=error))


_LEADING_ID = re.compile(r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")\s*,')


def _leading_id(line: str) -> int | str | None:
    """The id of an answer whose ``id`` is its first member (after ``jsonrpc``), as the SDKs write them."""
    if (found := _LEADING_ID.match(line[:512])) is None:
        return None
    raw = found.group(1)
    return raw[1:-1] if raw.startswith('"') else int(raw)


# How the SDK words its refusal of a result against the tool's output schema (a RuntimeError):
# missing structured content, content that does not match, a schema that is invalid or whose
# $ref does not resolve. Any other RuntimeError is a bug and is not caught.
_SCHEMA_REFUSALS = ("Invalid structured content returned by tool ", "Invalid schema for tool ", "Tool ")


def refused_result(exc: Exception) -> str | None:
    """Why the SDK refused a tools/call result, in one line; None if ``exc`` is not such a refusal."""
    if isinstance(exc, ValidationError):  # a result it cannot read as one (2026-07-28: no resultType, say)
        first = exc.errors()[0] if exc.errors() else {"msg": str(exc), "loc": ()}
        at = ".".join(str(part) for part in first.get("loc", ()))
        return f"the server's result is not a valid tools/call result ({at + ': ' if at else ''}{echo.line(str(first.get('msg', '')), 120)})"
    if isinstance(exc, RuntimeError) and str(exc).startswith(_SCHEMA_REFUSALS):
        return f"the server's result breaks the tool's own output schema: {echo.line(str(exc), 200)}"
    return None


def _problem(tool: JSON, version: str) -> str | None:
    """What the SDK would reject about one tool of a tools/list page, or None."""
    page = {"tools": [tool]}
    try:
        validate_server_result("tools/list", version, page)
        types.ListToolsResult.model_validate(page, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][2:])  # past ("tools", 0)
        return f"{where or 'the tool'}: {first['msg']}"
    except (KeyError, ValueError):
        return None  # a version or method the SDK does not check: neither do we
    return None


class _In(ReadWrapper):
    """Server -> session: each message past the checks (``_State.received``)."""

    def __init__(self, inner: Receives, state: _State) -> None:
        super().__init__(inner)
        self._inner: Receives = inner
        self._state = state

    async def receive(self) -> Frame:
        return self._state.received(await self._inner.receive())


class _Out(StreamWrapper):
    """Session -> server: refuses what cannot be sent, notes what to watch the answer of."""

    def __init__(self, inner: Sends, state: _State) -> None:
        super().__init__(inner)
        self._inner: Sends = inner
        self._state = state

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        carried = getattr(message, "params", None) if not isinstance(message, types.JSONRPCResponse) else message.result
        if carried is not None and not _encodes(carried) and (where := unsendable(carried)) is not None:
            raise UnsendableFrame(f"{where}: JSON text cannot carry it; not sent")
        self._state.sent(message)
        await self._inner.send(item)


def _encodes(value: object) -> bool:
    """True when ``value`` encodes as UTF-8 JSON: the common case, in Rust; False sends ``unsendable`` looking.

    pydantic-core's encoder refuses a lone surrogate anywhere, keys too (``surrogates not
    allowed``), in half the instructions of the json module's; what it refuses for another
    reason (a value no JSON carries) is looked at too, and ``unsendable`` alone decides.
    """
    try:
        pydantic_core.to_json(value)
    except (TypeError, ValueError):  # PydanticSerializationError is a ValueError
        return False
    return True
