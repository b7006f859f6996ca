"""sse: the legacy HTTP+SSE transport (protocol 2024-11-05).

The client opens one long ``GET /sse`` event stream; the server's first event names a
POST endpoint (``/messages/?session_id=...``); every frame the client sends is a POST
there, and every answer comes back on the event stream. The session id in that endpoint
lets anyone who holds it post into the session, so it is named as a secret at once.

This is the SDK's ``sse_client`` written again here, on httpx2, because what it leaves
to chance is what a flaky server does:

- the wait for the endpoint event is bounded by ``Timeouts.connect`` (the SDK's only
  bound is its 300 s read timeout);
- a POST the server refuses (HTTP 4xx/5xx) or that cannot be sent fails that one
  request, with the status and an excerpt of the body; the SDK's writer task died on the
  first such POST, and every later frame went nowhere;
- when the event stream drops or ends, the session's stream ends with
  ``Context.fault`` = "connection lost: ...", so pending calls fail at once and say so
  (the SDK passed the exception on as if it were a bad line, and logged a traceback);
- each event is at most ``Limits.frame`` bytes; a bigger one fails the server, naming
  the limit.

Each POST is sent in the context of the task that sent the frame (as the SDK does), so
an auth flow finds the handshake's clock there (s26), and one at a time, in order.

With ``Context.trace`` set (s24's default run), the mechanism is told as it happens: the
GET and its status, the endpoint event, each POST with its status (202 Accepted), and each
message event (the answer to initialize, ...). What the stream brings while a POST is out
waits for that POST's status, so the lines come in the same order on every run.

Introduced by s24. Not handled here: reconnecting a dropped stream (the connection's
reconnect policy opens a new session instead), redirects (a 3xx is an error).
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx2
import mcp_types as types
from mcp.shared.message import SessionMessage

from harness.errors import ServerError
from harness.spec import ServerSpec, size
from harness.transports import web
from harness.transports.context import Context, Streams
from harness.wire import InvalidFrame

STREAM_READ_TIMEOUT = 300.0  # seconds between two events before the stream counts as lost (the SDK's)


@asynccontextmanager
async def open_sse(spec: ServerSpec, context: Context) -> AsyncIterator[Streams]:
    url = spec.url or ""
    timeout = httpx2.Timeout(context.timeouts.connect, read=STREAM_READ_TIMEOUT)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[tuple[contextvars.Context, SessionMessage]](0)
    endpoint: list[str] = []
    failure: list[BaseException] = []  # why there is no endpoint, if the stream says
    ready = anyio.Event()
    trace = _Trace(context.trace, context.timeouts.connect)

    def fail(why: BaseException) -> None:
        if not ready.is_set():
            failure.append(why)

    async def read_events() -> None:
        """The event stream: the endpoint, then every frame; when it ends, the session's stream ends."""
        async with to_session:
            try:
                async with http.stream("GET", url, headers={"Accept": "text/event-stream", "Cache-Control": "no-store"}) as response:
                    if response.status_code != 200:
                        body = await response.aread()
                        return fail(ServerError(f"server '{spec.name}': GET {url}: {web.shown(response.status_code, body)}"))
                    kind = response.headers.get("content-type", "").partition(";")[0].strip()
                    if kind.lower() != "text/event-stream":
                        return fail(ServerError(f"server '{spec.name}': GET {url}: expected an event stream, got '{kind[:60]}'"))
                    trace.say(f"GET {urlparse(url).path}: {response.status_code} {response.reason_phrase}, an event stream; it stays open for every answer")
                    async for event in httpx2.EventSource(response, max_event_size=context.limits.frame):
                        if event.event == "endpoint" and not endpoint:
                            if (problem := _take_endpoint(url, event.data, endpoint, context)) is not None:
                                return fail(ServerError(f"server '{spec.name}': {problem}"))
                            target = urlparse(endpoint[0])
                            trace.say(f"event 'endpoint': POST every frame to {target.path}?{target.query}")
                            ready.set()
                        elif event.event == "message" and event.data and ready.is_set():
                            message = _parse(event.data)
                            await trace.arrived(message)
                            await to_session.send(message)
                context.fault = "connection lost: the server ended the event stream"
            except httpx2.SSEError as exc:
                too_large = "exceeded" in str(exc)
                context.fault = (f"sent a frame over {size(context.limits.frame)} ({context.limits.explain('frame')})" if too_large
                                 else f"connection lost: the event stream broke ({exc})")
            except httpx2.HTTPError as exc:
                context.fault = f"connection lost: the event stream broke ({type(exc).__name__})"
                fail(exc)
            except Exception as exc:  # an auth flow's own error, before the endpoint: the connection reports it
                fail(exc)
                context.fault = f"connection lost: {type(exc).__name__}"
            finally:
                ready.set()

    async def post_each(target: str) -> None:
        """Each frame from the session, POSTed in order, in the context of the task that sent it."""
        async with from_session:
            async for sender, message in from_session:
                async with anyio.create_task_group() as one:
                    sender.run(one.start_soon, post, target, message)

    async def post(target: str, message: SessionMessage) -> None:
        body = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        trace.sending(message)
        status = None
        try:
            try:
                response = await http.post(target, json=body)
            except httpx2.HTTPError as exc:
                return await refuse(message, f"could not send it ({type(exc).__name__})")
            if response.status_code >= 300:
                return await refuse(message, web.shown(response.status_code, await response.aread()))
            status = f"{response.status_code} {response.reason_phrase}"
        finally:
            trace.posted(message, status)

    async def refuse(message: SessionMessage, why: str) -> None:
        """A request the server did not take gets its error answer now; anything else is dropped."""
        request = message.message
        if isinstance(request, types.JSONRPCRequest):
            error = types.ErrorData(code=types.INTERNAL_ERROR, message=why)
            with anyio.move_on_after(context.timeouts.connect):  # the session may be going away
                try:
                    await to_session.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error)))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass

    async with web.client(spec.headers, context, timeout) as http, anyio.create_task_group() as tg:
        tg.start_soon(read_events)
        with anyio.move_on_after(context.timeouts.connect):
            await ready.wait()
        if endpoint and not failure:
            tg.start_soon(post_each, endpoint[0])
            try:
                yield from_server, _KeepsContext(to_server)
            finally:
                tg.cancel_scope.cancel()
        tg.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if not endpoint:
        raise ServerError(f"server '{spec.name}': no endpoint event within {context.timeouts.connect:g} s "
                          f"({context.timeouts.explain('connect')})")


