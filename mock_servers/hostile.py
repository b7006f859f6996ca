"""A misbehaving MCP server, one switch per misbehaviour: what the harness must survive.

    python -m mock_servers.hostile --transport stdio|sse|http [--port N] [switches]

It speaks JSON-RPC by hand, not through the SDK, because an SDK server cannot send what
it must (a tool with no ``inputSchema``, a cursor that never ends, a frame with no end).
With no switch it is a well-behaved server named ``hostile`` with one tool, ``echo``
(``{"text": ...}`` -> ``echo: <text>``). Nothing it sends depends on the clock; session
ids count up from ``hostile-session-1``.

Switches (each names the part of issue 8 it plays):
    --endless-cursor          tools/list: every page one more tool and a new nextCursor, forever  (7)
    --repeat-cursor           tools/list: every page's nextCursor is "again"                      (7)
    --page-delay SECONDS      tools/list: wait this long before each page                          (7)
    --many-tools N            tools/list: N more tools (tool_0001, ...) beside echo                (8)
    --long-description N      tools/list: echo's description is N characters long                  (8)
    --huge-answer BYTES       echo answers with one frame of about BYTES bytes                      (8)
    --endless-answer          echo's answer is a frame that never ends: a stdio line with no
                              newline, an HTTP body, an SSE event                                   (8)
    --malformed-tools         tools/list: beside echo, tools with no inputSchema, a string for
                              one, and an array schema                                              (11)
    --lone-surrogate          echo's answer holds a lone surrogate escape ("\\ud800"): valid JSON
                              to Python, not to the SDK's parser                                    (9)
    --forget-sessions-after N http: after N tools/call requests every session is forgotten          (13)
    --lost-session-status S   http: a forgotten session gets 404 (the spec) or 400 with the body
                              the reference server-everything sends; default 400. A session its
                              client ended with DELETE always gets the spec's 404               (13)
    --http-error STATUS       http, sse: tools/call is answered with HTTP STATUS and a text body     (13)
    --drop-stream-on-call     sse: a tools/call ends the event stream instead of being answered     (14)
    --no-endpoint             sse: the event stream opens but never names the POST endpoint         (14)
    --gzip-bomb BYTES         http: echo's answer is one JSON frame of about BYTES bytes, sent
                              gzip-compressed (Content-Encoding: gzip): about 1000 times smaller
                              on the wire than decoded                                   (issue 18: 5)
    --deep-answer N           echo's answer nests N arrays deep, its id first: past every parser's
                              recursion limit                                              (issue 18: 3)
    --bad-structured KIND     echo has an outputSchema its result breaks: mismatch (a string for a
                              number), invalid (the schema itself is not valid), dangling (a $ref
                              to nothing)                                                  (issue 18: 1)
    --error-code CODE         echo is answered with a JSON-RPC error CODE of its own (-32000: what
                              servers send for "server error")                             (issue 18: 2)
    --nasty-text              echo's description, and the message of --error-code, hold a screen
                              clear, a newline with a forged "error:" line, and 100 KB more  (issue 18: 8)
    --resources-without-templates
                              declares resources; resources/list answers, templates/list is
                              -32601                                                       (issue 18: 4)
    --huge-resource BYTES     declares resources; resources/read answers one blob of BYTES (issue 18: 10)
    --burst N                 stdio: right after answering initialize, N log notifications in one
                              go, and tools/list never answered                             (issue 18: 9)
    --bad-utf8                echo's answer holds a byte that is not UTF-8 (0xFF) in its text  (issue 36: 18)
    --flood BYTES             stdio: right after the first tools/call answer, about BYTES of lines in
                              one go (--flood-kind: log notifications, or empty lines)     (issue 36: 1)
    --flood-kind KIND         log (default) or blank                                       (issue 36: 1)
    --setsid-child PIDFILE    stdio: at start, a helper in a session of its own that ignores end of
                              input and SIGHUP and sleeps; its pid is written to PIDFILE     (issue 18: 15)

Over sse and http it binds 127.0.0.1 only and prints one line, ``READY <url>``, once it
listens (``mock_servers.launch.serve_http(..., module="mock_servers.hostile")`` starts it
that way). Whatever the switches, it refuses a request whose Host is not 127.0.0.1 or
localhost (421) or whose Origin is a foreign page (403), as the SDK's servers do against DNS
rebinding. Imports nothing from the harness.

Not handled: resources, prompts, notifications from the server, batches, the GET stream of
Streamable HTTP (answered 405, which the spec allows).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

HOST = "127.0.0.1"
CHUNK = 64 * 1024  # bytes per write of a huge or endless frame
# What server-everything answers to a request with a session id it does not know (HTTP 400).
NO_VALID_SESSION = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}
HTTP_ERROR_BODY = "boom: the tool backend is down"
ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
NASTY = "boom\x1b[2J\nerror: forged line" + "x" * 100_000  # --nasty-text
OUTPUT_SCHEMAS = {  # --bad-structured: the schema echo declares for its result
    "mismatch": {"type": "object", "properties": {"count": {"type": "number"}}, "required": ["count"]},
    "invalid": {"type": "object", "properties": {"count": {"type": "no-such-type"}}},
    "dangling": {"type": "object", "properties": {"count": {"$ref": "#/$defs/missing"}}},
}
MALFORMED = [
    {"name": "no_schema", "description": "A tool with no inputSchema."},
    {"name": "string_schema", "description": "A tool whose inputSchema is a string.", "inputSchema": "not a schema"},
    {"name": "array_schema", "description": "A tool whose inputSchema is not an object schema.", "inputSchema": {"type": "array"}},
]


@dataclass(frozen=True)
class Options:
    transport: str
    port: int = 0
    endless_cursor: bool = False
    repeat_cursor: bool = False
    page_delay: float = 0.0
    many_tools: int = 0
    long_description: int = 0
    huge_answer: int = 0
    endless_answer: bool = False
    malformed_tools: bool = False
    lone_surrogate: bool = False
    forget_sessions_after: int | None = None
    lost_session_status: int = 400
    http_error: int | None = None
    drop_stream_on_call: bool = False
    no_endpoint: bool = False
    setsid_child: str | None = None
    gzip_bomb: int = 0
    deep_answer: int = 0
    bad_structured: str | None = None
    error_code: int | None = None
    nasty_text: bool = False
    resources_without_templates: bool = False
    huge_resource: int = 0
    burst: int = 0
    flood: int = 0
    bad_utf8: bool = False
    flood_kind: str = "log"


@dataclass(frozen=True)
class Huge:
    """An answer to stream as one frame: ``size`` bytes of text, or no end at all (``size`` 0)."""

    id: Any
    size: int
    field: str = "text"  # "blob": a resources/read answer (base64 letters), else a tools/call text

    def head(self) -> bytes:
        start = json.dumps({"jsonrpc": "2.0", "id": self.id}).encode()[:-1]
        if self.field == "blob":
            return start + b', "result": {"contents": [{"uri": "hostile://blob", "mimeType": "application/octet-stream", "blob": "'
        return start + b', "result": {"content": [{"type": "text", "text": "'

    def tail(self) -> bytes:
        return b'"}]}}'


class Server:
    """The protocol, whatever carries it: one JSON-RPC message in, at most one answer out."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.calls = 0

    def handle(self, message: Any) -> dict[str, Any] | Huge | Deep | None:
        if not isinstance(message, dict) or "method" not in message:
            return None  # an answer, or junk: nothing to say
        method, key = message["method"], message.get("id")
        if key is None:
            return None  # a notification
        params = message.get("params") or {}
        o = self.options
        if method == "initialize":
            version = params.get("protocolVersion") or "2025-06-18"
            capabilities: dict[str, Any] = {"tools": {"listChanged": False}}
            if o.resources_without_templates or o.huge_resource:
                capabilities["resources"] = {}
            return _result(key, {"protocolVersion": version, "capabilities": capabilities,
                                 "serverInfo": {"name": "hostile", "version": "0.1.0"}})
        if method == "resources/list" and (o.resources_without_templates or o.huge_resource):
            return _result(key, {"resources": [{"uri": "hostile://blob", "name": "blob"}]})
        if method == "resources/templates/list" and o.huge_resource:
            return _result(key, {"resourceTemplates": []})
        if method == "resources/read" and o.huge_resource:
            return Huge(key, o.huge_resource, field="blob")
        if method == "ping":
            return _result(key, {})
        if method == "tools/list":
            return _result(key, self._page(params.get("cursor")))
        if method == "tools/call":
            self.calls += 1
            return self._call(key, params)
        return {"jsonrpc": "2.0", "id": key, "error": {"code": -32601, "message": f"Method not found: {method}"}}

    def _page(self, cursor: Any) -> dict[str, Any]:
        o = self.options
        if o.page_delay:
            time.sleep(o.page_delay)
        echo = {"name": "echo", "description": "Echo the text back." if not o.long_description else "Echo. " + "x" * (o.long_description - 6),
                "inputSchema": ECHO_SCHEMA}
        if o.endless_cursor:
            number = int(cursor.rpartition("-")[2]) if isinstance(cursor, str) and cursor.startswith("page-") else 0
            tools = [echo] if number == 0 else [{"name": f"tool_{number:04d}", "description": "One more.", "inputSchema": {"type": "object"}}]
            return {"tools": tools, "nextCursor": f"page-{number + 1}"}
        if o.repeat_cursor:
            return {"tools": [echo] if cursor is None else [], "nextCursor": "again"}
        if o.nasty_text:
            echo["description"] = NASTY
        if o.bad_structured:
            echo["outputSchema"] = OUTPUT_SCHEMAS[o.bad_structured]
        tools = [echo, *(MALFORMED if o.malformed_tools else [])]
        tools += [{"name": f"tool_{n:04d}", "description": f"Tool number {n}.", "inputSchema": {"type": "object"}} for n in range(1, o.many_tools + 1)]
        return {"tools": tools}

    def _call(self, key: Any, params: dict[str, Any]) -> dict[str, Any] | Huge | Deep:
        o = self.options
        if params.get("name") != "echo":
            return _result(key, {"content": [{"type": "text", "text": f"unknown tool {params.get('name')!r}"}], "isError": True})
        if o.endless_answer:
            return Huge(key, 0)
        if o.huge_answer:
            return Huge(key, o.huge_answer)
        if o.deep_answer:
            return Deep(key, o.deep_answer)
        if o.error_code is not None:
            message = NASTY if o.nasty_text else "server error: the backend is down"
            return {"jsonrpc": "2.0", "id": key, "error": {"code": o.error_code, "message": message}}
        if o.bad_structured:
            structured = {"count": "three"} if o.bad_structured == "mismatch" else {"count": 3}
            return _result(key, {"content": [{"type": "text", "text": "echo"}], "structuredContent": structured})
        text = (params.get("arguments") or {}).get("text")
        if o.lone_surrogate:
            text = f"{text} \ud800"  # sent as the escape \ud800 (see _frame)
        return _result(key, {"content": [{"type": "text", "text": f"echo: {text}"}]})


