"""Real MCP connections: one seam, three transports (stdio, SSE, Streamable HTTP).

``ServerSpec`` says where a server is; ``connect`` (or ``Connections.open``) returns an
``MCPConnection``: a ``Client`` (``name``, ``tools``, ``call_tool``) whose session has
done the classic handshake (``initialize``, ``notifications/initialized``) and
``tools/list``. Above this module nothing knows which transport a server uses.

    transport  how                                       introduced by
    stdio      a child process; JSON-RPC lines on stdin/stdout; stderr to a temp file   s23
    sse        GET an event stream, POST to the endpoint it announces (legacy)          s24
    http       Streamable HTTP: POST (+ GET stream), an Mcp-Session-Id per session      s25

States: ``connecting`` -> ``connected`` -> ``closed``, or ``failed`` (kept, with its error).
One clear error per failure, each naming the server:

    spawn fails, or the server exits/hangs before tools/list    ServerError from connect/open
    the server answers a call with isError                      ToolError with the server's text
    a protocol error, or the call timeout                       ToolError naming server and tool
    the connection dies mid-call                                ToolError; state failed; exit code
                                                                and stderr tail in the message

Timeouts are named (``Timeouts``: connect, list, call, plus the two shutdown graces) and
injectable. Each connection is owned by one task (anyio enters and exits a task group in
the same task), which ``Connections`` runs for you; a connection that breaks fails alone.

stdio is spawned here, not through the SDK's ``stdio_client``, because the harness needs
the process itself: its exit code for error messages, and a shutdown it can see. The
shutdown is the spec's order, bounded at every step and shielded from cancellation, so a
Ctrl-C cannot leak a child: close stdin, wait ``exit_grace``; SIGTERM the process group,
wait ``kill_grace``; SIGKILL. The child inherits only the SDK's safe environment
(HOME, PATH, ...) plus ``spec.env``, like Cline; Claude Code passes its whole environment.

Streamable HTTP session expiry (s25): a 404 on any request that carried our
Mcp-Session-Id means the server forgot the session. The harness sees it at the HTTP
layer (an httpx2 response hook), not by matching a JSON-RPC error code, closes that
session, re-initializes, and retries the call once. The request that got 404 was never
run by the server, so retrying it cannot run a tool twice. A failed re-initialize leaves
the connection ``failed``, never ``connected``.

Introduced by s23 (stdio), extended by s24 (sse) and s25 (http sessions). Not handled
here: reconnecting a dead server (s28), auth flows (s26 passes ``auth=``), resources,
prompts and notifications (s30), non-text results (s32), Windows process trees. Over SSE,
a server that accepts the GET but never sends its endpoint event is bounded only by the
SDK's 300 s stream read timeout, not by ``Timeouts.connect``.
"""

from __future__ import annotations

import enum
import os
import shlex
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import mcp_types as types
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from harness.errors import ConfigError, ServerError, ToolError
from harness.transcript import Transcript
from harness.wire import InvalidFrame, WireTap

CLIENT_INFO = types.Implementation(name="mcp-course-harness", version="0.1.0")
STDERR_TAIL_LINES = 5
TRANSPORTS = ("stdio", "sse", "http")


@dataclass(frozen=True)
class ServerSpec:
    """Where one server is: a command to spawn (stdio) or a URL (sse, http)."""

    name: str
    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ConfigError(f"server '{self.name}': field 'transport': expected one of {', '.join(TRANSPORTS)}")
        needed = "command" if self.transport == "stdio" else "url"
        if not getattr(self, needed):
            raise ConfigError(f"server '{self.name}': field '{needed}': required for transport '{self.transport}'")

    def where(self) -> str:
        """The command line or URL, as messages print it."""
        return shlex.join([self.command or "", *self.args]) if self.transport == "stdio" else self.url or ""


@dataclass(frozen=True)
class Timeouts:
    """Seconds. Each failure message names the timeout that fired."""

    connect: float = 30.0  # spawn or reach the server, and its answer to initialize (Claude Code: 30 s)
    list: float = 30.0  # each tools/list page
    call: float = 60.0  # each tools/call (Cline's default; Claude Code waits ~28 h)
    exit_grace: float = 2.0  # stdio: after stdin closes, before SIGTERM (the SDK's value)
    kill_grace: float = 2.0  # stdio: after SIGTERM, before SIGKILL


