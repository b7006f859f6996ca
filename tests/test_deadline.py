"""The call timeout's timer (``harness.deadline.Deadline``) beside anyio's cancel scopes (issue 23).

The timer cancels the calling task natively; these pin that such a cancellation is told
apart from every other one: a Ctrl-C or a closing hub (an anyio scope cancelled) is not
turned into a timeout, and one that lands in the same step as the timeout still ends its
scope; the task carries no cancellation on after a timeout it has handled. The timeout against a real server that
hangs is test_transport's and test_lifecycle's.
"""

from __future__ import annotations

import asyncio
import math

import anyio
import pytest
from limits import scaled

from harness.deadline import Deadline


def run(main) -> None:
    anyio.run(main)


def test_a_timeout_is_its_own_and_the_task_goes_on_uncancelled() -> None:
    async def main() -> None:
        deadline = Deadline(0.01)
        with pytest.raises(asyncio.CancelledError):
            await asyncio.sleep(60)
        assert deadline.expired()
        assert asyncio.current_task().cancelling() == 0
        await asyncio.sleep(0)  # not cancelled again: the task carries nothing on

    run(main)


def test_an_outer_cancel_is_not_a_timeout() -> None:
    async def main() -> None:
        with anyio.CancelScope() as scope:
            deadline = Deadline(60)
            scope.cancel()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                assert not deadline.expired()
                raise
            finally:
                deadline.close()
        assert scope.cancelled_caught

    run(main)


def test_an_outer_cancel_in_the_same_step_as_the_timeout_ends_the_scope_at_the_next_checkpoint() -> None:
    # asyncio folds the two into one CancelledError, which anyio then does not claim: the
    # call reports its timeout (as asyncio.timeout would), and the scope, still cancelled,
    # ends its block at the caller's next checkpoint. No cancellation is lost, none is left over.
    async def main() -> None:
        reported = []
        with anyio.CancelScope() as scope:
            deadline = Deadline(60)
            deadline._fire()  # the timer's callback and a Ctrl-C in one step of the loop
            scope.cancel()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                reported.append(deadline.expired())
            finally:
                deadline.close()
            await asyncio.sleep(0)  # the caller goes on after the call's error: the scope's cancellation lands here
            reported.append("not cancelled")
        assert reported == [True]
        assert scope.cancelled_caught
        assert asyncio.current_task().cancelling() == 0

    run(main)


def test_restart_moves_the_timeout_on_and_close_stops_it() -> None:
    limit = scaled(0.1)  # a step of 0.1 s would have to stall this long to let it fire

    async def main() -> None:
        deadline = Deadline(limit)
        for _ in range(math.ceil(2 * limit / 0.1)):  # twice the limit in all: only the restarts keep it from firing
            deadline.restart()
            await asyncio.sleep(0.1)
        deadline.close()
        await asyncio.sleep(limit + 0.1)  # past the last restart's limit: closed, it never fires
        assert not deadline.expired()

    run(main)
