"""One server, one session at a time: ``MCPConnection``, and ``Connections`` to own several.

``connect`` (or ``Connections.open``) takes a ``ServerSpec`` and returns an
``MCPConnection``: a client (``harness.client``) whose session has done its handshake and
``tools/list``. This module is s23's: open, handshake, bounded listing, call, close. Which
transport carries the frames is the registry's (``harness.transports``); what a transport
knows about its server (a process's exit code and stderr) is asked of its ``Context``.

Each later lesson's mechanism is a module of its own, plugged into a named hook; this
module imports none of them::

    hook          what plugs in                                            lesson
    transport     the registry in harness.transports                       s23-s25
    handshake     handshake=: classic_handshake (initialize), or discover  s33; s34's eras
    respec        respec=: the spec for each new session (variables again)  s27 (config.connector)
    supervisor    a Supervisor: after a lost session, wait, retry or stay   s28 lifecycle.Supervisor
    observe       the hub's callback, told of every state change            the hub spine
    mechanisms    each a Mechanism; its hooks, in the order a session meets them:
      options()              ClientSession options it adds                 s30 logging_callback
      opened(session)        after tools/list, before the session is used  s30 offers at connect
      beside(session)        runs beside each live session                 s30 the list_changed refresher
      notified(message)      a server notification, in the SDK's callback  s30 list_changed
      call(tool, args, go)   around each call, outside its timeout         s28 next use; s25 retry; s30
      send(call, go)         the tools/call request(s), inside the timeout  s33 input rounds, -32042
      claim(exc)             a call's MCPError, before it is judged here   s25 the session expired

``Connections`` and ``connect`` plug in ``DEFAULT_MECHANISMS`` unless given ``mechanisms=``:
each a dotted name of a later module's ``plug(options)``, imported when the first
connection opens (the transports registry names its built-ins the same way). A plug
takes the options it knows out of ``open()``'s keywords (``reconnect=``, ``sleep=``); the
rest are ``ClientSession`` options.

States are ``harness.spec.State``: pending -> connected -> closed, or failed (kept, with
its error). One clear error per failure, each naming the server:

    spawn fails, or the server exits/hangs before tools/list    ServerError from connect/open
    the server answers a call with isError                      a ToolResult with is_error
    a protocol error, or the call timeout                       ToolError naming server and tool
    the connection dies mid-call                                ToolError; state failed; exit code
                                                                and stderr tail in the message

Timeouts are named (``Timeouts``: connect, list, call, plus the two shutdown graces) and
injectable. Each connection is owned by one task (anyio enters and exits a task group in
the same task), which ``Connections`` runs for you; a connection that breaks fails alone.
``reconnect()`` opens a fresh session on the same connection (a stdio server is spawned
again); after a loss the supervisor says whether to wait for one. The call timeout starts
again at every progress notification the server sends for that call.

Bounds (issue 8). ``tools/list`` as a whole, every page, is bounded by the list timeout,
at most ``Limits.pages`` pages, and a cursor the server sends twice ends it: each of
those fails the listing with an error naming the server and the limit. Between the tap
and the session, ``harness.guard`` drops a malformed tool (warning, the rest kept) and
refuses an argument JSON cannot carry (that call fails alone). After a listing, tools
past ``Limits.tools`` and descriptions past ``Limits.description`` are cut, with a
warning. A transport that ends the stream on purpose says why (``Context.fault``: a frame
over ``Limits.frame``, a dropped event stream), and that is the error, not a guess from
the exit code.

Introduced by s23; the hooks by the composition issue (17). Not handled here: auth flows
(s26 passes ``auth=``), rendering non-text results (s32), and each hooked mechanism above.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, NoReturn

import anyio
import anyio.abc
import mcp_types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from harness import transports
from harness.client import Observer
from harness.errors import ConfigError, ServerError, ToolError
from harness.guard import UnsendableFrame, guard, printable, trimmed
from harness.results import ToolResult
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.transports.context import Context
from harness.wire import WireTap

CLIENT_INFO = types.Implementation(name="mcp-course-harness", version="0.1.0")
STDERR_TAIL_LINES = 5
# Imported by name when the first connection opens (see above). The first one's call hook is
# the outermost: a lost session is reconnected (s28) before a call can find it expired (s25).
DEFAULT_MECHANISMS = ("harness.lifecycle:plug", "harness.expiry:plug", "harness.resources:plug", "harness.elicit:plug")

Handshake = Callable[[ClientSession, Timeouts], Awaitable[None]]
Reconnect = Callable[[int, ServerError], "float | None"]  # (failures so far, the last error) -> seconds to wait, or None: give up


async def classic_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The handshake era's opening: ``initialize`` (and the SDK's ``notifications/initialized``)."""
    with anyio.fail_after(timeouts.connect):
        await session.initialize()