class State(enum.Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    FAILED = "failed"
    CLOSED = "closed"


class _Expired(Exception):
    """A call hit HTTP 404 with our session id: the server forgot the session."""


# --- stdio -----------------------------------------------------------------------------


def _resolve(spec: ServerSpec, env: Mapping[str, str]) -> str:
    """The executable to run; a clear error instead of the bare ENOENT of a failed spawn."""
    if spec.cwd is not None and not os.path.isdir(spec.cwd):
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: working directory does not exist")
    found = shutil.which(spec.command or "", path=env.get("PATH"))
    if found is None:
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: command not found")
    return found


def _parse(line: str) -> SessionMessage | Exception:
    # A bad line is passed along as a value (the session skips it; the tap records it).
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        return InvalidFrame(line)


@asynccontextmanager
async def _stdio(spec: ServerSpec, errlog: Any, timeouts: Timeouts, child: list[Any]) -> AsyncIterator[tuple[Any, Any]]:
    """Spawn the server; yield (read, write) streams of JSON-RPC messages; always stop it."""
    env = {**get_default_environment(), **spec.env}
    executable = _resolve(spec, env)
    try:
        # Its own process group: a terminal's Ctrl-C reaches only us, and we stop the group.
        process = await anyio.open_process([executable, *spec.args], env=env, cwd=spec.cwd, stderr=errlog, start_new_session=True)
    except OSError as exc:
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: {exc.strerror}") from None
    child.append(process)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_stdout() -> None:
        async with to_session:
            buffer = ""
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in filter(str.strip, lines):
                        await to_session.send(_parse(line))
        # Leaving closes to_session: the session sees end-of-stream and fails pending requests.

    async def pump_stdin() -> None:
        try:
            async with from_session:
                async for message in from_session:
                    line = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(line.encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server stopped reading: end the session's stream too

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_stdout)
        tg.start_soon(pump_stdin)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):  # must finish even when we are being cancelled
                await _stop(process, timeouts)
            tg.cancel_scope.cancel()
    with anyio.move_on_after(timeouts.kill_grace, shield=True):
        await process.aclose()