@dataclass(frozen=True)
class Deep:
    """An answer nested ``levels`` arrays deep, written by hand (json.dumps itself would give up)."""

    id: Any
    levels: int

    def frame(self) -> bytes:
        return (f'{{"jsonrpc": "2.0", "id": {json.dumps(self.id)}, "result": {{"content": [], "deep": '.encode()
                + b"[" * self.levels + b"]" * self.levels + b"}}")


def _result(key: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": key, "result": result}


def _frame(answer: dict[str, Any]) -> bytes:
    try:
        return json.dumps(answer, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate (--lone-surrogate): only its escape can be sent
        return json.dumps(answer).encode()


# --- stdio -----------------------------------------------------------------------------


def run_stdio(server: Server) -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        answer = server.handle(message)
        if server.options.burst and isinstance(message, dict) and message.get("method") == "tools/list":
            continue  # never answered: the client's list timeout ends it
        if server.options.burst and isinstance(message, dict) and message.get("method") == "initialize":
            out.write(_frame(answer) + b"\n")
            note = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "burst"}}\n'
            out.write(note * server.options.burst)
            out.flush()
            continue
        if server.options.flood and server.calls == 1 and isinstance(message, dict) and message.get("method") == "tools/call":
            out.write(_frame(answer) + b"\n")
            out.flush()
            _flood(out, server.options.flood, server.options.flood_kind)
            continue
        if isinstance(answer, Huge):
            out.write(answer.head())
            if answer.size:
                out.write(b"x" * answer.size + answer.tail() + b"\n")
            else:
                while True:  # no newline, ever: until the client stops us
                    out.write(b"x" * CHUNK)
                    out.flush()
        elif isinstance(answer, Deep):
            out.write(answer.frame() + b"\n")
        elif answer is not None:
            frame = _frame(answer)
            if server.options.bad_utf8 and isinstance(message, dict) and message.get("method") == "tools/call":
                frame = frame.replace(b"echo: ", b"echo: \xff", 1)
            out.write(frame + b"\n")
        out.flush()


