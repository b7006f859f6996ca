"""The owner of one connection's sessions: opens, re-opens and closes them, all in one task.

``SessionOwner`` is the part of a ``harness.connection.MCPConnection`` that keeps the
connection's state and its sessions: the state and its one clear error per failure, the
loop of the owner task, which anyio needs (a task group is entered and exited in the same
task), and what the transcript is told. Each session is opened by the connection's
``harness.opening.Opener``. ``reconnect()`` opens a fresh session on the same connection;
after a loss, the supervisor (``harness.hooks.Supervisor``) says whether to wait for one.

Introduced by s23. Not handled here: opening a session (``harness.opening``), calls and listings
(``harness.calls``), what happens after a loss beyond staying failed (the supervisor).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import IO, TYPE_CHECKING

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.exceptions import MCPError

from harness.errors import ConfigError, ServerError, ToolError
from harness.echo import line as printable
from harness.hooks import Mechanism, Supervisor, overriding
from harness.jsonvalue import JSON, JSONObject
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.transports.context import Context

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from harness.client import Observer
    from harness.opening import Opener

STDERR_TAIL_LINES = 5


class Unlisted(Exception):
    """A tools/list that went past a bound: the message says which, in a few words."""


class Pinned(Exception):
    """The era a config pins (``"protocol"``) is one the server does not speak: the message says what it speaks
    and what to write instead."""


class SessionOwner:
    """State, sessions and the owner task of one server's connection."""

    def __init__(self, spec: ServerSpec, opener: Opener, *, timeouts: Timeouts, limits: Limits, transcript: Transcript | None,
                 respec: Callable[[], ServerSpec] | None, mechanisms: Sequence[Mechanism],
                 warn: Callable[[str], None] | None) -> None:
        self.name, self.spec = spec.name, spec
        self.state = State.PENDING
        self.error: ServerError | None = None  # why the connection is failed, in full
        self.reason = ""  # the same, in a few words, for later calls
        self.capabilities: JSONObject = {}  # what the server declared: at initialize, or in its discover result (s34)
        self.protocol: str | None = None  # the protocol version the current session speaks (s34: its era)
        self.timeouts, self.limits, self.transcript = timeouts, limits, transcript
        self.generation = 0  # sessions established so far
        self.context: Context | None = None  # what the current session's transport holds
        self.session: ClientSession | None = None
        self.errlog: IO[bytes] | None = None  # the server's stderr, while the owner task runs
        self.observer: Observer | None = None
        self.phase = "connect"
        self._opener, self._respec, self._warn = opener, respec, warn
        self._supervisor = next((m for m in mechanisms if isinstance(m, Supervisor)), Supervisor())
        self._alongside = overriding(mechanisms, "alongside")
        self._final_tail: list[str] = []
        self.closing = False
        self.wake = anyio.Event()  # set: leave the current session, or stop waiting (to close, or to reconnect now)
        self._changed = anyio.Event()  # set (and replaced) by the owner after each attempt at a session
        self._finished = 0  # attempts at a session that have ended, well or not
        self.done = anyio.Event()
        self._lock = anyio.Lock()
        self._asked = self._waiting = False  # reconnect() asked for an attempt now (the owner skips its wait); a wait is on

    # -- renewing and closing --

    @property
    def renewable(self) -> bool:
        """Whether ``reconnect()`` can open a new session: it connected once and is not closed."""
        return not (self.done.is_set() or self.closing or self.generation == 0)

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
                self.wake.set()  # leave the working session
            elif self._waiting:
                self.wake.set()  # cut the wait short
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
                self.wake.set()
                await self._attempted(finished)
        return self.state is State.CONNECTED

    def close_soon(self) -> None:  # the owner task leaves the session and ends
        self.closing = True
        self.wake.set()

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The last lines the server wrote to stderr (a process's; empty for a URL transport)."""
        process = self.context.process if self.context else None
        if self.errlog is None or self.errlog.closed or process is None:
            return self._final_tail[-lines:]
        return process.stderr_tail(lines)

    # -- what the connection's parts and its mechanisms use --

    def live(self, tool: str | None) -> ClientSession:
        """The current session, or ``ToolError`` saying why there is none."""
        if self.state is not State.CONNECTED or self.session is None:
            what = f"server '{self.name}'" + (f": tool '{tool}'" if tool else "")
            reason = f": {self.reason}" if self.reason else ""
            raise ToolError(f"{what}: not connected ({self.state.value}{reason})")
        return self.session

    def begin(self, phase: str) -> None:
        """Name what the opening does now (``resources/list``): a failure or timeout then names it."""
        self.phase = phase

    def fail(self, reason: str, error: ServerError | None = None) -> None:
        """The session is lost or an attempt failed: ``failed``, then at once what the supervisor says.

        Deciding here, where the failure is seen, keeps the order of states the same on
        every run: failed, then (s28) ``pending`` with the wait, or failed for good.
        """
        self.reason = reason
        self.error = error or ServerError(f"server '{self.name}': {reason}{self.details()}")
        self.set_state(State.FAILED, reason)
        if self.generation and not self.closing:  # not the first connect (its caller is told), nor closing
            self._supervisor.failed()

    def set_state(self, state: State, reason: str) -> None:
        changed = state is not self.state
        self.state = state
        if changed and self.observer is not None:
            self.observer(state, reason)

    def post(self, kind: str, **fields: JSON) -> None:
        """Record an event in the transcript (posted: safe inside an SDK callback)."""
        if self.transcript is not None:
            self.transcript.post(kind, **fields)

    def say(self, kind: str, text: str) -> None:
        self.post(kind, text=text)
        if kind == "warning" and self._warn is not None:
            with suppress(Exception):  # a UI's callback must not break the session it reports on
                self._warn(text)

    def label(self, secret: str, kind: str) -> None:
        """``secret`` (a session id, which lets whoever holds it act in the session) is named in every output."""
        if self.transcript is not None:
            self.transcript.redact.add(secret, f"<{self.name}-{kind}-{self.generation + 1}>")
        self.say("note", f"{self.name}: {kind.replace('-', ' ')} {secret}")

    async def explain(self, exc: BaseException) -> str:
        return await explain(exc, self.phase, self.spec, self.timeouts, self.context)

    def details(self) -> str:
        return details(self.spec, self.context, self.stderr_tail())

    # -- the owner task --

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with tempfile.TemporaryFile() as errlog:
            self.errlog = errlog
            try:
                await self._serve(task_status)
            finally:
                self._final_tail = self.stderr_tail(50)
                if self.state is not State.FAILED:
                    self.set_state(State.CLOSED, "closed")
                self.done.set()

    async def _serve(self, task_status: anyio.abc.TaskStatus[None]) -> None:
        while not self.closing:
            self.wake = anyio.Event()
            self._asked = False  # this attempt answers whoever asked for one
            try:
                if self.generation and self._respec is not None:
                    self.spec = self._respec()  # a new session: variables are expanded again (a missing one fails it)
                async with self._opener.session(self) as session:
                    self.session = session
                    self.generation += 1
                    self._supervisor.established()
                    said = self._opener.said
                    self.set_state(State.CONNECTED, said.state if said is not None and said.state else "session established")
                    if self.generation == 1:
                        task_status.started()
                    self._attempt_ended()
                    async with anyio.create_task_group() as beside:
                        for mechanism in self._alongside:
                            beside.start_soon(mechanism.alongside, session)
                        await self.wake.wait()
                        beside.cancel_scope.cancel()
                    self.session = None
            except Exception as exc:  # anything while opening: one ServerError that names the server
                self.session = None
                if isinstance(exc, (ServerError, ConfigError)):  # spawn failed, or a variable is missing: complete
                    self.fail(str(exc), exc if isinstance(exc, ServerError) else ServerError(str(exc)))
                else:
                    self.fail(await self.explain(exc))
                if not self.generation:
                    raise self.error from None  # Connections.open raises it to the caller
                self._attempt_ended()
            if self.closing or self.state is not State.FAILED and self.state is not State.PENDING:
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
        self.wake = anyio.Event()
        if self._asked or self.closing:
            return None
        self._waiting = True
        return self.wake


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
    if isinstance(exc, Pinned):
        return f"{phase}: {exc}"
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

