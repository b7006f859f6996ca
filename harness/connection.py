"""One server, one session at a time: ``MCPConnection``, and ``Connections`` to own several.

``connect`` (or ``Connections.open``) takes a ``ServerSpec`` and returns an
``MCPConnection``: a client (``harness.client``) whose session has done its handshake and
``tools/list``. This is s23's module: open, handshake, bounded listing, call, close (the
session and its owner task are ``harness.sessions``, the half a caller never uses). Which
transport carries the frames is the registry's (``harness.transports``); what a transport
knows of its server (a process's exit code and stderr) is asked of its ``Context``.

Each later lesson's mechanism is a module of its own, plugged into a named hook
(``harness.hooks``); neither module imports any of them::

    hook          what plugs in                                            lesson
    transport     the registry in harness.transports                       s23-s25
    handshake     handshake=: classic_handshake, or discover_handshake     s33; s34's eras
    respec        respec=: the spec for each new session (variables again)  s27 config.connector
    supervisor    a Supervisor: after a lost session, wait, retry or stay   s28 lifecycle.Supervisor
    observe       the hub's callback, told of every state change            the hub spine
    mechanisms    each a hooks.Mechanism; its hooks, in the order a session meets them
                  (s34's are harness.modern's, plugged by the stack's eras part):
      options()             ClientSession options it adds                  s30 logging_callback
      answered(result)      each result, before the SDK reads it (guard)   s34 an absent resultType is complete
      listed(tools)         each tools/list's tools: the ones kept          a config's tool filter; s34 task-only
      opened(session)       after tools/list, before the session is used   s30 offers; s34 log messages asked for
      ready(session)        after every opened, before the session is used s34 subscriptions/listen opened
      up(session)           the state line of a session up again           s34 "reconnected (server/discover)"
      beside(session)       runs beside each live session                  s30 list_changed refresher; s34 listen
      notified(message)     a server notification, in the SDK's callback   s30 list_changed
      heard_on(session)     where notifications come from, if not the      s34 "subscriptions/listen"
                            session's own stream (said with list_changed)
      call(tool, args, go)  around each call, outside its timeout          s28 next use, s25 retry, s30
      send(call, go)        the tools/call request(s), inside the timeout  s33 input rounds, -32042; s34 -32021
      claim(exc)            a call's MCP error, before it is judged here   s25 the session expired
      fetched(s, m, k, go)  around a cacheable list or read request        s34 the response cache (ttlMs)

``Connections`` and ``connect`` plug in ``hooks.DEFAULT_MECHANISMS`` unless given
``mechanisms=``; ``open()``'s other keywords go to the plugs (s28: ``reconnect=``,
``sleep=``) and then to ``ClientSession``.

States are ``harness.spec.State``: pending -> connected -> closed, or failed (kept, with
its error). One clear error per failure, each naming the server:

    spawn fails, or the server exits/hangs before tools/list    ServerError from connect/open
    the server answers a call with isError                      a ToolResult with is_error
    a protocol error, or the call timeout                       ToolError naming server and tool
    the connection dies mid-call                                ToolError; state failed; exit code
                                                                and stderr tail in the message

Timeouts are named (``Timeouts``) and injectable; the call timeout (``harness.deadline``)
starts again at every progress notification. Bounds (issue 8): ``tools/list``, every page, is bounded by the list
timeout, ``Limits.pages`` pages, and a cursor sent twice; ``harness.guard`` drops a
malformed tool and refuses an argument JSON cannot carry; tools past ``Limits.tools`` and
descriptions past ``Limits.description`` are cut, with a warning. A transport that ends
the stream on purpose says why (``Context.fault``), and that is the error.

Introduced by s23; the hooks by the composition issue (17). Not handled here: auth flows
(s26 passes ``auth=``), rendering non-text results (s32), and each mechanism above.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from asyncio import CancelledError
from typing import Any, NoReturn

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from harness import hooks, transports
from harness.client import Observer
from harness.deadline import Deadline
from harness.errors import ServerError, ToolError
from harness.guard import UnsendableFrame, printable, refused_result, trimmed
from harness.hooks import Call, Mechanism, Proceed, Send, Supervisor
from harness.results import ToolResult
from harness.sessions import CLIENT_INFO, STDERR_TAIL_LINES, Handshake, SessionOwner, Unlisted
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.wire import WireTap

__all__ = ["CLIENT_INFO", "STDERR_TAIL_LINES", "Call", "Connections", "Handshake", "MCPConnection", "Mechanism", "Proceed",
           "Reconnect", "Send", "Supervisor", "classic_handshake", "connect", "discover_handshake", "never"]

Reconnect = Callable[[int, ServerError], "float | None"]  # (failures so far, the last error) -> seconds to wait, or None: give up


async def classic_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The handshake era's opening: ``initialize`` (and the SDK's ``notifications/initialized``)."""
    with anyio.fail_after(timeouts.connect):
        await session.initialize()