FLOOD_LINE = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "flood %06d"}}\n'


def _flood(out: Any, size: int, kind: str) -> None:
    """About ``size`` bytes of lines, written as fast as the pipe takes them: log notifications, or empty lines."""
    if kind == "blank":
        out.write(b"\n" * size)
    else:
        lines = max(1, size // len(FLOOD_LINE % 0))
        out.write(b"".join(FLOOD_LINE % n for n in range(lines)))
    out.flush()


# --- sse and Streamable HTTP ------------------------------------------------------------


class App:
    """A bare ASGI app: Streamable HTTP on /mcp, or the legacy SSE pair /sse and /messages/."""

    def __init__(self, server: Server) -> None:
        import anyio

        self.server, self.options = server, server.options
        self.sessions: dict[str, Any] = {}  # session id -> (http) True, or (sse) the send stream of its event stream
        self.ended: set[str] = set()  # http: sessions their client ended with DELETE
        self.count = 0
        self.forgotten = False
        self._anyio = anyio

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        refusal = _foreign(scope)
        if refusal is not None:
            await _plain(send, *refusal)
        elif self.options.transport == "http" and path == "/mcp":
            await self._mcp(scope, receive, send, method)
        elif self.options.transport == "sse" and path == "/sse" and method == "GET":
            await self._events(receive, send)
        elif self.options.transport == "sse" and path.rstrip("/") == "/messages" and method == "POST":
            await self._message(scope, receive, send)
        else:
            await _plain(send, 404, "not found")

    # Streamable HTTP

    async def _mcp(self, scope: dict, receive: Any, send: Any, method: str) -> None:
        sent = _header(scope, b"mcp-session-id")
        if method == "DELETE":
            if self.sessions.pop(sent or "", None):
                self.ended.add(sent or "")
            return await _plain(send, 200, "")
        if method != "POST":
            return await _plain(send, 405, "no GET stream here")
        message = json.loads(await _body(receive) or b"null")
        if isinstance(message, dict) and message.get("method") == "initialize":
            self.count += 1
            session = f"hostile-session-{self.count}"
            self.sessions[session] = True
            return await _json(send, 200, self.server.handle(message), [(b"mcp-session-id", session.encode())])
        if sent not in self.sessions:
            if self.options.lost_session_status == 404 or sent in self.ended:  # the spec's answer to an ended session
                return await _json(send, 404, {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32001, "message": "Session not found"}})
            return await _json(send, 400, NO_VALID_SESSION)
        if isinstance(message, dict) and message.get("method") == "tools/call":
            if self.options.http_error is not None:
                return await _plain(send, self.options.http_error, HTTP_ERROR_BODY)
            if self.options.forget_sessions_after is not None and self.server.calls >= self.options.forget_sessions_after and not self.forgotten:
                self.forgotten = True  # once: the session made after this one is kept
                self.sessions.clear()  # as if the server restarted: this request's session is unknown now
                return await self._mcp(scope, _replay(message), send, method)
        answer = self.server.handle(message)
        if answer is None:
            return await _plain(send, 202, "")
        if isinstance(answer, Huge):
            return await self._stream(receive, send, answer)
        if isinstance(answer, Deep):
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
            return await send({"type": "http.response.body", "body": answer.frame()})
        if self.options.gzip_bomb and isinstance(message, dict) and message.get("method") == "tools/call":
            return await self._bomb(send, Huge(message.get("id"), self.options.gzip_bomb))
        await _json(send, 200, answer)

    # legacy SSE

    async def _events(self, receive: Any, send: Any) -> None:
        anyio = self._anyio
        self.count += 1
        session = f"hostile-session-{self.count}"
        outbox, inbox = anyio.create_memory_object_stream[Any](16)
        self.sessions[session] = outbox
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]})
        if not self.options.no_endpoint:
            await send({"type": "http.response.body", "body": f"event: endpoint\ndata: /messages/?session_id={session}\n\n".encode(), "more_body": True})
        async with anyio.create_task_group() as tg:

            async def until_gone() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tg.cancel_scope.cancel()

            tg.start_soon(until_gone)
            async for answer in inbox:
                if answer == "drop":
                    break
                if isinstance(answer, Huge):
                    await self._write_huge(send, answer, b"event: message\ndata: ", b"\n\n")
                    continue
                await send({"type": "http.response.body", "body": b"event: message\ndata: " + _frame(answer) + b"\n\n", "more_body": True})
            tg.cancel_scope.cancel()
        self.sessions.pop(session, None)
        await send({"type": "http.response.body", "body": b"", "more_body": False})  # the stream ends here

    async def _message(self, scope: dict, receive: Any, send: Any) -> None:
        session = (parse_qs(scope.get("query_string", b"").decode()).get("session_id") or [""])[0]
        outbox = self.sessions.get(session)
        message = json.loads(await _body(receive) or b"null")
        if outbox is None:
            return await _plain(send, 404, "Could not find session")
        if isinstance(message, dict) and message.get("method") == "tools/call":
            if self.options.http_error is not None:
                return await _plain(send, self.options.http_error, HTTP_ERROR_BODY)
            if self.options.drop_stream_on_call:
                await _plain(send, 202, "Accepted")
                return await outbox.send("drop")
        await _plain(send, 202, "Accepted")
        answer = self.server.handle(message)
        if answer is not None:
            await outbox.send(answer)

    # frames that are huge, or never end

    async def _stream(self, receive: Any, send: Any, answer: Huge) -> None:
        anyio = self._anyio
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        async with anyio.create_task_group() as tg:

            async def until_gone() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tg.cancel_scope.cancel()

            tg.start_soon(until_gone)
            await self._write_huge(send, answer)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            tg.cancel_scope.cancel()

    async def _bomb(self, send: Any, answer: Huge) -> None:
        """A huge frame, gzip-compressed as it is written: what arrives is a thousandth of what it decodes to."""
        import zlib

        packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")]})
        left, parts = answer.size, [answer.head()]
        while True:
            body = b"".join(packer.compress(part) for part in parts)
            if left <= 0:
                await send({"type": "http.response.body", "body": body + packer.compress(answer.tail()) + packer.flush(), "more_body": False})
                return
            await send({"type": "http.response.body", "body": body, "more_body": True})
            piece = min(16 * CHUNK, left)
            left -= piece
            parts = [b"x" * piece]

    async def _write_huge(self, send: Any, answer: Huge, prefix: bytes = b"", suffix: bytes = b"") -> None:
        """``size`` bytes of text in one frame, in chunks; with ``size`` 0, chunks until the client leaves."""
        await send({"type": "http.response.body", "body": prefix + answer.head(), "more_body": True})
        left = answer.size
        while not answer.size or left > 0:
            piece = min(CHUNK, left) if answer.size else CHUNK
            left -= piece
            await send({"type": "http.response.body", "body": b"x" * piece, "more_body": True})
            await self._anyio.sleep(0)  # a disconnect is noticed between two chunks
        await send({"type": "http.response.body", "body": answer.tail() + suffix, "more_body": True})