def _take_endpoint(url: str, data: str, endpoint: list[str], context: Context) -> str | None:
    """Keep the POST endpoint of an ``endpoint`` event; a problem with it, or None."""
    target = urljoin(url, data.strip())
    ours, theirs = urlparse(url), urlparse(target)
    if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
        return "the endpoint event names another origin; not following it"
    query = parse_qs(theirs.query)
    session_id = (query.get("sessionId") or query.get("session_id") or [""])[0]
    if session_id:
        context.label(session_id, "sse-session")
    endpoint.append(target)
    return None


def _parse(data: str) -> SessionMessage | Exception:
    # A bad frame is passed along as a value (the session skips it; the tap records it).
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(data, by_name=False))
    except ValueError:
        return InvalidFrame(data)


class _Trace:
    """s24's lines: each POST with its status, then what the event stream brought.

    While a POST is out, what the stream brings waits for its status (bounded by
    ``wait``), so the answer is told after the 202, whichever of the two came in first.
    """

    def __init__(self, say: Any, wait: float) -> None:
        self._say = say
        self._wait = wait
        self._methods: dict[Any, str] = {}  # request id -> method, until its answer comes
        self._out: anyio.Event | None = None  # set when the POST that is out has its status

    def say(self, text: str) -> None:
        if self._say is not None:
            self._say(text)

    def sending(self, message: SessionMessage) -> None:
        if self._say is None:
            return
        if isinstance(message.message, types.JSONRPCRequest):
            self._methods[message.message.id] = message.message.method
        self._out = anyio.Event()

    def posted(self, message: SessionMessage, status: str | None) -> None:
        """The POST has its status (None: refused, and the refusal says why)."""
        if self._say is None:
            return
        frame = message.message
        if status is not None:
            what = frame.method if isinstance(frame, (types.JSONRPCRequest, types.JSONRPCNotification)) else "our answer to the server's request"
            self._say(f"POST {what}: {status}")
        if self._out is not None:
            self._out.set()

    async def arrived(self, message: SessionMessage | Exception) -> None:
        if self._say is None or isinstance(message, Exception):
            return
        if self._out is not None and not self._out.is_set():
            with anyio.move_on_after(self._wait):
                await self._out.wait()
        frame = message.message
        if isinstance(frame, (types.JSONRPCResponse, types.JSONRPCError)):
            method = self._methods.pop(frame.id, "a request")
            kind = "the error answer" if isinstance(frame, types.JSONRPCError) else "the answer"
            self._say(f"event 'message': {kind} to {method}")
        elif isinstance(frame, types.JSONRPCRequest):
            self._say(f"event 'message': {frame.method}, a request from the server")
        else:
            self._say(f"event 'message': {frame.method}")


class _KeepsContext:
    """The session's write stream: each frame travels with the context of the task that sent it."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send((contextvars.copy_context(), item))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> _KeepsContext:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

