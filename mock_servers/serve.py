"""Serve one catalog ``ServerDef`` as a real MCP server over stdio, SSE or Streamable HTTP.

    python -m mock_servers.serve docs --transport stdio|sse|http [--port N] [fault flags]
    python -m mock_servers.docs --transport http          (same thing, one module per server)

From s23 on, the lessons talk to these processes instead of the in-process catalog. The
tool list is exactly ``ToolDef.listing()`` (the low-level SDK server adds nothing), the
server's name and version come from the ``ServerDef``, and a handler's ``ValueError``
becomes a tool result with ``isError: true`` and the message as its text, never a
JSON-RPC error. Nothing the server sends depends on the clock; the only random values are
the session ids the SDK hands out, which clients renumber or ignore.

Transports:
    stdio   JSON-RPC lines on stdin/stdout.
    sse     the 2024-11-05 HTTP+SSE transport: GET /sse, POST /messages/?session_id=...
    http    Streamable HTTP on /mcp, stateful (Mcp-Session-Id) for handshake-era clients.
    Both HTTP transports bind 127.0.0.1 only and, once listening, print exactly one line to
    stdout, ``READY <url>``, then nothing else.

Fault switches, for the lessons and tests about servers that misbehave:
    --crash-after N           the (N+1)th tools/call is never answered: the process exits with code 3
    --hang-on TOOL            calls of TOOL are never answered (the handler waits forever)
    --noisy-stderr            chatter on stderr at start and on every call
    --exit-at-start CODE      one line on stderr, then exit CODE before serving anything
    --malformed-stdout        stdio: a non-JSON line on stdout just before the first call's answer
    --slow-start SECONDS      wait that long before serving (before READY on HTTP)
    --forget-sessions-after N http: after N tools/call requests every session is ended, as if
                              its client had sent DELETE, so the next request with an old
                              Mcp-Session-Id gets HTTP 404 "Session not found"
    --ignore-eof              stdio: keep running after end of input, as a server that never
                              notices its client left; only a signal stops it

Era switch (s34). Without it a server speaks both eras, as every SDK server does: the
client's first request decides (``initialize``: the handshake era; a request with the
2026-07-28 ``_meta`` envelope, ``server/discover``: 2026-07-28).
    --era 2026-07-28          speak only 2026-07-28: ``initialize`` is refused with -32022
                              (unsupported protocol version) naming the one version served,
                              as a server middleware does it in the SDK
    --era 2025-11-25          speak only the handshake era, as servers written before 2026
                              do: ``server/discover`` is an unknown method (-32601)

Caching hints (s34), for a client's response cache; a 2026-07-28 answer carries them, and the
SDK leaves them out of a handshake-era one:
    --cache-ttl MS            ``ttlMs`` on every list (tools, resources, templates, prompts) and
                              every resources/read: how long a client may reuse the answer
                              (default: none set, which the SDK sends as ``ttlMs: 0``, do not reuse)
    --cache-scope SCOPE       ``cacheScope`` with them: ``private`` (the default: this client only)
                              or ``public`` (any client may be served it)
    --tasks ...               2026-07-28: long tools answer with a task handle (``mock_servers.tasks``)
    --ask-first               2026-07-28: ``resources/read`` and ``prompts/get`` first answer with an
                              input-required result, a form asking who reads; answered, the page or
                              prompt comes back, for that reader

Resources, templates, prompts, completion and log messages are served for a catalog
server that defines them (handbook, s30), with listChanged declared when its lists can
change; in 2026-07-28 those changes go to the client's ``subscriptions/listen`` stream
instead of being sent as notifications. Not handled: auth, pagination (the catalog servers have a handful of tools), and
the modern 2026-07-28 era has no sessions, so there is nothing to forget there.

Imports are deferred so a server starts fast: argument errors and ``--exit-at-start`` cost
no SDK import, and stdio never imports uvicorn.
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import sys
import time
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, NoReturn

from mock_servers import tasks
from mock_servers.catalog import SERVERS, ServerDef

HOST = "127.0.0.1"
CRASH_EXIT_CODE = 3
MALFORMED_LINE = "this line is not JSON-RPC"


@dataclass(frozen=True)
class Options:
    transport: str
    port: int = 0
    crash_after: int | None = None
    hang_on: str | None = None
    noisy_stderr: bool = False
    exit_at_start: int | None = None
    malformed_stdout: bool = False
    slow_start: float = 0.0
    forget_sessions_after: int | None = None
    ignore_eof: bool = False
    era: str | None = None  # "2026-07-28": that era only; None: both
    cache_ttl: int | None = None  # ttlMs on the cacheable answers; None: the SDK's default (0)
    cache_scope: str = "private"
    ask_first: bool = False  # reads and prompts answer input-required first (2026-07-28)
    tasks: Any = None  # mock_servers.tasks.Settings: long tools run as tasks (--tasks), else None


MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
CACHED = ("tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read")  # what --cache-ttl hints


class Counters:
    """What one server process has seen so far; owned by that process's one server."""

    def __init__(self) -> None:
        self.calls = 0
        self.forget_pending = False
        self.malformed_pending = False
        self.listeners = Listeners()  # the 2026-07-28 listen streams open now

    def listening(self) -> Listeners:
        return self.listeners


