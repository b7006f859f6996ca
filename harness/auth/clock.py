"""The clocks of a sign-in (s26): one that a lesson can move forward, and the connect clock that stops while a person signs in.

- ``SteppedClock``: wall-clock time plus an offset, so a lesson can say "an hour later" and
  the provider refreshes a token that has expired by then; tests inject their own clock.
- ``handshake``: the connection's handshake (``initialize`` under the connect timeout),
  with the connect clock stopped while a person is at the browser step, which
  ``Timeouts.auth`` (300 s) bounds instead. The ``Opener`` of ``harness.auth.needs_auth``
  gets it with the auth. ``person_at_work`` is the pause: the redirect step of
  ``harness.auth.provider`` runs under it. ``connect_clock`` is that clock for any one step
  of a handshake (s34's negotiation runs each step on it).

Introduced by s26. Not handled here: the call clock, which has no pause: a step-up (403)
during a tool call is bounded by the call timeout (``harness.connection``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import anyio

from harness.spec import Timeouts

Clock = Callable[[], float]


class SteppedClock:
    """Wall-clock time plus an offset a lesson can move forward ("an hour later"); tests use their own."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class _ConnectClock:
    """One handshake's connect timeout as a budget of seconds, spent only while nobody is signing in."""

    def __init__(self, seconds: float, scope: anyio.CancelScope) -> None:
        self.scope, self.left, self.pauses = scope, seconds, 0
        scope.deadline = anyio.current_time() + seconds

    def pause(self) -> None:
        if not self.pauses:
            self.left = self.scope.deadline - anyio.current_time()
            self.scope.deadline = math.inf
        self.pauses += 1

    def resume(self) -> None:
        self.pauses -= 1
        if not self.pauses:
            self.scope.deadline = anyio.current_time() + self.left

    def remaining(self) -> float:
        """Seconds of the budget not spent yet (the time a person spent signing in is not spent)."""
        return self.left if self.pauses else max(0.0, self.scope.deadline - anyio.current_time())


# The transports send each request in the context of the task that sent it, so the auth
# flow (in the transport's task) finds the clock of the handshake it serves here.
_connect_clock: ContextVar[_ConnectClock | None] = ContextVar("connect_clock", default=None)


@contextmanager
def connect_clock(seconds: float) -> Iterator[_ConnectClock]:
    """One step of a handshake under ``seconds`` of connect time, stopped while a person signs in.

    ``TimeoutError`` when the budget is spent; the connection names the step and the timeout.
    s34's eras run each of their steps (``server/discover``, ``initialize``) on it, so a
    sign-in in the middle of a negotiation stops the clock in either era.
    """
    with anyio.CancelScope() as scope:
        clock = _ConnectClock(seconds, scope)
        token = _connect_clock.set(clock)
        try:
            yield clock
        finally:
            _connect_clock.reset(token)
    if scope.cancelled_caught:
        raise TimeoutError  # the connection names it: "no answer to initialize within 30 s (connect timeout)"


async def handshake(session: Any, timeouts: Timeouts) -> None:
    """``connection.classic_handshake`` (``initialize`` under the connect timeout), with the
    connect clock stopped while a person signs in; ``Timeouts.auth`` bounds that part."""
    with connect_clock(timeouts.connect):
        await session.initialize()


@contextmanager
def person_at_work() -> Iterator[None]:
    """The connect clock of the handshake under way (if any) stopped, while a person is at the browser step."""
    clock = _connect_clock.get()
    if clock is not None:
        clock.pause()
    try:
        yield
    finally:
        if clock is not None:
            clock.resume()