def _replay(message: dict[str, Any]) -> Any:
    body = json.dumps(message).encode()

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


# DNS rebinding: a page on another site that resolves its own name to 127.0.0.1 reaches this
# port with its own Host (and, from a script, its own Origin). The SDK's servers refuse both
# (421 for the Host, 403 for the Origin) before any MCP message is read; so does this one.
LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def _foreign(scope: dict) -> tuple[int, str] | None:
    """The refusal (status, text) for a request whose Host or Origin is not this loopback server, or None."""
    host = _header(scope, b"host") or ""
    if host.rpartition(":")[0] not in LOOPBACK_NAMES:
        return 421, "Invalid Host header"
    origin = _header(scope, b"origin")
    if origin is not None and origin.removeprefix("http://").rpartition(":")[0] not in LOOPBACK_NAMES:
        return 403, "Invalid Origin header"
    return None


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def _plain(send: Any, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": text.encode()})


async def _json(send: Any, status: int, answer: Any, headers: list | None = None) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), *(headers or [])]})
    await send({"type": "http.response.body", "body": _frame(answer)})


def run_http(server: Server) -> None:
    import uvicorn

    options = server.options
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, options.port))
    url = f"http://{HOST}:{sock.getsockname()[1]}{'/mcp' if options.transport == 'http' else '/sse'}"

    class ReadyServer(uvicorn.Server):
        async def startup(self, sockets: list | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"READY {url}", flush=True)

    config = uvicorn.Config(App(server), log_level="warning", access_log=False, lifespan="off",
                            server_header=False, date_header=False, timeout_graceful_shutdown=1)
    ReadyServer(config).run(sockets=[sock])