async def _stop(process: Any, timeouts: Timeouts) -> None:
    """Close stdin, wait; SIGTERM the group, wait; SIGKILL. Every wait is bounded."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()  # a well-behaved server exits on end of input
    if await _exited(process, timeouts.exit_grace):
        return
    await terminate_posix_process_tree(process, timeouts.kill_grace)  # the SDK's SIGTERM -> SIGKILL of the group
    await _exited(process, timeouts.kill_grace)


async def _exited(process: Any, within: float) -> bool:
    # Poll returncode, as the SDK does: asyncio's wait() also waits for the pipes to close.
    with anyio.move_on_after(within):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _tail(errlog: Any, lines: int) -> list[str]:
    """The last lines the child wrote to stderr. ``pread`` leaves the shared offset alone."""
    fd = errlog.fileno()
    size = os.fstat(fd).st_size
    chunk = os.pread(fd, min(size, 16384), max(0, size - 16384)).decode("utf-8", errors="replace")
    return [line.rstrip() for line in chunk.splitlines() if line.strip()][-lines:]


# --- Streamable HTTP: the session as the HTTP layer sees it ---------------------------------


class _SessionWatch:
    """Which Mcp-Session-Id we hold, and whether the server answered 404 to it."""

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.expired = False

    async def on_response(self, response: httpx2.Response) -> None:
        sent = response.request.headers.get("mcp-session-id")
        if response.status_code == 404 and sent is not None and sent == self.session_id:
            self.expired = True  # any request, any body: the spec's rule, not a JSON-RPC code
        elif self.session_id is None and (given := response.headers.get("mcp-session-id")):
            self.session_id = given

    async def terminate(self, http: httpx2.AsyncClient, url: str, within: float) -> None:
        """DELETE the session, unless the server already forgot it (that DELETE could only 404)."""
        if self.session_id is None or self.expired:
            return
        with anyio.move_on_after(within), suppress(httpx2.HTTPError):
            await http.delete(url, headers={"mcp-session-id": self.session_id})


# --- the connection ------------------------------------------------------------------


class MCPConnection:
    """One server over one transport. Built by ``connect`` or ``Connections.open``."""

    def __init__(self, spec: ServerSpec, *, tap: WireTap | None, auth: httpx2.Auth | None, timeouts: Timeouts,
                 transcript: Transcript | None, session_options: Mapping[str, Any]) -> None:
        self.name = spec.name
        self.spec = spec
        self.tools: list[dict[str, Any]] = []
        self.state = State.CONNECTING
        self.error: ServerError | None = None  # why the connection is failed, in full
        self._reason = ""  # the same, in a few words, for later calls
        self.timeouts = timeouts
        self._tap, self._auth, self._transcript, self._options = tap, auth, transcript, dict(session_options)
        self._session: ClientSession | None = None
        self._generation = 0  # sessions established so far
        self._child: list[Any] = []  # the stdio process of the current session
        self._watch: _SessionWatch | None = None
        self._errlog: Any = None
        self._final_tail: list[str] = []
        self._phase = "connect"
        self._closing = False
        self._wake = anyio.Event()  # set: leave the current session (to close, or to re-initialize)
        self._changed = anyio.Event()  # set by the owner when a re-initialize has succeeded or failed
        self._done = anyio.Event()
        self._lock = anyio.Lock()
        self._private: Connections | None = None  # set by connect(): it owns its own supervisor

    # -- the Client protocol and friends --

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> str:
        """``tools/call``. Text result, or ``ToolError`` naming the server and tool."""
        session, generation = self._live(tool)
        try:
            return await self._call(session, tool, arguments)
        except _Expired:
            self._say("warning", f"{self.name}: HTTP 404 for session {self._watch_id()}: the server forgot it; re-initializing, then retrying '{tool}' once")
            await self._reinitialize(generation, tool)
            session, _ = self._live(tool)
            try:
                return await self._call(session, tool, arguments)
            except _Expired:
                raise ToolError(f"server '{self.name}': tool '{tool}': the new session expired too; not retrying again") from None

    async def list_tools(self) -> list[dict[str, Any]]:
        """``tools/list``, every page, under the ``list`` timeout; refreshes ``tools``."""
        session, _ = self._live(None)
        return await self._list(session)

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The last lines the server wrote to stderr (stdio only; empty for sse/http)."""
        if self._errlog is None or self._errlog.closed:
            return self._final_tail[-lines:]
        return _tail(self._errlog, lines)

    async def aclose(self) -> None:
        """Leave the session and stop the server (stdio). Idempotent."""
        self._closing = True
        self._wake.set()
        await self._done.wait()
        if self._private is not None:
            private, self._private = self._private, None
            await private.__aexit__(None, None, None)

    # -- calls --

    def _live(self, tool: str | None) -> tuple[ClientSession, int]:
        if self.state is not State.CONNECTED or self._session is None:
            what = f"server '{self.name}'" + (f": tool '{tool}'" if tool else "")
            reason = f": {self._reason}" if self._reason else ""
            raise ToolError(f"{what}: not connected ({self.state.value}{reason})")
        return self._session, self._generation

    async def _call(self, session: ClientSession, tool: str, arguments: dict[str, Any]) -> str:
        where = f"server '{self.name}': tool '{tool}'"
        try:
            with anyio.fail_after(self.timeouts.call):
                result = await session.call_tool(tool, arguments)
        except TimeoutError:
            raise ToolError(f"{where}: no answer within {self.timeouts.call:g} s (call timeout)") from None
        except MCPError as exc:
            if self._watch is not None and self._watch.expired:
                raise _Expired from None
            if exc.code == types.CONNECTION_CLOSED:
                self._fail(f"connection lost{await self._exit_note()}")
                raise ToolError(f"{where}: {self._reason}{self._details()}") from None
            raise ToolError(f"{where}: protocol error {exc.code}: {exc.message}") from None
        text = "\n".join(_text(block) for block in result.content)
        if result.is_error:
            raise ToolError(f"{where}: {text}")
        return text

    async def _list(self, session: ClientSession) -> list[dict[str, Any]]:
        tools, cursor = [], None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with anyio.fail_after(self.timeouts.list):
                page = await session.list_tools(params=params)
            tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
            if not (cursor := page.next_cursor):
                break
        self.tools = tools
        return tools

    async def _reinitialize(self, generation: int, tool: str) -> None:
        """Ask the owner task for a fresh session (once per expiry, however many callers)."""
        async with self._lock:
            if self._generation == generation and self.state is State.CONNECTED:
                self._changed = anyio.Event()
                self._wake.set()
                await self._changed.wait()
        if self.state is not State.CONNECTED:
            raise ToolError(f"server '{self.name}': tool '{tool}': session expired and re-initializing failed: {self._reason}")

    # -- the owner task: opens, re-opens and closes sessions, all in one task --

    async def _run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with tempfile.TemporaryFile() as errlog:
            self._errlog = errlog
            try:
                await self._serve(task_status)
            finally:
                self._final_tail = _tail(errlog, 50)
                if self.state is not State.FAILED:
                    self.state = State.CLOSED
                self._done.set()

    async def _serve(self, task_status: anyio.abc.TaskStatus[None]) -> None:
        started = False
        while not self._closing:
            self._wake = anyio.Event()
            try:
                async with self._open() as session:
                    await self._handshake(session)
                    self._session, self.state = session, State.CONNECTED
                    self._generation += 1
                    if not started:
                        started = True
                        task_status.started()
                    self._changed.set()
                    await self._wake.wait()
                    self._session = None
            except Exception as exc:  # anything while opening: one ServerError that names the server
                self._session = None
                if isinstance(exc, ServerError):  # spawn failed: the message is complete
                    self.state, self.error, self._reason = State.FAILED, exc, str(exc)
                else:
                    self._fail(await self._explain(exc))
                if not started:
                    raise self.error from None  # Connections.open raises it to the caller
                self._changed.set()
                return  # a failed connection stays failed; reconnecting is s28's job

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[ClientSession]:
        """Transport, tapped streams, ClientSession; closed in reverse when the block ends."""
        spec, timeouts = self.spec, self.timeouts
        self._phase, self._child, self._watch = "connect", [], None
        if self._tap is not None:
            self._tap.new_session(spec.name)
        if spec.transport == "stdio":
            transport = _stdio(spec, self._errlog, timeouts, self._child)
        elif spec.transport == "sse":
            transport = sse_client(spec.url, headers=dict(spec.headers), timeout=timeouts.connect, auth=self._auth, on_session_created=self._sse_session)
        else:
            transport = self._http()
        async with transport as (read, write):
            if self._tap is not None:
                read, write = self._tap.tap(spec.name, read, write)
            options = {"client_info": CLIENT_INFO, "message_handler": self._on_message, **self._options}
            async with ClientSession(read, write, **options) as session:
                yield session

    @asynccontextmanager
    async def _http(self) -> AsyncIterator[tuple[Any, Any]]:
        watch = self._watch = _SessionWatch()
        timeout = httpx2.Timeout(self.timeouts.connect, read=300.0)  # reads wait on streams; calls have their own timeout
        async with httpx2.AsyncClient(headers=dict(self.spec.headers), auth=self._auth, timeout=timeout,
                                      event_hooks={"response": [watch.on_response]}) as http:
            # terminate_on_close=False: we DELETE ourselves, and skip it for a forgotten session.
            async with streamable_http_client(self.spec.url, http_client=http, terminate_on_close=False) as streams:
                yield streams
            await watch.terminate(http, self.spec.url, self.timeouts.connect)

    async def _handshake(self, session: ClientSession) -> None:
        self._phase = "initialize"
        with anyio.fail_after(self.timeouts.connect):
            await session.initialize()
        if self._watch is not None and self._watch.session_id:
            self._label(self._watch.session_id, "session")
        self._phase = "tools/list"
        await self._list(session)

    async def _explain(self, exc: BaseException) -> str:
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        if isinstance(exc, TimeoutError):
            name, limit = ("list", self.timeouts.list) if self._phase == "tools/list" else ("connect", self.timeouts.connect)
            return f"no answer to {self._phase} within {limit:g} s ({name} timeout)"
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
            code = await self._exit_code()
            return f"exited with code {code} during {self._phase}" if code is not None else f"connection closed during {self._phase}"
        if isinstance(exc, MCPError):
            return f"{self._phase}: error {exc.code}: {exc.message}"
        if isinstance(exc, httpx2.HTTPError):
            return f"{self._phase}: cannot reach {self.spec.url}: {type(exc).__name__}"
        return f"{self._phase}: {type(exc).__name__}: {exc}"

    def _fail(self, reason: str) -> None:
        self.state, self._reason = State.FAILED, reason
        self.error = ServerError(f"server '{self.name}': {reason}{self._details()}")

    async def _exit_code(self) -> int | None:
        """The stdio child's exit code, after giving it a moment to exit; None if it runs on."""
        if not self._child:
            return None
        await _exited(self._child[0], self.timeouts.exit_grace)
        return self._child[0].returncode

    async def _exit_note(self) -> str:
        code = await self._exit_code()
        return f": the server exited with code {code}" if code is not None else ""

    def _details(self) -> str:
        """``; command: ...; stderr:`` and the last lines, for a stdio server."""
        if self.spec.transport != "stdio":
            return ""
        tail = self.stderr_tail()
        return f"; command: {self.spec.where()}" + ("; stderr:\n" + "\n".join(f"  {line}" for line in tail) if tail else "; no stderr")

    # -- reporting --

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._say("warning", f"{self.name}: skipped a line that is not JSON-RPC: {message}")
        await anyio.lowlevel.checkpoint()

    def _sse_session(self, session_id: str) -> None:
        self._label(session_id, "sse-session")

    def _label(self, secret: str, kind: str) -> None:
        # Session ids are random: a placeholder in every transcript line and frame.
        if self._transcript is not None:
            self._transcript.normalize.add(secret, f"<{self.name}-{kind}-{self._generation + 1}>")
        self._say("note", f"{self.name}: {kind.replace('-', ' ')} {secret}")

    def _watch_id(self) -> str:
        return self._watch.session_id if self._watch and self._watch.session_id else "?"

    def _say(self, kind: str, text: str) -> None:
        if self._transcript is not None:
            self._transcript.emit(kind, text=text)