async def discover_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The 2026-07-28 opening: ``server/discover`` instead of ``initialize`` (no session, no back channel).

    s33 uses it to show that era's input-required rounds; s34 teaches the era itself.
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


class _Unlisted(Exception):
    """A tools/list that went past a bound: the message says which, in a few words."""


@dataclass
class Call:
    """One tools/call on its way: what ``send`` hooks see. ``restart()`` starts the call timeout again."""

    session: ClientSession
    tool: str
    arguments: dict[str, Any]
    where: str  # "server 'docs': tool 'search'", for messages
    progressed: Callable[[float, float | None, str | None], Awaitable[None]]
    scope: anyio.CancelScope
    limit: float

    def restart(self) -> None:
        self.scope.deadline = anyio.current_time() + self.limit


Proceed = Callable[[], Awaitable[ToolResult]]
Send = Callable[..., Awaitable[Any]]  # (call, **more call_tool arguments) -> the SDK's result


class Mechanism:
    """A later lesson's part of a connection. Each hook does nothing here; a mechanism overrides its own."""

    def bind(self, conn: MCPConnection) -> None:
        """Told its connection once, before the first session."""

    def options(self) -> dict[str, Any]:
        return {}

    async def opened(self, session: ClientSession) -> None: ...

    async def beside(self, session: ClientSession) -> None: ...

    def notified(self, message: Any) -> None: ...

    async def call(self, tool: str, arguments: dict[str, Any], proceed: Proceed) -> ToolResult:
        return await proceed()

    async def send(self, call: Call, proceed: Send) -> Any:
        return await proceed(call)

    def claim(self, exc: MCPError) -> BaseException | None:
        return None


class Supervisor(Mechanism):
    """What happens after a session is lost. Here: nothing; the connection stays failed until
    ``reconnect()`` or closing (s28's ``lifecycle.Supervisor`` adds a policy and its waits)."""

    def failed(self) -> None:
        """A session was lost, or an attempt at one failed (not the first connect): told at once."""

    def established(self) -> None:
        """A session is up."""

    async def rest(self, ready: Callable[[], anyio.Event | None]) -> None:
        """Between sessions after a loss. ``ready()``: the event that ends the wait, or None if it must not start."""
        woken = ready()
        if woken is not None:
            await woken.wait()


