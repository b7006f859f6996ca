"""One server, one session at a time: ``MCPConnection``, and ``Connections`` to own several.

``connect`` (or ``Connections.open``) takes a ``ServerSpec`` and returns an
``MCPConnection``: a client (``harness.client``) whose session has done its handshake and
``tools/list``. The connection is a few objects, each with one job, that it holds::

    harness.sessions.SessionOwner   the state, the owner task, reconnect and close
    harness.opening.Opener          each session: transport, tap, guard, ClientSession, handshake
    harness.calls.CallPath          tools/call and tools/list on the current session, bounded
    an Offering mechanism           resources and prompts, when one is plugged in (s30's)

Which transport carries the frames is the registry's (``harness.transports``); what a
transport knows of its server (a process's exit code and stderr) is asked of its ``Context``.

Everything else is a mechanism (``harness.hooks``) that the caller builds and passes:
``Connections.open(spec, mechanisms=[...])``. Each is bound to the connection as a
``harness.client.Host``. Besides them, ``open`` takes the transport's and the session's
parts by name: ``tap=`` (the wire tap), ``auth=`` (s26's OAuth provider), ``handshake=``
(``classic_handshake``, ``discover_handshake``, or s34's ``harness.era.handshake()``),
``respec=`` (the spec for each new session: s27's variables expanded again), ``timeouts=``
and ``limits=``.

States are ``harness.spec.State``: pending -> connected -> closed, or failed (kept, with
its error). One clear error per failure, each naming the server:

    spawn fails, or the server exits/hangs before tools/list    ServerError from connect/open
    the server answers a call with isError                      a ToolResult with is_error
    a protocol error, or the call timeout                       ToolError naming server and tool
    the connection dies mid-call                                ToolError; state failed; exit code
                                                                and stderr tail in the message

Timeouts are named (``Timeouts``) and injectable. Bounds: ``tools/list``, every page, is
bounded by the list timeout, ``Limits.pages`` pages, and a cursor sent twice;
``harness.guard`` drops a malformed tool and refuses an argument JSON cannot carry; tools
past ``Limits.tools`` and descriptions past ``Limits.description`` are cut, with a
warning. A transport that ends the stream on purpose says why (``Context.fault``), and
that is the error.

Introduced by s23. Not handled here: auth flows (s26 passes ``auth=``), rendering non-text
results (s32), and each mechanism.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import anyio
import anyio.abc
from mcp.client.session import ClientSession

from harness import hooks, transports
from harness.calls import CallPath
from harness.client import Observer, Offering
from harness.errors import ServerError, ToolError
from harness.hooks import Mechanism, Request
from harness.jsonvalue import JSON, JSONObject
from harness.opening import CLIENT_INFO, Handshake, Opener, Opening
from harness.results import ToolResult
from harness.sessions import STDERR_TAIL_LINES, SessionOwner
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript

T = TypeVar("T")

if TYPE_CHECKING:
    import httpx2
    import mcp_types
    from mcp.client.session import IncomingMessage

    from harness.wire import WireTap

__all__ = ["CLIENT_INFO", "STDERR_TAIL_LINES", "Connections", "Handshake", "MCPConnection", "Opening", "Reconnect",
           "classic_handshake", "connect", "discover_handshake", "never"]

Reconnect = Callable[[int, ServerError], "float | None"]  # (failures so far, the last error) -> seconds to wait, or None: give up


async def classic_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The handshake era's opening: ``initialize`` (and the SDK's ``notifications/initialized``)."""
    with anyio.fail_after(timeouts.connect):
        await session.initialize()


