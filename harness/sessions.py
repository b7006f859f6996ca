"""The owner of one connection's sessions: opens, re-opens and closes them, all in one task.

``SessionOwner`` is the half of ``harness.connection.MCPConnection`` that keeps the
session: the transport and ``ClientSession`` (``_open``), the handshake, the state and its
one clear error per failure, and the loop of the owner task, which anyio needs (a task
group is entered and exited in the same task). ``reconnect()`` opens a fresh session on the
same connection; after a loss, the supervisor hook (``harness.hooks.Supervisor``) says
whether to wait for one. The other half, ``MCPConnection``, is what a caller uses: calls,
listings, the client protocols.

Introduced by s23, split from the connection by the composition issue (17). Not handled
here: what happens after a loss beyond staying failed (s28's supervisor).
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from harness import transports
from harness.client import Observer
from harness.errors import ConfigError, ServerError, ToolError
from harness.echo import line as printable
from harness.guard import guard
from harness.hooks import Mechanism, Supervisor
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.transports.context import Context
from harness.wire import WireTap

CLIENT_INFO = types.Implementation(name="mcp-course-harness", version="0.1.0")
STDERR_TAIL_LINES = 5

# Opens a session: done, or raises. What it returns is a line for the transcript (s34: how the
# era was negotiated), or None when there is nothing to say beyond "connected".
Handshake = Callable[[ClientSession, Timeouts], Awaitable["str | None"]]


class Unlisted(Exception):
    """A tools/list that went past a bound: the message says which, in a few words."""


class InPhase(Exception):
    """A handshake of more than one step (s34: ``server/discover``, then ``initialize``) failed in ``phase``.

    The connection names that step in its error, then judges ``error`` as if that step had raised it.
    """

    def __init__(self, phase: str, error: BaseException) -> None:
        super().__init__(phase)
        self.phase, self.error = phase, error


class SessionOwner:
    """State, sessions and the owner task of one server's connection."""

    def __init__(self, spec: ServerSpec, *, tap: WireTap | None, auth: Any, timeouts: Timeouts, transcript: Transcript | None,
                 session_options: Mapping[str, Any], handshake: Handshake, transport: transports.Transport | None,
                 respec: Callable[[], ServerSpec] | None, limits: Limits | None, mechanisms: Sequence[Mechanism],
                 warn: Callable[[str], None] | None) -> None:
        self.name, self.spec = spec.name, spec
        self.state = State.PENDING
        self.error: ServerError | None = None  # why the connection is failed, in full
        self.reason = ""  # the same, in a few words, for later calls
        self.capabilities: dict[str, Any] = {}  # what the server declared: at initialize, or in its discover result (s34)
        self.protocol: str | None = None  # the protocol version the current session speaks (s34: its era)
        self.timeouts, self.limits, self.transcript = timeouts, limits or Limits(), transcript
        self.generation = 0  # sessions established so far
        self.context: Context | None = None  # what the current session's transport holds
        self._warn = warn  # also told every warning: for a UI with no transcript
        self._tap, self._auth, self._options = tap, auth, dict(session_options)
        self._handshake_with, self._respec = handshake, respec
        self._transport = transport or transports.lookup(spec)  # an unknown transport fails here, before any task
        self._mechanisms = list(mechanisms)
        self._supervisor = next((m for m in self._mechanisms if isinstance(m, Supervisor)), Supervisor())
        # Told every result in the guard: only the mechanisms that look, so a frame costs nothing more without them.
        self._answered = [m.answered for m in self._mechanisms if type(m).answered is not Mechanism.answered]
        self._observer: Observer | None = None
        self._session: ClientSession | None = None
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

    async def _opened(self, session: ClientSession) -> None:
        """After the handshake: what the connection lists before the session is published."""

    # -- renewing and closing --

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

    def close_soon(self) -> None:
        """Ask the owner task to leave the session and end; ``aclose()`` also waits for it."""
        self._closing = True
        self._wake.set()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The last lines the server wrote to stderr (a process's; empty for a URL transport)."""
        process = self.context.process if self.context else None
        if self._errlog is None or self._errlog.closed or process is None:
            return self._final_tail[-lines:]
        return process.stderr_tail(lines)

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

    # -- the owner task --

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
                    said = next((up for mechanism in self._mechanisms if (up := mechanism.up(session))), None)
                    self.set_state(State.CONNECTED, said or "session established")
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
        warn = lambda text: self.say("warning", f"{self.name}: {text}")  # noqa: E731
        self.context = context = Context(self.timeouts, self.limits, auth=self._auth, errlog=self._errlog, label=self._label,
                                         trace=self._tap.trace(spec.name) if self._tap is not None else None, warn=warn)
        if self._tap is not None:
            self._tap.new_session(spec.name)
        async with self._transport(spec, context) as (read, write):
            if self._tap is not None:
                read, write = self._tap.tap(spec.name, read, write)
            read, write = guard(read, write, errors=context.errors, warn=warn,
                                closed_code=context.closed_code_answers, answered=self._answered)
            options: dict[str, Any] = {"client_info": CLIENT_INFO, "message_handler": self._on_message}
            for mechanism in self._mechanisms:
                options.update(mechanism.options())
            async with ClientSession(read, write, **options, **self._options) as session:
                yield session

    async def _handshake(self, session: ClientSession) -> None:
        self._phase = "initialize"
        try:
            said = await self._handshake_with(session, self.timeouts)
        except InPhase as exc:
            self._phase = exc.phase  # the step that ran, so the error names it
            raise exc.error from None
        offered = session.server_capabilities  # from initialize, or from server/discover (s34)
        self.capabilities = offered.model_dump(by_alias=True, mode="json", exclude_none=True) if offered else {}
        self.protocol = session.protocol_version
        if said:
            self.say("note", f"{self.name}: {said}")
        watch = self.context.watch if self.context else None
        if watch is not None and watch.session_id:
            self._label(watch.session_id, "session")
        self._phase = "tools/list"
        await self._opened(session)

    async def _explain(self, exc: BaseException) -> str:
        return await explain(exc, self._phase, self.spec, self.timeouts, self.context)

    def _details(self) -> str:
        return details(self.spec, self.context, self.stderr_tail())

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


# -- saying what went wrong, from what the session's transport knows --


async def explain(exc: BaseException, phase: str, spec: ServerSpec, timeouts: Timeouts, context: Context | None) -> str:
    """What an attempt at a session failed with, in a few words that name the phase and the timeout."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        name = "list" if phase == "tools/list" else "connect"
        return f"no answer to {phase} within {getattr(timeouts, name):g} s ({timeouts.explain(name)})"
    if isinstance(exc, Unlisted):
        return str(exc)
    server_said = isinstance(exc, MCPError) and context is not None and context.server_sent_closed_code(exc.message)
    if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED and not server_said:
        if context is not None and context.fault:
            return f"{context.fault} during {phase}"
        code = await context.exit_code() if context else None
        return f"exited with code {code} during {phase}" if code is not None else f"connection closed during {phase}"
    if isinstance(exc, MCPError):
        return f"{phase}: error {exc.code}: {printable(exc.message, 200)}"
    if type(exc).__module__.startswith(("httpx", "httpcore")):  # cannot reach: the type says how
        return f"{phase}: cannot reach {spec.where()}: {type(exc).__name__}"
    return f"{phase}: {type(exc).__name__}: {printable(str(exc), 300)}"  # a pydantic text runs over lines: one, escaped


def details(spec: ServerSpec, context: Context | None, lines: list[str]) -> str:
    """``; command: ...; stderr:`` and the last lines, for a server that runs as a process (stdio)."""
    if context is None or context.process is None:
        return ""
    return f"; command: {spec.where()}" + ("; stderr:\n" + "\n".join(f"  {line}" for line in lines) if lines else "; no stderr")