class MCPConnection:
    """One server over one transport. Built by ``connect`` or ``Connections.open``."""

    def __init__(self, spec: ServerSpec, *, tap: WireTap | None, auth: Any, timeouts: Timeouts,
                 transcript: Transcript | None, session_options: Mapping[str, Any],
                 handshake: Handshake = classic_handshake, transport: transports.Transport | None = None,
                 respec: Callable[[], ServerSpec] | None = None, limits: Limits | None = None,
                 mechanisms: Sequence[Mechanism] = (), warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.name = spec.name
        self.spec = spec
        self.tools: list[dict[str, Any]] = []
        self.capabilities: dict[str, Any] = {}  # what the server declared at initialize
        self.state = State.PENDING
        self.error: ServerError | None = None  # why the connection is failed, in full
        self.reason = ""  # the same, in a few words, for later calls
        self.timeouts = timeouts
        self.limits = limits or Limits()
        self.transcript = transcript
        self._warn = warn  # also told every warning (what a listing dropped or cut): for a UI with no transcript
        self._progress = progress  # also told each progress notification, as one line: for a terminal with no transcript
        self._tap, self._auth, self._options = tap, auth, dict(session_options)
        self._handshake_with, self._respec = handshake, respec
        self._transport = transport or transports.lookup(spec)  # an unknown transport fails here, before any task
        self._mechanisms = list(mechanisms)
        self._supervisor = next((m for m in self._mechanisms if isinstance(m, Supervisor)), Supervisor())
        self._offers: Any = None  # s30's offers, when a mechanism says it answers them (offered_by)
        self._call = self._chain_calls()
        self._send = self._chain_sends()
        self._observer: Observer | None = None
        self._session: ClientSession | None = None
        self.generation = 0  # sessions established so far
        self.context: Context | None = None  # what the current session's transport holds
        self._errlog: Any = None
        self._final_tail: list[str] = []
        self._phase = "connect"
        self._closing = False
        self._wake = anyio.Event()  # set: leave the current session, or stop waiting (to close, or to reconnect now)
        self._changed = anyio.Event()  # set (and replaced) by the owner after each attempt at a session
        self._finished = 0  # attempts at a session that have ended, well or not
        self._done = anyio.Event()
        self._lock = anyio.Lock()
        self._asked = False  # reconnect() wants an attempt now: the owner skips its wait (cleared when one starts)
        self._waiting = False  # the owner is in a wait between sessions
        self._private: Connections | None = None  # set by connect(): it owns its own supervisor task
        for mechanism in self._mechanisms:
            mechanism.bind(self)

    # -- the client protocols --

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
        except (_Unlisted, TimeoutError) as exc:
            self._phase = "tools/list"
            raise ToolError(f"server '{self.name}': {await self._explain(exc)}") from None

    @property
    def renewable(self) -> bool:
        """Whether ``reconnect()`` can open a new session: it connected once and is not closed."""
        return not (self._done.is_set() or self._closing or self.generation == 0)

    async def reconnect(self) -> bool:
        """Open a fresh session now: skips a wait between sessions, revives a connection that gave up,
        or replaces a working session (a stdio server is spawned again). Returns whether the
        connection is connected afterwards; False at once if it is not ``renewable``.
        """
        if not self.renewable:
            return False
        async with self._lock:
            finished, self._asked = self._finished, True
            if self.state is State.CONNECTED:
                self.set_state(State.PENDING, "reconnecting: asked to")
                self._wake.set()  # leave the working session
            elif self._waiting:
                self._wake.set()  # cut the wait short
            # else an attempt is under way, or the owner is about to wait (and sees _asked): its outcome is ours
            await self._attempted(finished)
        return self.state is State.CONNECTED

    async def renew(self, generation: int) -> bool:
        """Replace session ``generation`` with a new one, quietly (s25: re-initialize). Once per
        generation however many callers ask: a caller whose session was already replaced must
        not tear down the fresh one. Returns whether the connection is connected afterwards."""
        async with self._lock:
            if self.generation == generation and self.state is State.CONNECTED:
                finished = self._finished
                self._wake.set()
                await self._attempted(finished)
        return self.state is State.CONNECTED

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (``notifications/roots/list_changed``); it lists them again when it wants."""
        if self._session is not None and self.state is State.CONNECTED:
            import warnings

            with warnings.catch_warnings():  # roots are deprecated as of 2026-07-28 (SEP-2577), and still widely served
                warnings.simplefilter("ignore")
                await self._session.send_roots_list_changed()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The last lines the server wrote to stderr (a process's; empty for a URL transport)."""
        process = self.context.process if self.context else None
        if self._errlog is None or self._errlog.closed or process is None:
            return self._final_tail[-lines:]
        return process.stderr_tail(lines)

    def close_soon(self) -> None:
        """Ask the owner task to leave the session and end; ``aclose()`` also waits for it."""
        self._closing = True
        self._wake.set()

    async def aclose(self) -> None:
        """Leave the session and stop the server (stdio). Idempotent."""
        self.close_soon()
        await self._done.wait()
        if self._private is not None:
            private, self._private = self._private, None
            await private.__aexit__(None, None, None)

    # -- s30's members, answered by the offers mechanism (harness.resources); empty without it --

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

    def offered_by(self, offers: Any) -> None:
        """s30's mechanism answers the members above (told once, when it is bound)."""
        self._offers = offers

    def _offered(self) -> Any:
        if self._offers is None:
            raise ToolError(f"server '{self.name}': this client does not offer resources or prompts")
        return self._offers

    # -- what mechanisms use: public, so none reaches into another's state --

    def live(self, tool: str | None) -> ClientSession:
        """The current session, or ``ToolError`` saying why there is none."""
        if self.state is not State.CONNECTED or self._session is None:
            what = f"server '{self.name}'" + (f": tool '{tool}'" if tool else "")
            reason = f": {self.reason}" if self.reason else ""
            raise ToolError(f"{what}: not connected ({self.state.value}{reason})")
        return self._session

    def begin(self, phase: str) -> None:
        """Name what the opening does now (``resources/list``): a failure or timeout then names it."""
        self._phase = phase

    async def request(self, what: str, request: Awaitable[Any], limit: float, name: str) -> Any:
        """One request under ``limit`` s (the timeout ``name``): its result, or ``ToolError`` naming it."""
        try:
            with anyio.fail_after(limit):
                return await request
        except TimeoutError:
            raise ToolError(f"server '{self.name}': {what}: no answer within {limit:g} s ({self.timeouts.explain(name)})") from None
        except MCPError as exc:
            raise ToolError(f"server '{self.name}': {what}: error {exc.code}: {printable(exc.message, 200)}") from None

    async def relist_tools(self, session: ClientSession) -> list[dict[str, Any]]:
        """tools/list again on ``session`` (s30: after list_changed), with every bound and cut of the first."""
        return await self._list(session)

    def fail(self, reason: str, error: ServerError | None = None) -> None:
        """The session is lost or an attempt failed: ``failed``, then at once what the supervisor says.

        Deciding here, where the failure is seen, keeps the order of states the same on
        every run: failed, then (s28) ``pending`` with the wait, or failed for good.
        """
        self.reason = reason
        self.error = error or ServerError(f"server '{self.name}': {reason}{self._details()}")
        self.set_state(State.FAILED, reason)
        if self.generation and not self._closing:  # not the first connect (its caller is told), nor closing
            self._supervisor.failed()

    def set_state(self, state: State, reason: str) -> None:
        changed = state is not self.state
        self.state = state
        if changed and self._observer is not None:
            self._observer(state, reason)

    def post(self, kind: str, **fields: Any) -> None:
        """Record an event in the transcript (posted: safe inside an SDK callback)."""
        if self.transcript is not None:
            self.transcript.post(kind, **fields)

    def say(self, kind: str, text: str) -> None:
        self.post(kind, text=text)
        if kind == "warning" and self._warn is not None:
            with suppress(Exception):  # a UI's callback must not break the session it reports on
                self._warn(text)

    # -- calls --

    def _chain_calls(self) -> Callable[[str, dict[str, Any]], Awaitable[ToolResult]]:
        call: Callable[[str, dict[str, Any]], Awaitable[ToolResult]] = self._call_once
        for mechanism in reversed(self._mechanisms):  # the first mechanism's hook is the outermost
            call = _wrap_call(mechanism, call)
        return call

    def _chain_sends(self) -> Send:
        async def sent(call: Call, **more: Any) -> Any:
            return await call.session.call_tool(call.tool, call.arguments, progress_callback=call.progressed, **more)

        send: Send = sent
        for mechanism in reversed(self._mechanisms):
            send = _wrap_send(mechanism, send)
        return send

    async def _call_once(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        session = self.live(tool)
        where = f"server '{self.name}': tool '{tool}'"
        limit = self.timeouts.call
        with anyio.CancelScope(deadline=anyio.current_time() + limit) as scope:

            async def progressed(progress: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + limit  # the server is working: the call timeout starts again
                done = f"{progress:g}/{total:g}" if total else f"{progress:g}"
                self.say("note", f"{self.name}: {tool}: progress {done}" + (f": {message}" if message else ""))
                if self._progress is not None:
                    self._progress(f"{self.name}/{tool}: {done}" + (f": {printable(message, 100)}" if message else ""))

            try:
                result = await self._send(Call(session, tool, arguments, where, progressed, scope, limit))
            except MCPError as exc:
                await self._call_failed(exc, where)
            except UnsendableFrame as exc:  # refused before sending: the session is untouched
                raise ToolError(f"{where}: {exc}") from None
        if scope.cancelled_caught:
            raise ToolError(f"{where}: no answer within {limit:g} s ({self.timeouts.explain('call')})")
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
        if exc.code == types.CONNECTION_CLOSED:
            # What the transport says first (a frame over the limit, a dropped stream), then
            # the SDK's own words if it has more than "Connection closed", then the exit code.
            said = f": {exc.message}" if exc.message and exc.message != "Connection closed" else ""
            self.fail(self._fault() or f"connection lost{said or await self._exit_note()}")
            self._wake.set()  # the owner task leaves the dead session (and asks the supervisor)
            raise ToolError(f"{where}: {self.reason}{self._details()}") from None
        raise ToolError(f"{where}: protocol error {exc.code}: {exc.message}") from None

    async def _list(self, session: ClientSession) -> list[dict[str, Any]]:
        """Every page, all of them within the list timeout, at most ``Limits.pages``; then the caps."""
        tools: list[dict[str, Any]] = []
        cursors: set[str] = set()
        cursor, pages, more = None, 0, False
        with anyio.CancelScope(deadline=anyio.current_time() + self.timeouts.list) as scope:
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                pages += 1
                tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
                if not (cursor := page.next_cursor):
                    break
                if len(tools) > self.limits.tools:
                    more = True  # enough to cut at the tools limit: the rest would be cut anyway
                    break
                if cursor in cursors:
                    raise _Unlisted(f"tools/list: the server sent cursor '{printable(cursor, 40)}' a second time, "
                                    f"after {pages} pages (a loop; a cursor must lead on)")
                if pages >= self.limits.pages:
                    raise _Unlisted(f"tools/list: more than {self.limits.pages} pages ({self.limits.explain('pages')})")
                cursors.add(cursor)
        if scope.cancelled_caught:
            if not pages:
                raise TimeoutError  # no answer at all: the connection says so, naming the timeout
            raise _Unlisted(f"tools/list: not finished within {self.timeouts.list:g} s, after {pages} pages "
                            f"({self.timeouts.explain('list')})")
        tools, warnings = trimmed(tools, self.limits, more)
        for warning in warnings:
            self.say("warning", f"{self.name}: {warning}")
        self.tools = [t for t in tools if not _needs_tasks(t)]
        for left in (t for t in tools if _needs_tasks(t)):
            self.say("note", f"{self.name}: tool '{printable(left['name'], 80)}' left out: it can only run as a task "
                             "(execution.taskSupport is \"required\"), which this client does not do")
        return self.tools

    # -- the owner task: opens, re-opens and closes sessions, all in one task --

    async def _run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with tempfile.TemporaryFile() as errlog:
            self._errlog = errlog
            try:
                await self._serve(task_status)
            finally:
                self._final_tail = self.stderr_tail(50)
                if self.state is not State.FAILED:
                    self.set_state(State.CLOSED, "closed")
                self._done.set()

    async def _serve(self, task_status: anyio.abc.TaskStatus[None]) -> None:
        while not self._closing:
            self._wake = anyio.Event()
            self._asked = False  # this attempt answers whoever asked for one
            try:
                if self.generation and self._respec is not None:
                    self.spec = self._respec()  # a new session: variables are expanded again (a missing one fails it)
                async with self._open() as session:
                    await self._handshake(session)
                    self._session = session
                    self.generation += 1
                    self._supervisor.established()
                    self.set_state(State.CONNECTED, "session established")
                    if self.generation == 1:
                        task_status.started()
                    self._attempt_ended()
                    async with anyio.create_task_group() as beside:
                        for mechanism in self._mechanisms:
                            beside.start_soon(mechanism.beside, session)
                        await self._wake.wait()
                        beside.cancel_scope.cancel()
                    self._session = None
            except Exception as exc:  # anything while opening: one ServerError that names the server
                self._session = None
                if isinstance(exc, (ServerError, ConfigError)):  # spawn failed, or a variable is missing: complete
                    self.fail(str(exc), exc if isinstance(exc, ServerError) else ServerError(str(exc)))
                else:
                    self.fail(await self._explain(exc))
                if not self.generation:
                    raise self.error from None  # Connections.open raises it to the caller
                self._attempt_ended()
            if self._closing or self.state is not State.FAILED and self.state is not State.PENDING:
                continue  # closing; or a session left on purpose (re-initialize): open the next one at once
            await self._supervisor.rest(self._ready_to_rest)
            self._waiting = False

    def _attempt_ended(self) -> None:
        self._finished += 1
        self._changed.set()
        self._changed = anyio.Event()

    async def _attempted(self, finished: int) -> None:
        """Wait until an attempt at a session ends after ``finished`` attempts had."""
        while self._finished == finished:
            await self._changed.wait()

    def _ready_to_rest(self) -> anyio.Event | None:
        """Get ready to wait: the event a call, ``reconnect()`` or closing sets; None if one was asked meanwhile."""
        self._wake = anyio.Event()
        if self._asked or self._closing:
            return None
        self._waiting = True
        return self._wake

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[ClientSession]:
        """Transport, tapped streams, ClientSession; closed in reverse when the block ends."""
        spec = self.spec
        self._phase = "connect"
        self.context = context = Context(self.timeouts, self.limits, auth=self._auth, errlog=self._errlog, label=self._label,
                                         trace=self._tap.trace(spec.name) if self._tap is not None else None)
        if self._tap is not None:
            self._tap.new_session(spec.name)
        async with self._transport(spec, context) as (read, write):
            if self._tap is not None:
                read, write = self._tap.tap(spec.name, read, write)
            read, write = guard(read, write, errors=context.errors, warn=lambda text: self.say("warning", f"{self.name}: {text}"))
            options: dict[str, Any] = {"client_info": CLIENT_INFO, "message_handler": self._on_message}
            for mechanism in self._mechanisms:
                options.update(mechanism.options())
            async with ClientSession(read, write, **options, **self._options) as session:
                yield session

    async def _handshake(self, session: ClientSession) -> None:
        self._phase = "initialize"
        await self._handshake_with(session, self.timeouts)
        result = session.initialize_result
        self.capabilities = result.capabilities.model_dump(by_alias=True, mode="json", exclude_none=True) if result else {}
        watch = self.context.watch if self.context else None
        if watch is not None and watch.session_id:
            self._label(watch.session_id, "session")
        self._phase = "tools/list"
        await self._list(session)
        for mechanism in self._mechanisms:
            await mechanism.opened(session)

    def _fault(self) -> str | None:
        """Why the transport ended the session's stream, when it said (``Context.fault``)."""
        return self.context.fault if self.context else None

    async def _explain(self, exc: BaseException) -> str:
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        if isinstance(exc, TimeoutError):
            name = "list" if self._phase == "tools/list" else "connect"
            return f"no answer to {self._phase} within {getattr(self.timeouts, name):g} s ({self.timeouts.explain(name)})"
        if isinstance(exc, _Unlisted):
            return str(exc)
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
            if fault := self._fault():
                return f"{fault} during {self._phase}"
            code = await self._exit_code()
            return f"exited with code {code} during {self._phase}" if code is not None else f"connection closed during {self._phase}"
        if isinstance(exc, MCPError):
            return f"{self._phase}: error {exc.code}: {exc.message}"
        if type(exc).__module__.startswith(("httpx", "httpcore")):  # cannot reach: the type says how
            return f"{self._phase}: cannot reach {self.spec.where()}: {type(exc).__name__}"
        return f"{self._phase}: {type(exc).__name__}: {exc}"

    async def _exit_code(self) -> int | None:
        """The server process's exit code (it is already going: the longer grace); None if there is none."""
        return await self.context.exit_code() if self.context else None

    async def _exit_note(self) -> str:
        code = await self._exit_code()
        return f": the server exited with code {code}" if code is not None else ""

    def _details(self) -> str:
        """``; command: ...; stderr:`` and the last lines, for a server that runs as a process (stdio)."""
        if self.context is None or self.context.process is None:
            return ""
        lines = self.stderr_tail()
        return f"; command: {self.spec.where()}" + ("; stderr:\n" + "\n".join(f"  {line}" for line in lines) if lines else "; no stderr")

    # -- reporting: these run inside SDK callbacks, so they post (never raise on output) --

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.say("warning", f"{self.name}: skipped a line that is not JSON-RPC: {message}")
        else:
            for mechanism in self._mechanisms:
                mechanism.notified(message)
        await anyio.lowlevel.checkpoint()

    def _label(self, secret: str, kind: str) -> None:
        # Session ids let whoever holds them act in the session: a secret, named in every output.
        if self.transcript is not None:
            self.transcript.redact.add(secret, f"<{self.name}-{kind}-{self.generation + 1}>")
        self.say("note", f"{self.name}: {kind.replace('-', ' ')} {secret}")


def _wrap_call(mechanism: Mechanism, inner: Callable[[str, dict[str, Any]], Awaitable[ToolResult]]) -> Any:
    async def call(tool: str, arguments: dict[str, Any]) -> ToolResult:
        return await mechanism.call(tool, arguments, lambda: inner(tool, arguments))

    return call


def _wrap_send(mechanism: Mechanism, inner: Send) -> Send:
    async def send(call: Call, **more: Any) -> Any:
        return await mechanism.send(call, lambda call, **extra: inner(call, **more, **extra))

    return send


def plugged(names: Sequence[str], options: dict[str, Any]) -> list[Mechanism]:
    """The mechanisms ``names`` plug in (each ``module:plug``), taking their options out of ``options``."""
    found = []
    for name in names:
        module, _, function = name.partition(":")
        mechanism = getattr(importlib.import_module(module), function)(options)
        if mechanism is not None:
            found.append(mechanism)
    return found


# --- owners --------------------------------------------------------------------------


class Connections:
    """Owns connections. Each runs in its own task, so each is closed by the task that opened it.

        async with Connections(transcript) as conns:
            docs = await conns.open(ServerSpec("docs", "stdio", "python", ("-m", "mock_servers.docs", ...)))

    Leaving the block closes every connection (in parallel), also on errors and Ctrl-C.
    """

    def __init__(self, transcript: Transcript | None = None, *, timeouts: Timeouts | None = None,
                 limits: Limits | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None, mechanisms: Sequence[str] = DEFAULT_MECHANISMS) -> None:
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
        plugs = plugged(self.mechanisms if mechanisms is None else mechanisms, options)
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
