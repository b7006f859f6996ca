"""Lifecycle (s28): the supervisor that reconnects after a loss, and how a run shows every state.

A server's life is the hub's states (``harness.spec.State``); s28 makes every transition
visible and adds what happens after a failure::

    pending -> connected -> failed -> pending (retry 1 in 1 s) -> connected     respawned, recovered
                                   -> pending (retry 5 in 16 s) -> failed    gave up after 5 tries
    failed (gave up) -- a call, or hub.reconnect(name) --> pending -> connected

``Backoff`` is the policy a connection asks after each failure: wait ``first`` seconds,
then twice that each time, at most ``cap``, and give up after ``attempts`` failures in a
row. The numbers are Claude Code's (1 s doubling to a 30 s cap, 5 attempts). Unlike Claude
Code it applies to every transport: a stdio server is spawned again, with its ``${VAR}``
expanded again (``config.connector`` hands the connection a ``respec``). A connection
waiting between attempts keeps its tools in the pool, and a call cuts the wait short
(reconnect on next use); ``hub.reconnect(name)`` does the same by hand.

``Supervisor`` plugs the policy into a connection (a ``harness.hooks.Supervisor``, with an
``around_call`` hook): after each failure of a connection that was up, it asks the policy at
once (so the order of states is the same on every run), shows ``pending`` with the wait or
notes that it gave up, waits between attempts, and reconnects on the next call. The wait
itself is ``sleep``, given to each supervisor (``Supervisor(policy, sleep=...)``), so tests
replace the clock and a whole backoff schedule runs in milliseconds. Without a supervisor a
failed connection stays failed until ``reconnect()``.

``show`` prints each ``Change`` the hub makes as one line::

    state: deploy: connected -> failed: connection lost: the server exited with code 3

Introduced by s28. The connect limits per kind (local from the cores and the load, 20 remote) are ``hub.LIMITS``;
the three named timeouts (connect, list, call) are ``spec.Timeouts``, set per server by a
config's ``timeouts`` (and Cline's ``timeout``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from harness import hooks
from harness.client import Host
from harness.connection import Reconnect
from harness.hooks import Proceed
from harness.jsonvalue import JSON
from harness.errors import ServerError
from harness.results import ToolResult
from harness.spec import State
from harness.transcript import Transcript

if TYPE_CHECKING:
    from harness.hub import Change  # show's argument: the hub is a layer above, never imported here

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Backoff:
    """A reconnect policy: ``first`` s, doubling, at most ``cap`` s; give up after ``attempts`` failures in a row."""

    first: float = 1.0
    cap: float = 30.0
    attempts: int = 5

    def __call__(self, failures: int, error: ServerError) -> float | None:
        if failures > self.attempts:
            return None
        return min(self.first * 2 ** (failures - 1), self.cap)

    def schedule(self) -> list[float]:
        """Every wait, in order, before giving up: ``[1, 2, 4, 8, 16]`` by default."""
        return [self(n, ServerError("")) or 0.0 for n in range(1, self.attempts + 1)]


class Supervisor(hooks.Supervisor):
    """A connection's life after a loss: the policy's waits, giving up, reconnecting on the next call."""

    order = 10

    def __init__(self, policy: Reconnect, sleep: Sleep = anyio.sleep) -> None:
        self.policy, self.sleep = policy, sleep
        self.failures = 0  # failures since the last session was established: what the policy is told
        self.retry_in: float | None = None  # the policy's wait before the next attempt; None: gave up

    def bind(self, host: Host) -> None:
        self._conn = host

    def failed(self) -> None:
        conn = self._conn
        self.failures += 1
        self.retry_in = self.policy(self.failures, conn.error or ServerError(conn.reason))
        if self.retry_in is not None:
            conn.set_state(State.PENDING, f"retry {self.failures} in {self.retry_in:g} s")
        elif self.failures > 1:
            conn.say("note", f"{conn.name}: gave up after {self.failures - 1} attempts to reconnect; the next call, or a reconnect, tries again")

    def established(self) -> None:
        self.failures = 0

    async def rest(self, ready: Callable[[], anyio.Event | None]) -> None:
        if self.retry_in is None:
            self.failures = 0  # the policy gave up: if revived, it counts afresh
        woken = ready()
        if woken is None:
            return
        if self.retry_in is None:
            await woken.wait()  # gave up: rest until a call, reconnect() or closing
            return
        async with anyio.create_task_group() as tg:  # the wait, cut short by a call, reconnect() or closing

            async def cut_short() -> None:
                await woken.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(cut_short)
            await self.sleep(self.retry_in)
            tg.cancel_scope.cancel()

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        conn = self._conn
        if conn.state in (State.PENDING, State.FAILED) and conn.generation > 0:
            await conn.reconnect()  # reconnect on next use: a lost session is tried again at once
        return await proceed()


def show(transcript: Transcript) -> Callable[[Change], None]:
    """An ``on_change`` for the hub that prints every transition (posted: safe inside a connection's callback)."""

    def shown(change: Change) -> None:
        event = {"kind": "state", "server": change.server, "old": change.old.value if change.old else None,
                 "new": change.new.value, "reason": change.reason}
        transcript.show(transcript.clean(event))  # the hub has recorded it already: print only

    return shown