class Listeners:
    """The 2026-07-28 ``subscriptions/listen`` streams open on this server, as the request handler serves them.

    Like the SDK's ``ListenHandler`` (the acknowledgment first, each event stamped with the
    stream's id, only the kinds asked for), except that the task that publishes a change
    writes it, so a call's changes go out before its answer on every run (the SDK's handler
    writes from the listen stream's own task, whenever that task next runs).
    """

    def __init__(self) -> None:
        self._open: dict[Any, tuple[Any, Any, dict[str, Any]]] = {}

    async def __call__(self, ctx: Any, params: Any) -> Any:
        import anyio
        import mcp_types as types
        from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY

        asked = params.notifications
        honored = types.SubscriptionFilter(tools_list_changed=asked.tools_list_changed, prompts_list_changed=asked.prompts_list_changed,
                                           resources_list_changed=asked.resources_list_changed)  # no per-resource updates here
        meta = {SUBSCRIPTION_ID_META_KEY: ctx.request_id}
        await ctx.session.send_notification(types.SubscriptionsAcknowledgedNotification(
            params=types.SubscriptionsAcknowledgedNotificationParams(notifications=honored, _meta=meta)), related_request_id=ctx.request_id)
        self._open[ctx.request_id] = (ctx.session, honored, meta)
        try:
            await anyio.sleep_forever()  # the stream ends when the client ends the request
        finally:
            self._open.pop(ctx.request_id, None)

    async def publish(self, event: Any) -> None:
        from mcp.shared.subscriptions import event_matches, event_to_notification

        for listen_id, (session, honored, meta) in list(self._open.items()):
            if event_matches(honored, frozenset(), event):
                await session.send_notification(event_to_notification(event, meta), related_request_id=listen_id)


