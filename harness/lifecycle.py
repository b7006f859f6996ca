"""Lifecycle (s28): how long to wait before reconnecting, and how a run shows every state.

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

The wait itself is ``sleep``, handed to each connection (``Connections.open(sleep=...)``),
so tests replace the clock and a whole backoff schedule runs in milliseconds.

``show`` prints each ``Change`` the hub makes as one line::

    state: deploy: connected -> failed: connection lost: the server exited with code 3

Introduced by s28. The connect limits per kind (8 local, 20 remote) are ``hub.LIMITS``;
the three named timeouts (connect, list, call) are ``spec.Timeouts``, set per server by a
config's ``timeouts`` (and Cline's ``timeout``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.errors import ServerError
from harness.hub import Change
from harness.transcript import Transcript


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


def show(transcript: Transcript) -> Callable[[Change], None]:
    """An ``on_change`` for the hub that prints every transition (posted: safe inside a connection's callback)."""

    def shown(change: Change) -> None:
        event = {"kind": "state", "server": change.server, "old": change.old.value if change.old else None,
                 "new": change.new.value, "reason": change.reason}
        transcript.show(transcript.clean(event))  # the hub has recorded it already: print only

    return shown