def _text(block: Any) -> str:
    return block.text if getattr(block, "type", None) == "text" else f"[{block.type} content: shown from s32 on]"


# --- owners --------------------------------------------------------------------------


class Connections:
    """Owns connections. Each runs in its own task, so each is closed by the task that opened it.

        async with Connections(transcript) as conns:
            docs = await conns.open(ServerSpec("docs", "stdio", "python", ("-m", "mock_servers.docs", ...)))

    Leaving the block closes every connection (in parallel), also on errors and Ctrl-C.
    """

    def __init__(self, transcript: Transcript | None = None, *, timeouts: Timeouts | None = None) -> None:
        self.transcript = transcript
        self.timeouts = timeouts or Timeouts()
        self.open_connections: list[MCPConnection] = []
        self._tg: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Connections:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._tg is not None, "Connections was not entered"
        for conn in self.open_connections:
            conn._closing = True
            conn._wake.set()
        return await self._tg.__aexit__(*exc_info)

    async def open(self, spec: ServerSpec, *, tap: WireTap | None = None, auth: httpx2.Auth | None = None,
                   timeouts: Timeouts | None = None, **session_options: Any) -> MCPConnection:
        """Connect ``spec``: handshake and tools/list done, or ``ServerError``."""
        if self._tg is None:
            raise RuntimeError("use Connections as `async with Connections() as conns:`")
        conn = MCPConnection(spec, tap=tap, auth=auth, timeouts=timeouts or self.timeouts,
                             transcript=self.transcript, session_options=session_options)
        await self._tg.start(conn._run)
        self.open_connections.append(conn)
        return conn

    def connector(self, spec: ServerSpec, **kwargs: Any) -> Callable[[], Awaitable[MCPConnection]]:
        """A connector for ``connect_tool``: a server that cannot be reached is a ``ToolError``.

        The model asked for the server, so the failure is the model's to read and route
        around; the servers already connected are untouched.
        """

        async def connect_it() -> MCPConnection:
            try:
                return await self.open(spec, **kwargs)
            except ServerError as exc:
                raise ToolError(str(exc)) from None

        return connect_it


async def connect(spec: ServerSpec, *, tap: WireTap | None = None, auth: httpx2.Auth | None = None,
                  timeouts: Timeouts | None = None, transcript: Transcript | None = None, **session_options: Any) -> MCPConnection:
    """One connection with a supervisor of its own. Call ``aclose()`` from this same task.

    For several connections, or connections used from other tasks, use ``Connections``.
    """
    owner = Connections(transcript, timeouts=timeouts)
    await owner.__aenter__()
    try:
        conn = await owner.open(spec, tap=tap, auth=auth, **session_options)
    except BaseException:
        await owner.__aexit__(None, None, None)
        raise
    conn._private = owner
    return conn