def _whole(minimum: int, maximum: int | None = None) -> Any:
    """An argparse type: a whole number in [minimum, maximum]."""
    def check(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{value}' is not a whole number") from None
        if number < minimum or (maximum is not None and number > maximum):
            span = f"from {minimum} to {maximum}" if maximum is not None else f"{minimum} or more"
            raise argparse.ArgumentTypeError(f"'{value}': must be {span}")
        return number
    return check


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a number of seconds") from None
    if not math.isfinite(number) or number < 0:
        raise argparse.ArgumentTypeError(f"'{value}': must be 0 or more seconds")
    return number


def _name(value: str) -> str:
    if not value:
        raise argparse.ArgumentTypeError("expected a tool name")
    return value


def parse(argv: list[str], name: str | None = None) -> tuple[str, Options]:
    parser = argparse.ArgumentParser(prog=f"python -m mock_servers.{name or 'serve'}", description=__doc__.splitlines()[0])
    if name is None:
        parser.add_argument("server", choices=sorted(SERVERS), help="which catalog server to serve")
    parser.add_argument("--transport", required=True, choices=("stdio", "sse", "http"))
    parser.add_argument("--port", type=_whole(0, 65535), default=0, help="TCP port for sse/http (0: the OS picks one)")
    parser.add_argument("--crash-after", type=_whole(0), metavar="N")
    parser.add_argument("--hang-on", type=_name, metavar="TOOL")
    parser.add_argument("--noisy-stderr", action="store_true")
    parser.add_argument("--exit-at-start", type=_whole(0, 255), metavar="CODE")
    parser.add_argument("--malformed-stdout", action="store_true")
    parser.add_argument("--slow-start", type=_seconds, default=0.0, metavar="SECONDS")
    parser.add_argument("--forget-sessions-after", type=_whole(1), metavar="N")
    parser.add_argument("--ignore-eof", action="store_true")
    parser.add_argument("--era", choices=(MODERN, HANDSHAKE), help="speak only this protocol era (default: both)")
    parser.add_argument("--cache-ttl", type=_whole(0), metavar="MS", help="ttlMs on every list and resources/read answer")
    parser.add_argument("--cache-scope", choices=("private", "public"), default="private", help="cacheScope with --cache-ttl")
    parser.add_argument("--ask-first", action="store_true", help="2026-07-28: reads and prompts ask who reads, first")
    tasks.options(parser)
    ns = parser.parse_args(argv)
    ns.tasks = tasks.settings(ns)
    if ns.malformed_stdout and ns.transport != "stdio":
        parser.error("--malformed-stdout needs --transport stdio (sse/http print only the READY line)")
    if ns.forget_sessions_after is not None and ns.transport != "http":
        parser.error("--forget-sessions-after needs --transport http (only Streamable HTTP has sessions)")
    if ns.ignore_eof and ns.transport != "stdio":
        parser.error("--ignore-eof needs --transport stdio (only stdio has an end of input)")
    if ns.cache_scope != "private" and ns.cache_ttl is None:
        parser.error("--cache-scope needs --cache-ttl (a scope says who may reuse an answer, the TTL for how long)")
    fields = {k: v for k, v in vars(ns).items() if k != "server"}
    return (name or ns.server), Options(**fields)


def _say(definition: ServerDef, text: str) -> None:
    print(f"{definition.name}: {text}", file=sys.stderr, flush=True)


def build_server(definition: ServerDef, options: Options, counters: Counters) -> Any:
    """The low-level SDK server for ``definition``, with the fault switches wired in."""
    import warnings

    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server  # not mcp.server: its __init__ imports MCPServer (harness.sdk_half)

    runner = tasks.Runner(options.tasks) if options.tasks is not None else None
    fixed = types.ListToolsResult(tools=[types.Tool.model_validate(t.listing()) for t in definition.tools])

    def result(text: str, is_error: bool = False) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if definition.more_tools is None:
            return fixed
        return types.ListToolsResult(tools=[types.Tool.model_validate(t.listing()) for t in definition.current_tools()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        counters.calls += 1
        if options.crash_after is not None and counters.calls > options.crash_after:
            _say(definition, f"crashing on call {counters.calls} (--crash-after {options.crash_after})")
            os._exit(CRASH_EXIT_CODE)  # abrupt on purpose: no goodbye frame, like a real crash
        if options.noisy_stderr:
            _say(definition, f"call {counters.calls}: {params.name}")
        if options.forget_sessions_after is not None and counters.calls == options.forget_sessions_after:
            counters.forget_pending = True  # acted on when the next HTTP request arrives; see _ForgetSessions
        if counters.calls == 1 and options.malformed_stdout:
            counters.malformed_pending = True
        if params.name == options.hang_on:
            await anyio.sleep_forever()
        tool = definition.tool(params.name)
        if tool is None:
            return result(f"unknown tool '{params.name}'", is_error=True)
        if runner is not None and runner.takes(ctx, tool.name):
            return runner.start(tool.name, dict(params.arguments or {}))  # type: ignore[return-value]  # a task handle
        if (tool.execution or {}).get("taskSupport") == "required":
            _task_only(ctx, tool.name)
        try:
            value = tool.handler(dict(params.arguments or {}))
            answer = result(value) if isinstance(value, str) else types.CallToolResult.model_validate(value)
        except ValueError as exc:  # the catalog's way of rejecting input: an error result, not a protocol error
            answer = result(str(exc), is_error=True)
        await _tell(ctx, definition, counters)
        return answer

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if definition.more_tools is not None or definition.resources is not None:
        # 2026-07-28: a client that wants to hear of list changes listens (subscriptions/listen).
        handlers["on_subscriptions_listen"] = counters.listening()
    if definition.resources is not None:
        handlers.update(_resource_handlers(definition, counters, options.ask_first))
    if definition.prompts:
        handlers.update(_prompt_handlers(definition, options.ask_first))
    # Logging is deprecated as of protocol 2026-07-28 (SEP-2577) and still widely served: serve it quietly.
    warnings.filterwarnings("ignore", message="The logging capability is deprecated")
    hints = {}
    if options.cache_ttl is not None:
        from mcp.server.caching import CacheHint

        hint = CacheHint(ttl_ms=options.cache_ttl, scope=options.cache_scope)  # type: ignore[arg-type]
        hints = {method: hint for method in CACHED}
    server = Server(definition.name, version=definition.version, cache_hints=hints, **handlers)
    if runner is not None:
        runner.plug(server)
    if options.era == MODERN:
        server.middleware.append(_only_modern)
    elif options.era == HANDSHAKE:
        server.middleware.append(_only_handshake)
    if definition.more_tools is not None or definition.resources is not None:
        from mcp.server.lowlevel.server import NotificationOptions

        # This server changes its lists while it runs, and says so (listChanged in its capabilities).
        changes = NotificationOptions(tools_changed=definition.more_tools is not None,
                                      resources_changed=definition.resources is not None, prompts_changed=bool(definition.prompts))
        plain = server.create_initialization_options
        server.create_initialization_options = lambda *_, **__: plain(changes)  # type: ignore[method-assign]
    return server


RESOURCE_NOT_FOUND = -32002  # the handshake era's "resource not found" (no name for it in the SDK: retired in 2026-07-28)
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_threshold = {"level": "debug"}  # what logging/setLevel asked for (one client per process)


TASKS = "io.modelcontextprotocol/tasks"  # 2026-07-28 moved tasks out of the core protocol into this extension


def _task_only(ctx: Any, tool: str) -> None:
    """A task-only tool called the plain way in 2026-07-28: -32021, the tasks extension named as the missing capability.

    2026-07-28 drops a tool's ``execution.taskSupport`` from its listing (SEP-2663 makes tasks an
    extension that the server opts into per request), so the refusal is the only sign a client
    gets. This server runs no tasks at all, so a client that declared the extension is told the same.
    In the handshake era the listing says it; a client that calls anyway gets the handler's answer.
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    data = types.MissingRequiredClientCapabilityErrorData(required_capabilities=types.ClientCapabilities(extensions={TASKS: {}}))
    raise MCPError(code=types.MISSING_REQUIRED_CLIENT_CAPABILITY, message=f"tool '{tool}' runs only as a task (extension {TASKS})",
                   data=data.model_dump(by_alias=True, mode="json", exclude_none=True))


async def _only_modern(ctx: Any, call_next: Any) -> Any:
    """``--era 2026-07-28``: ``initialize`` refused before the runner sees it, with the versions served."""
    if ctx.method == "initialize":
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        asked = ctx.params.get("protocolVersion") if hasattr(ctx.params, "get") else None
        raise MCPError(code=types.UNSUPPORTED_PROTOCOL_VERSION, message=f"this server speaks only {MODERN}",
                       data={"supported": [MODERN], "requested": asked})
    return await call_next(ctx)


async def _only_handshake(ctx: Any, call_next: Any) -> Any:
    """``--era 2025-11-25`` over HTTP: ``server/discover`` is a method this server does not know."""
    if ctx.method == "server/discover":
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")
    return await call_next(ctx)


async def _tell(ctx: Any, definition: ServerDef, counters: Counters) -> None:
    """Send what the server queued while it handled this request: log messages and list changes, in order.

    In 2026-07-28 a list change goes to the listen streams (the bus), not to this request's client.
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    while definition.events:
        event = definition.events.pop(0)
        if event[0] == "log":
            if LEVELS.index(event[1]) < LEVELS.index(_threshold["level"]):
                continue
            await ctx.session.send_log_message(event[1], event[2], logger=definition.name)
        elif modern:
            from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

            changed = {"tools": ToolsListChanged, "resources": ResourcesListChanged}.get(event[1], PromptsListChanged)
            await counters.listening().publish(changed())
        elif event[1] == "tools":
            await ctx.session.send_tool_list_changed()
        elif event[1] == "resources":
            await ctx.session.send_resource_list_changed()
        else:
            await ctx.session.send_prompt_list_changed()


def _reader(params: Any, what: str) -> Any:
    """--ask-first: an input-required result asking who reads ``what``, or the reader the client answered with."""
    import mcp_types as types

    answer = (params.input_responses or {}).get("reader")
    if answer is None:
        form = {"type": "object", "properties": {"reader": {"type": "string", "description": "your name"}}, "required": ["reader"]}
        return types.InputRequiredResult(input_requests={"reader": types.ElicitRequest(params=types.ElicitRequestFormParams(
            message=f"Who is reading {what}?", requested_schema=form))}, request_state="ask-first")
    content = answer.content if getattr(answer, "action", "") == "accept" else None
    return str((content or {}).get("reader") or "nobody")


def _resource_handlers(definition: ServerDef, counters: Counters, ask_first: bool = False) -> dict[str, Any]:
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        found = types.ListResourcesResult(resources=[types.Resource.model_validate(r.listing()) for r in definition.resources()])  # type: ignore[misc]
        await _tell(ctx, definition, counters)
        return found

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate.model_validate(t) for t in definition.templates])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        reader = None
        if ask_first:
            reader = _reader(params, str(params.uri))
            if not isinstance(reader, str):
                return reader
        try:
            text = definition.read(str(params.uri))  # type: ignore[misc]
        except ValueError as exc:  # the spec's "resource not found": its code depends on the era
            from mcp_types.version import MODERN_PROTOCOL_VERSIONS

            # 2026-07-28 retired -32002 (SEP-2164): an unknown URI is invalid params there, the URI in the data.
            code = types.INVALID_PARAMS if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else RESOURCE_NOT_FOUND
            raise MCPError(code=code, message=str(exc), data={"uri": str(params.uri)}) from None
        if reader is not None:
            text += f"\n\n(read for {reader})"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=str(params.uri), mime_type="text/markdown", text=text)])

    async def complete(ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        values = definition.complete(params.argument.name, params.argument.value) if definition.complete else []
        return types.CompleteResult(completion=types.Completion(values=values[:100], total=len(values), has_more=len(values) > 100))

    async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        _threshold["level"] = params.level
        return types.EmptyResult()

    return {"on_list_resources": list_resources, "on_list_resource_templates": list_templates,
            "on_read_resource": read_resource, "on_completion": complete, "on_set_logging_level": set_level}


def _prompt_handlers(definition: ServerDef, ask_first: bool = False) -> dict[str, Any]:
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt.model_validate(p.listing()) for p in definition.prompts])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> Any:
        reader = None
        if ask_first:
            reader = _reader(params, f"the prompt '{params.name}'")
            if not isinstance(reader, str):
                return reader
        prompt = definition.prompt(params.name)
        if prompt is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown prompt '{params.name}'")
        arguments = dict(params.arguments or {})
        missing = [n for n, _, required in prompt.arguments if required and not arguments.get(n)]
        if missing:
            raise MCPError(code=types.INVALID_PARAMS, message=f"missing argument: {', '.join(missing)}")
        try:
            messages = prompt.render(arguments)
        except ValueError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=str(exc)) from None
        if reader is not None:
            messages = [*messages, ("user", f"(for {reader})")]
        return types.GetPromptResult(description=prompt.description, messages=[
            types.PromptMessage(role=role, content=types.TextContent(text=text)) for role, text in messages])

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}