# --- command line -------------------------------------------------------------------------


def parse(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(prog="python -m mock_servers.hostile", description=__doc__.splitlines()[0])
    parser.add_argument("--transport", required=True, choices=("stdio", "sse", "http"))
    parser.add_argument("--port", type=int, default=0, help="TCP port for sse/http (0: the OS picks one)")
    parser.add_argument("--endless-cursor", action="store_true")
    parser.add_argument("--repeat-cursor", action="store_true")
    parser.add_argument("--page-delay", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--many-tools", type=int, default=0, metavar="N")
    parser.add_argument("--long-description", type=int, default=0, metavar="N")
    parser.add_argument("--huge-answer", type=int, default=0, metavar="BYTES")
    parser.add_argument("--endless-answer", action="store_true")
    parser.add_argument("--malformed-tools", action="store_true")
    parser.add_argument("--lone-surrogate", action="store_true")
    parser.add_argument("--forget-sessions-after", type=int, metavar="N")
    parser.add_argument("--lost-session-status", type=int, choices=(400, 404), default=400)
    parser.add_argument("--http-error", type=int, metavar="STATUS")
    parser.add_argument("--drop-stream-on-call", action="store_true")
    parser.add_argument("--no-endpoint", action="store_true")
    parser.add_argument("--setsid-child", metavar="PIDFILE")
    parser.add_argument("--gzip-bomb", type=int, default=0, metavar="BYTES")
    parser.add_argument("--deep-answer", type=int, default=0, metavar="N")
    parser.add_argument("--bad-structured", choices=("mismatch", "invalid", "dangling"))
    parser.add_argument("--error-code", type=int, metavar="CODE")
    parser.add_argument("--nasty-text", action="store_true")
    parser.add_argument("--resources-without-templates", action="store_true")
    parser.add_argument("--huge-resource", type=int, default=0, metavar="BYTES")
    parser.add_argument("--burst", type=int, default=0, metavar="N")
    parser.add_argument("--bad-utf8", action="store_true")
    parser.add_argument("--flood", type=int, default=0, metavar="BYTES")
    parser.add_argument("--flood-kind", choices=("log", "blank"), default="log")
    ns = parser.parse_args(argv)
    only = {"forget_sessions_after": ("http",), "http_error": ("http", "sse"), "drop_stream_on_call": ("sse",), "no_endpoint": ("sse",),
            "setsid_child": ("stdio",), "burst": ("stdio",), "flood": ("stdio",), "bad_utf8": ("stdio",), "gzip_bomb": ("http",)}
    for name, transports in only.items():
        if getattr(ns, name) not in (None, False) and ns.transport not in transports:
            parser.error(f"--{name.replace('_', '-')} needs --transport {' or '.join(transports)}")
    if ns.long_description and ns.long_description < 6:
        parser.error("--long-description: at least 6")
    return Options(**vars(ns))


def _escape(pidfile: str) -> None:
    """Fork a helper that leaves our process group for a session of its own, as a daemonizing tool does."""
    import os
    import signal

    left, told = os.pipe()
    pid = os.fork()
    if pid:
        os.close(told)
        os.read(left, 1)  # the helper has its own session now: only then is its pid told
        os.close(left)
        with open(pidfile, "w") as f:
            f.write(str(pid))
        return
    os.close(left)
    os.setsid()
    os.write(told, b"x")
    os.close(told)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    while True:
        time.sleep(60)


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    server = Server(options)
    if options.setsid_child:
        _escape(options.setsid_child)
    if options.transport == "stdio":
        run_stdio(server)
    else:
        run_http(server)
    return 0


if __name__ == "__main__":
    from harness.exits import exit_now

    exit_now(main())
