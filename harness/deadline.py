"""The call timeout's timer: ``Deadline``, one per ``tools/call`` (``harness.connection``).

    deadline = Deadline(limit)       # armed: after limit s the calling task is cancelled
    try:
        try:
            result = await request
        finally:
            deadline.close()
    except CancelledError:
        if not deadline.expired():   # a Ctrl-C, a closing hub: not the timeout
            raise
        ...                          # the timeout: the task carries no cancellation on

It runs on every call, so it is a bare event-loop timer and not an anyio
``CancelScope(deadline=...)``: that costs about twice the CPU, and with the SDK's own scope
around each request it was 5% of a call over stdio. The timer cancels the task as
``asyncio.timeout`` does (``Task.cancel``), which anyio's scopes let pass (anyio 4 counts a
task's cancellations), and ``expired()`` tells that cancellation from any other. One that
lands in the very step the timer fires reads as the timeout, as with ``asyncio.timeout``;
its scope is still cancelled, and ends its block at the caller's next checkpoint.
``restart()`` is how progress notifications start the timeout again (s28).

Not handled here: trio (the harness
runs on asyncio), a wait the task shields from cancellation (the timer cannot cut it).
"""

from __future__ import annotations

import asyncio


class Deadline:
    """A timer that cancels the calling task once ``limit`` s pass; ``restart()`` starts it again."""

    __slots__ = ("_fired", "_handle", "_limit", "_loop", "_pending", "_task")

    def __init__(self, limit: float) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("a Deadline times a task: make it inside one")
        self._loop, self._task = asyncio.get_running_loop(), task
        self._limit, self._fired = limit, False
        self._pending = self._task.cancelling()  # cancellations asked of the task before this call
        self._handle = self._loop.call_later(limit, self._fire)

    def restart(self) -> None:
        if not self._fired:
            self._handle.cancel()
            self._handle = self._loop.call_later(self._limit, self._fire)

    def close(self) -> None:
        self._handle.cancel()

    def expired(self) -> bool:
        """Whether the cancellation being handled is this timeout's alone (it is then taken back from the task)."""
        return self._fired and self._task.uncancel() <= self._pending

    def _fire(self) -> None:
        self._fired = True
        self._task.cancel()