# --- stdio -------------------------------------------------------------------------------


class _InjectingStdout:
    """The stdout the stdio transport writes frames to; puts the malformed line before one frame.

    Writing the bad line through the transport's own writer (instead of from the handler)
    keeps it from ever landing in the middle of a frame.
    """

    def __init__(self, inner: Any, counters: Counters) -> None:
        self._inner, self._counters = inner, counters

    async def write(self, text: str) -> None:
        if self._counters.malformed_pending:
            self._counters.malformed_pending = False
            await self._inner.write(MALFORMED_LINE + "\n")
        await self._inner.write(text)

    async def flush(self) -> None:
        await self._inner.flush()


async def _run_stdio(server: Any, options: Options, counters: Counters) -> None:
    from mcp.server.stdio import stdio_server

    stdout = None
    if options.malformed_stdout:
        import io

        import anyio

        # An explicit stdout skips the SDK's fd-1 diversion; fine, the catalog handlers never print.
        stdout = _InjectingStdout(anyio.wrap_file(io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")), counters)
    async with stdio_server(stdout=stdout) as (read, write):
        if options.era == HANDSHAKE:  # the handshake-only loop: the first request cannot open 2026-07-28
            from mcp.server.runner import serve_loop

            async with server.lifespan(server) as state:
                await serve_loop(server, read, write, lifespan_state=state, init_options=server.create_initialization_options())
        else:
            await server.run(read, write, server.create_initialization_options())
    if options.ignore_eof:
        import anyio

        await anyio.sleep_forever()  # the client closed our stdin; a careless server runs on


# --- sse and Streamable HTTP ----------------------------------------------------------------


class _ForgetSessions:
    """ASGI middleware for ``--forget-sessions-after``: ends every session the server handed out.

    It learns session ids from the ``Mcp-Session-Id`` response headers and, once the call
    handler has seen the Nth tools/call, ends them all at the start of the next request by
    replaying a client's DELETE for each (the SDK's public way to end a session; no private
    session-table access). Acting on the next request, not right after the Nth answer, makes
    the outcome deterministic: that request is the first to get 404.
    """

    def __init__(self, app: Any, counters: Counters, path: str) -> None:
        self._app, self._counters, self._path = app, counters, path
        self._sessions: list[str] = []

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        if self._counters.forget_pending:
            self._counters.forget_pending = False
            await self._forget_all(scope)

        async def remember(message: dict) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", ()):
                    if key.lower() == b"mcp-session-id" and value.decode() not in self._sessions:
                        self._sessions.append(value.decode())
            await send(message)

        await self._app(scope, receive, remember)

    async def _forget_all(self, like: dict) -> None:
        host = [(k, v) for k, v in like["headers"] if k == b"host"]
        sessions, self._sessions = self._sessions, []
        for session_id in sessions:
            scope = {**like, "method": "DELETE", "path": self._path, "raw_path": self._path.encode(), "query_string": b"",
                     "headers": [*host, (b"mcp-session-id", session_id.encode())]}

            async def receive() -> dict:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def discard(message: dict) -> None:
                pass

            await self._app(scope, receive, discard)


class _SSEEndpoint:
    """GET /sse as a plain ASGI app: one legacy SSE connection per request."""

    def __init__(self, server: Any, transport: Any) -> None:
        self._server, self._transport = server, transport

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        async with self._transport.connect_sse(scope, receive, send) as (read, write):
            await self._server.run(read, write, self._server.create_initialization_options())


def bind_loopback(port: int = 0) -> socket.socket:
    """A TCP socket bound to 127.0.0.1, so the real port is known before serving."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on accepted sockets whose proto says TCP;
    # with proto 0 every small SSE write waits out a delayed ACK (~40 ms per call).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    return sock


def _http_app(server: Any, options: Options, counters: Counters) -> tuple[Any, str]:
    from mcp.server.transport_security import TransportSecuritySettings

    # What the SDK enables by itself for a 127.0.0.1 host: DNS-rebinding protection.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"])
    if options.transport == "http":
        # No idle timeout: a session ends when the client deletes it, or by --forget-sessions-after.
        app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=security, session_idle_timeout=None)
        return _ForgetSessions(app, counters, "/mcp"), "/mcp"
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    transport = SseServerTransport("/messages/", security_settings=security)
    routes = [Route("/sse", endpoint=_SSEEndpoint(server, transport), methods=["GET"]),
              Mount("/messages/", app=transport.handle_post_message)]
    return Starlette(routes=routes), "/sse"


def _run_http(server: Any, options: Options, counters: Counters) -> None:
    import uvicorn
    from sse_starlette.sse import EventSourceResponse

    # The SSE keep-alive comment carries the wall-clock time; loopback needs no keep-alive.
    EventSourceResponse.DEFAULT_PING_INTERVAL = 0
    app, path = _http_app(server, options, counters)
    sock = bind_loopback(options.port)  # port 0: the OS picks a free one, reported in the READY line
    url = f"http://{HOST}:{sock.getsockname()[1]}{path}"

    class ReadyServer(uvicorn.Server):
        async def startup(self, sockets: list | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:  # listening, and the app's lifespan (the session manager) is running
                print(f"READY {url}", flush=True)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            server_header=False, date_header=False,  # no clock in any response
                            timeout_graceful_shutdown=1)  # open SSE streams must not stall a SIGTERM
    ReadyServer(config).run(sockets=[sock])


def main(argv: list[str] | None = None, name: str | None = None) -> int:
    server_name, options = parse(sys.argv[1:] if argv is None else argv, name)
    return run_server(SERVERS[server_name](), options)


def run_server(definition: ServerDef, options: Options, plug: Callable[[Any], None] | None = None) -> int:
    """Serve ``definition`` as ``options`` say, until the client leaves; ``plug`` sees the built server first (a module
    of its own adds handlers the catalog's shape has no room for, as ``mock_servers.skills`` does). The exit code."""
    if options.exit_at_start is not None:
        _say(definition, f"exiting at start with code {options.exit_at_start} (--exit-at-start)")
        return options.exit_at_start
    if options.noisy_stderr:
        _say(definition, f"starting {definition.name} {definition.version} over {options.transport}")
    if options.slow_start:
        time.sleep(options.slow_start)
    counters = Counters()
    server = build_server(definition, options, counters)
    if plug is not None:
        plug(server)
    if options.transport == "stdio":
        import anyio

        anyio.run(_run_stdio, server, options, counters)
    else:
        _run_http(server, options, counters)
    return 0


def server_side_sdk() -> None:
    """Let this server process import the server half of the SDK only (``harness.sdk_half``): call before anything imports ``mcp``."""
    from harness import sdk_half

    sdk_half.load_only("server")


def run(name: str | None = None) -> NoReturn:
    """A server module's ``__main__``: ``main`` with the server half of the SDK only, then out at once.

    ``harness.exits.exit_now`` skips the interpreter's teardown (a quarter of a second of
    CPU after the SDK's imports, paid by every server a lesson or test spawns): by then the
    transport's frames are written and flushed, and the mock servers open no file and start
    no process.
    """
    from harness.exits import exit_now

    server_side_sdk()
    exit_now(main(name=name))


if __name__ == "__main__":
    run()