async def discover_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The 2026-07-28 opening: ``server/discover`` instead of ``initialize`` (no session, no back channel).

    s33 first showed that era's input-required rounds with it. The SDK's probe waits a fixed 10 s
    whatever the connect timeout; s34's ``harness.era.handshake("2026-07-28")`` does not, and
    ``harness.era.handshake()`` negotiates the era per server.
    """
    with anyio.fail_after(timeouts.connect):
        await session.discover()


def never(failures: int, error: ServerError) -> float | None:
    """The default reconnect policy: a failed connection stays failed, even when called (s28 adds backoff)."""
    return None


def _needs_tasks(tool: Mapping[str, Any]) -> bool:
    """A tool that fails unless called as a task (SEP-1686): offering it would only waste the model's turn."""
    execution = tool.get("execution")
    return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"


class MCPConnection(SessionOwner):
    """One server over one transport. Built by ``connect`` or ``Connections.open``."""

    def __init__(self, spec: ServerSpec, *, tap: WireTap | None, auth: Any, timeouts: Timeouts,
                 transcript: Transcript | None, session_options: Mapping[str, Any],
                 handshake: Handshake = classic_handshake, transport: transports.Transport | None = None,
                 respec: Callable[[], ServerSpec] | None = None, limits: Limits | None = None,
                 mechanisms: Sequence[Mechanism] = (), warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        super().__init__(spec, tap=tap, auth=auth, timeouts=timeouts, transcript=transcript, session_options=session_options,
                         handshake=handshake, transport=transport, respec=respec, limits=limits, mechanisms=mechanisms, warn=warn)
        self.tools: list[dict[str, Any]] = []
        self._progress = progress  # also told each progress notification, as one line: for a terminal with no transcript
        self._offers: Any = None  # s30's offers, when a mechanism says it answers them (offered_by)
        self._call = hooks.calls(self._mechanisms, self._call_once)
        self._send = hooks.sends(self._mechanisms, _sent)
        self._fetch = hooks.fetches(self._mechanisms)
        self._private: Connections | None = None  # set by connect(): it owns its own owner task
        for mechanism in self._mechanisms:
            mechanism.bind(self)

    # -- the client protocols (harness.client) --

    def observe(self, observer: Observer) -> None:
        """Be told of every later state change (the hub's callback). Never prints: it records."""
        self._observer = observer

    def retime(self, timeouts: Timeouts) -> None:
        """Use ``timeouts`` from the next request on (s29: the config changed them; asked through the hub)."""
        self.timeouts = timeouts

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """``tools/call``: the result as data, or ``ToolError`` naming the server and tool."""
        return await self._call(tool, arguments)

    async def list_tools(self) -> list[dict[str, Any]]:
        """``tools/list``, every page, under the ``list`` timeout; refreshes ``tools``.

        ``ToolError`` naming the server and the bound when the listing goes past one.
        """
        session = self.live(None)
        try:
            return await self._list(session)
        except (Unlisted, TimeoutError) as exc:
            self._phase = "tools/list"
            raise ToolError(f"server '{self.name}': {await self._explain(exc)}") from None

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (``notifications/roots/list_changed``); it lists them again when it wants."""
        if self._session is not None and self.state is State.CONNECTED:
            import warnings

            with warnings.catch_warnings():  # roots are deprecated as of 2026-07-28 (SEP-2577), and still widely served
                warnings.simplefilter("ignore")
                await self._session.send_roots_list_changed()

    async def aclose(self) -> None:
        """Leave the session and stop the server (stdio). Idempotent."""
        self.close_soon()
        await self._done.wait()
        if self._private is not None:
            private, self._private = self._private, None
            await private.__aexit__(None, None, None)

    # -- s30's members, answered by the offers mechanism (harness.resources); empty without it --

    def offered_by(self, offers: Any) -> None:
        """s30's mechanism answers the members below (it says so once, when it is bound)."""
        self._offers = offers

    @property
    def resources(self) -> list[dict[str, Any]]:
        return self._offers.resources if self._offers else []

    @property
    def resource_templates(self) -> list[dict[str, Any]]:
        return self._offers.resource_templates if self._offers else []

    @property
    def prompts(self) -> list[dict[str, Any]]:
        return self._offers.prompts if self._offers else []

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self._offered().list_resources()

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        return await self._offered().read_resource(uri)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        return await self._offered().get_prompt(name, arguments)

    def drain_logs(self) -> list[dict[str, Any]]:
        return self._offers.drain_logs() if self._offers else []

    def _offered(self) -> Any:
        if self._offers is None:
            raise ToolError(f"server '{self.name}': this client does not offer resources or prompts")
        return self._offers

    # -- what mechanisms use, besides the session owner's --

    async def request(self, what: str, request: Awaitable[Any], limit: float, name: str) -> Any:
        """One request under ``limit`` s (the timeout ``name``): its result, or ``ToolError`` naming it."""
        try:
            with anyio.fail_after(limit):
                return await request
        except TimeoutError:
            raise ToolError(f"server '{self.name}': {what}: no answer within {limit:g} s ({self.timeouts.explain(name)})") from None
        except MCPError as exc:
            ours = bool(self.context and self.context.server_sent_closed_code(exc.message))  # the server's -32000, not "closed"
            if exc.code == types.CONNECTION_CLOSED and not ours:  # the session ended: say why, if known
                fault = self.context.fault if self.context else None
                raise ToolError(f"server '{self.name}': {what}: {fault or 'connection lost'}") from None
            raise ToolError(f"server '{self.name}': {what}: error {exc.code}: {printable(exc.message, 200)}") from None

    # lesson: s34
    async def fetched(self, session: ClientSession, method: str, key: str, request: Callable[[], Awaitable[Any]]) -> Any:
        """One cacheable request (``hooks.Mechanism.fetched``): ``request()``, unless a mechanism answers it."""
        return await self._fetch(session, method, key, request)

    async def relist_tools(self, session: ClientSession) -> list[dict[str, Any]]:
        """tools/list again on ``session`` (s30: after list_changed), with every bound and cut of the first."""
        return await self._list(session)

    # -- calls and listings --

    def heard_on(self, session: ClientSession) -> str | None:
        """Where ``session``'s notifications come from when not on its own stream (s34: ``subscriptions/listen``), or None."""
        return next((said for mechanism in self._mechanisms if (said := mechanism.heard_on(session))), None)

    async def _opened(self, session: ClientSession) -> None:
        await self._list(session)
        for mechanism in self._mechanisms:
            await mechanism.opened(session)
        for mechanism in self._mechanisms:
            await mechanism.ready(session)

    async def _call_once(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        session = self.live(tool)
        where = f"server '{self.name}': tool '{tool}'"
        limit = self.timeouts.call
        deadline = Deadline(limit)

        async def progressed(progress: float, total: float | None, message: str | None) -> None:
            deadline.restart()  # the server is working: the call timeout starts again
            done = f"{progress:g}/{total:g}" if total else f"{progress:g}"
            self.say("note", f"{self.name}: {tool}: progress {done}" + (f": {message}" if message else ""))
            if self._progress is not None:
                self._progress(f"{self.name}/{tool}: {done}" + (f": {printable(message, 100)}" if message else ""))

        try:
            try:
                result = await self._send(Call(session, tool, arguments, where, progressed, deadline))
            finally:
                deadline.close()  # before any handler below waits (an exit code): the timeout is the request's only
        except CancelledError:
            if not deadline.expired():
                raise  # cancelled from outside (Ctrl-C, a closing hub): not ours to turn into an error
            raise ToolError(f"{where}: no answer within {limit:g} s ({self.timeouts.explain('call')})") from None
        except MCPError as exc:
            await self._call_failed(exc, where)
        except UnsendableFrame as exc:  # refused before sending: the session is untouched
            raise ToolError(f"{where}: {exc}") from None
        except (RuntimeError, ValidationError) as exc:  # the SDK judging the result against the tool's schema
            if (why := refused_result(exc)) is None:
                raise  # not a judgement of a result: a bug, which must show
            raise ToolError(f"{where}: {why}") from None
        return ToolResult(
            content=tuple(block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
            origin=where,
        )

    async def _call_failed(self, exc: MCPError, where: str) -> NoReturn:
        for mechanism in self._mechanisms:
            if (claimed := mechanism.claim(exc)) is not None:
                raise claimed from None
        if exc.code == types.CONNECTION_CLOSED and not (self.context and self.context.server_sent_closed_code(exc.message)):
            # What the transport says first (a frame over the limit, a dropped stream), then
            # the SDK's own words if it has more than "Connection closed", then the exit code.
            said = f": {printable(exc.message, 200)}" if exc.message and exc.message != "Connection closed" else ""
            fault = self.context.fault if self.context else None
            if not (fault or said) and self.context and (code := await self.context.exit_code()) is not None:
                said = f": the server exited with code {code}"
            self.fail(fault or f"connection lost{said}")
            self._wake.set()  # the owner task leaves the dead session (and asks the supervisor)
            raise ToolError(f"{where}: {self.reason}{self._details()}") from None
        raise ToolError(f"{where}: protocol error {exc.code}: {printable(exc.message, 200)}") from None  # one line, escaped and cut

    async def _list(self, session: ClientSession) -> list[dict[str, Any]]:
        """Every page, all of them within the list timeout, at most ``Limits.pages``; then the caps."""
        tools: list[dict[str, Any]] = []
        cursors: set[str] = set()
        cursor, pages, more = None, 0, False
        with anyio.CancelScope(deadline=anyio.current_time() + self.timeouts.list) as scope:
            while True:
                if cursor:  # a continuation page always goes to the server
                    page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                else:  # the first page, which a mechanism may answer (s34: the response cache)
                    page = await self._fetch(session, "tools/list", "", lambda: session.list_tools(params=None))
                pages += 1
                tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
                if not (cursor := page.next_cursor):
                    break
                if len(tools) > self.limits.tools:
                    more = True  # enough to cut at the tools limit: the rest would be cut anyway
                    break
                if cursor in cursors:
                    raise Unlisted(f"tools/list: the server sent cursor '{printable(cursor, 40)}' a second time, "
                                   f"after {pages} pages (a loop; a cursor must lead on)")
                if pages >= self.limits.pages:
                    raise Unlisted(f"tools/list: more than {self.limits.pages} pages ({self.limits.explain('pages')})")
                cursors.add(cursor)
        if scope.cancelled_caught:
            if not pages:
                raise TimeoutError  # no answer at all: the connection says so, naming the timeout
            raise Unlisted(f"tools/list: not finished within {self.timeouts.list:g} s, after {pages} pages "
                           f"({self.timeouts.explain('list')})")
        tools, warnings = trimmed(tools, self.limits, more)
        for warning in warnings:
            self.say("warning", f"{self.name}: {warning}")
        for mechanism in self._mechanisms:
            tools = mechanism.listed(tools)
        self.tools = [t for t in tools if not _needs_tasks(t)]
        for left in (t for t in tools if _needs_tasks(t)):
            self.say("note", f"{self.name}: tool '{printable(left['name'], 80)}' left out: it can only run as a task "
                             "(execution.taskSupport is \"required\"), which this client does not do")
        return self.tools


async def _sent(call: Call, **more: Any) -> Any:
    """The innermost send: one tools/call request (s33's rounds add ``input_responses`` and the like)."""
    return await call.session.call_tool(call.tool, call.arguments, progress_callback=call.progressed, **more)


# --- owners --------------------------------------------------------------------------


class Connections:
    """Owns connections. Each runs in its own task, so each is closed by the task that opened it.

        async with Connections(transcript) as conns:
            docs = await conns.open(ServerSpec("docs", "stdio", "python", ("-m", "mock_servers.docs", ...)))

    Leaving the block closes every connection (in parallel), also on errors and Ctrl-C.
    """

    def __init__(self, transcript: Transcript | None = None, *, timeouts: Timeouts | None = None,
                 limits: Limits | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None, mechanisms: Sequence[str] = hooks.DEFAULT_MECHANISMS) -> None:
        self.transcript = transcript
        self.warn = warn  # every connection's warnings, for a caller with no transcript (the CLI's stderr)
        self.progress = progress  # every call's progress, one line each (the CLI's terminal)
        self.timeouts = timeouts or Timeouts()
        # The CLI's way to change a limit is the environment (MCP_COURSE_MAX_*); code passes its own.
        self.limits = limits if limits is not None else Limits.from_environ(os.environ)
        self.mechanisms = tuple(mechanisms)
        self.open_connections: list[MCPConnection] = []
        self._tg: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Connections:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._tg is not None, "Connections was not entered"
        for conn in self.open_connections:
            conn.close_soon()
        return await self._tg.__aexit__(*exc_info)

    async def open(self, spec: ServerSpec, *, tap: WireTap | None = None, auth: Any = None, timeouts: Timeouts | None = None,
                   handshake: Handshake = classic_handshake, respec: Callable[[], ServerSpec] | None = None,
                   limits: Limits | None = None, mechanisms: Sequence[str] | None = None, **options: Any) -> MCPConnection:
        """Connect ``spec``: handshake and tools/list done, or ``ServerError``.

        ``options``: what the mechanisms take (s28: ``reconnect=``, ``sleep=``), then ``ClientSession`` options.
        """
        if self._tg is None:
            raise RuntimeError("use Connections as `async with Connections() as conns:`")
        plugs = hooks.plugged(self.mechanisms if mechanisms is None else mechanisms, options)
        conn = MCPConnection(spec, tap=tap, auth=auth, timeouts=timeouts or self.timeouts, transcript=self.transcript,
                             session_options=options, handshake=handshake, respec=respec, limits=limits or self.limits,
                             mechanisms=plugs, warn=self.warn, progress=self.progress)
        await self._tg.start(conn._run)
        self.open_connections.append(conn)
        return conn

    def connector(self, spec: ServerSpec, **kwargs: Any) -> Callable[[], Awaitable[MCPConnection]]:
        """A hub connector for ``spec``: ``await connector()`` opens it here (``ServerError`` if it cannot)."""

        async def connect_it() -> MCPConnection:
            return await self.open(spec, **kwargs)

        return connect_it


async def connect(spec: ServerSpec, *, tap: WireTap | None = None, auth: Any = None,
                  timeouts: Timeouts | None = None, transcript: Transcript | None = None, **options: Any) -> MCPConnection:
    """One connection with an owner task of its own. Call ``aclose()`` from this same task.

    For several connections, or connections used from other tasks, use ``Connections``.
    """
    owner = Connections(transcript, timeouts=timeouts)
    await owner.__aenter__()
    try:
        conn = await owner.open(spec, tap=tap, auth=auth, **options)
    except BaseException:
        await owner.__aexit__(None, None, None)
        raise
    conn._private = owner
    return conn