async def discover_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The 2026-07-28 opening: ``server/discover`` instead of ``initialize`` (no session, no back channel).

    The SDK's probe waits a fixed 10 s whatever the connect timeout; ``harness.era.handshake("2026-07-28")``
    does not, and ``harness.era.handshake()`` negotiates the era per server.
    """
    with anyio.fail_after(timeouts.connect):
        await session.discover()


def never(failures: int, error: ServerError) -> float | None:
    """The default reconnect policy: a failed connection stays failed, even when called (s28 adds backoff)."""
    return None


class MCPConnection:
    """One server over one transport. Built by ``connect`` or ``Connections.open``; a ``harness.client.Host``
    to the mechanisms it holds."""

    def __init__(self, spec: ServerSpec, *, transport: transports.Transport, timeouts: Timeouts, limits: Limits,
                 transcript: Transcript | None, tap: WireTap | None = None, auth: httpx2.Auth | None = None,
                 handshake: Handshake = classic_handshake, respec: Callable[[], ServerSpec] | None = None,
                 mechanisms: Sequence[Mechanism] = (), warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.name = spec.name
        self._notified = hooks.overriding(mechanisms, "on_notification")
        self._opened = hooks.overriding(mechanisms, "on_open")
        opener = Opener(transport, tap=tap, auth=auth, handshake=handshake, mechanisms=mechanisms,
                        on_message=self._on_message, listed=self._listed)
        self.owner = SessionOwner(spec, opener, timeouts=timeouts, limits=limits, transcript=transcript, respec=respec,
                                  mechanisms=mechanisms, warn=warn)
        self.calls = CallPath(self.owner, mechanisms, progress)
        self._offers = next((m for m in mechanisms if isinstance(m, Offering)), None)
        self._via: tuple[ClientSession, str] | None = None  # where the session's notifications come from, if not itself
        self._private: Connections | None = None  # set by connect(): it owns its own owner task
        for mechanism in mechanisms:
            mechanism.bind(self)

    # -- what the owner knows (harness.client.Host) --

    spec = property(lambda self: self.owner.spec)
    state = property(lambda self: self.owner.state)
    error = property(lambda self: self.owner.error)
    reason = property(lambda self: self.owner.reason)
    generation = property(lambda self: self.owner.generation)
    capabilities = property(lambda self: self.owner.capabilities)
    protocol = property(lambda self: self.owner.protocol)  # the version the current session speaks
    context = property(lambda self: self.owner.context)
    limits = property(lambda self: self.owner.limits)
    tools = property(lambda self: self.calls.tools)

    @property
    def timeouts(self) -> Timeouts:
        return self.owner.timeouts

    def say(self, kind: str, text: str) -> None:
        self.owner.say(kind, text)

    def post(self, kind: str, **fields: JSON) -> None:
        self.owner.post(kind, **fields)

    def begin(self, phase: str) -> None:
        self.owner.begin(phase)

    def live(self, tool: str | None) -> ClientSession:
        return self.owner.live(tool)

    def set_state(self, state: State, reason: str) -> None:
        self.owner.set_state(state, reason)

    async def renew(self, generation: int) -> bool:
        return await self.owner.renew(generation)

    async def request(self, what: str, request: Awaitable[T], limit: float, name: str) -> T:
        return await self.calls.request(what, request, limit, name)

    async def send(self, method: str, target: str, arguments: dict[str, JSON], what: str) -> mcp_types.Result:
        return await self.calls.send(method, target, arguments, what)

    async def fetched(self, session: ClientSession, method: str, key: str, request: Request) -> mcp_types.Result:
        """One cacheable request: ``request()``, unless a mechanism's ``around_request`` answers it."""
        return await self.calls.fetched(session, method, key, request)

    async def relist_tools(self, session: ClientSession) -> list[JSONObject]:
        """tools/list again on ``session`` (s30: after list_changed), with every bound and cut of the first."""
        return await self.calls.listing(session)

    def hear_via(self, session: ClientSession, source: str) -> None:
        """``session``'s notifications come on ``source`` (s34: ``subscriptions/listen``), not its own stream."""
        self._via = (session, source)

    def heard_via(self, session: ClientSession) -> str | None:
        return self._via[1] if self._via is not None and self._via[0] is session else None

    # -- the client protocols (harness.client) --

    def observe(self, observer: Observer) -> None:
        """Be told of every later state change (the hub's callback). Never prints: it records."""
        self.owner.observer = observer

    def retime(self, timeouts: Timeouts) -> None:
        """Use ``timeouts`` from the next request on (s29: the config changed them; asked through the hub)."""
        self.owner.timeouts = timeouts

    async def call_tool(self, tool: str, arguments: JSONObject) -> ToolResult:
        """``tools/call``: the result as data, or ``ToolError`` naming the server and tool."""
        return await self.calls.call(tool, arguments)

    async def list_tools(self) -> list[JSONObject]:
        """``tools/list``, every page, under the ``list`` timeout; refreshes ``tools``."""
        return await self.calls.list_tools()

    @property
    def renewable(self) -> bool:
        return self.owner.renewable

    async def reconnect(self) -> bool:
        return await self.owner.reconnect()

    def close_soon(self) -> None:
        self.owner.close_soon()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        return self.owner.stderr_tail(lines)

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (``notifications/roots/list_changed``); it lists them again when it wants."""
        session = self.owner.session
        if session is not None and self.state is State.CONNECTED:
            with warnings.catch_warnings():  # roots are deprecated as of 2026-07-28 (SEP-2577), and still widely served
                warnings.simplefilter("ignore")
                await session.send_roots_list_changed()

    async def aclose(self) -> None:
        """Leave the session and stop the server (stdio). Idempotent."""
        self.owner.close_soon()
        await self.owner.done.wait()
        if self._private is not None:
            private, self._private = self._private, None
            await private.__aexit__(None, None, None)

    # -- resources and prompts: the Offering mechanism's, empty without one --

    resources = property(lambda self: self._offers.resources if self._offers else [])
    resource_templates = property(lambda self: self._offers.resource_templates if self._offers else [])
    prompts = property(lambda self: self._offers.prompts if self._offers else [])

    async def list_resources(self) -> list[JSONObject]:
        return await self._offered().list_resources()

    async def read_resource(self, uri: str) -> list[JSONObject]:
        return await self._offered().read_resource(uri)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> JSONObject:
        return await self._offered().get_prompt(name, arguments)

    def drain_logs(self) -> list[JSONObject]:
        return self._offers.drain_logs() if self._offers else []

    def _offered(self) -> Offering:
        if self._offers is None:
            raise ToolError(f"server '{self.name}': this client does not offer resources or prompts")
        return self._offers

    # -- each session's opening, and what it hears --

    async def _listed(self, session: ClientSession) -> None:
        await self.calls.listing(session)
        for mechanism in self._opened:
            await mechanism.on_open(session)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            self.say("warning", f"{self.name}: skipped a line that is not JSON-RPC: {message}")
        else:
            for mechanism in self._notified:
                mechanism.on_notification(message)
        await anyio.lowlevel.checkpoint()


# --- owners --------------------------------------------------------------------------


class Connections:
    """Owns connections. Each runs in its own task, so each is closed by the task that opened it.

        async with Connections(transcript) as conns:
            docs = await conns.open(ServerSpec("docs", "stdio", "python", ("-m", "mock_servers.docs", ...)))

    Leaving the block closes every connection (in parallel), also on errors and Ctrl-C.
    """

    def __init__(self, transcript: Transcript | None = None, *, timeouts: Timeouts | None = None,
                 limits: Limits | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.transcript = transcript
        self.warn = warn  # every connection's warnings, for a caller with no transcript (the CLI's stderr)
        self.progress = progress  # every call's progress, one line each (the CLI's terminal)
        self.timeouts = timeouts or Timeouts()
        # The CLI's way to change a limit is the environment (MCP_COURSE_MAX_*); code passes its own.
        self.limits = limits if limits is not None else Limits.from_environ(os.environ)
        self.open_connections: list[MCPConnection] = []
        self._tg: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Connections:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> bool | None:
        assert self._tg is not None, "Connections was not entered"
        for conn in self.open_connections:
            conn.close_soon()
        return await self._tg.__aexit__(*exc_info)

    async def open(self, spec: ServerSpec, *, tap: WireTap | None = None, auth: httpx2.Auth | None = None,
                   timeouts: Timeouts | None = None, handshake: Handshake = classic_handshake,
                   respec: Callable[[], ServerSpec] | None = None, limits: Limits | None = None,
                   mechanisms: Sequence[Mechanism] = ()) -> MCPConnection:
        """Connect ``spec``, with ``mechanisms`` (each one this connection's own): handshake and tools/list done,
        or ``ServerError``."""
        if self._tg is None:
            raise RuntimeError("use Connections as `async with Connections() as conns:`")
        conn = MCPConnection(spec, transport=transports.lookup(spec), timeouts=timeouts or self.timeouts,
                             limits=limits or self.limits, transcript=self.transcript, tap=tap, auth=auth,
                             handshake=handshake, respec=respec, mechanisms=mechanisms, warn=self.warn, progress=self.progress)
        await self._tg.start(conn.owner.run)
        self.open_connections.append(conn)
        return conn

    def connector(self, spec: ServerSpec, *, tap: WireTap | None = None,
                  mechanisms: Callable[[], Sequence[Mechanism]] = tuple) -> Callable[[], Awaitable[MCPConnection]]:
        """A hub connector for ``spec``: ``await connector()`` opens it here (``ServerError`` if it cannot), each
        time with new ``mechanisms()``."""

        async def connect_it() -> MCPConnection:
            return await self.open(spec, tap=tap, mechanisms=mechanisms())

        return connect_it


async def connect(spec: ServerSpec, *, tap: WireTap | None = None, auth: httpx2.Auth | None = None,
                  timeouts: Timeouts | None = None, transcript: Transcript | None = None,
                  handshake: Handshake = classic_handshake, mechanisms: Sequence[Mechanism] = ()) -> MCPConnection:
    """One connection with an owner task of its own. Call ``aclose()`` from this same task.

    For several connections, or connections used from other tasks, use ``Connections``.
    """
    owner = Connections(transcript, timeouts=timeouts)
    await owner.__aenter__()
    try:
        conn = await owner.open(spec, tap=tap, auth=auth, handshake=handshake, mechanisms=mechanisms)
    except BaseException:
        await owner.__aexit__(None, None, None)
        raise
    conn._private = owner
    return conn
