"""harness.signals: the first SIGINT/SIGTERM stops a command wherever it lands, later ones
cannot cut its cleanup short, and the handlers are put back afterwards.

The signals are raised in this thread (the main thread of a pytest worker), inside
``trapped()``, so they never reach pytest's own handlers; ``tests/test_exits.py`` and
``tests/test_orphans.py`` send real ones to lessons from outside.
"""

from __future__ import annotations

import signal

import pytest

from harness import signals


def test_outside_the_loop_the_first_signal_raises_stopped_and_a_second_is_ignored():
    before = signal.getsignal(signal.SIGTERM)
    with signals.trapped() as trap:
        with pytest.raises(signals.Stopped) as caught:
            signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGINT)  # during the cleanup the first one started: noted, ignored
    assert (caught.value.code, str(caught.value), trap.caught) == (143, "terminated", [signal.SIGTERM])
    assert signal.getsignal(signal.SIGTERM) == before, "expected the previous SIGTERM handler back after the block"


def test_finish_completes_an_action_a_signal_cut_short():
    done = []

    def action():
        if not done:
            done.append("cut")
            signal.raise_signal(signal.SIGINT)
        else:
            done.append("finished")

    with signals.trapped(), pytest.raises(signals.Stopped) as caught:
        signals.finish(action)
    assert (done, caught.value.code) == (["cut", "finished"], 130)


def test_held_keeps_a_signal_back_until_the_block_ends():
    steps = []
    with signals.trapped() as trap, pytest.raises(signals.Stopped):
        with trap.held():
            signal.raise_signal(signal.SIGTERM)
            steps.append("still running")
        steps.append("not reached")
    assert steps == ["still running"]


def test_the_handler_stays_installed_across_the_event_loop():
    """No moment between the phases where SIGTERM has its default action (death)."""
    import anyio

    seen = []

    async def main():
        seen.append(signal.getsignal(signal.SIGTERM))
        await anyio.sleep(0)

    with signals.trapped() as trap:
        signals.run(main, trap)
        assert seen == [trap.handler] and signal.getsignal(signal.SIGTERM) == trap.handler


def test_run_stops_a_coroutine_on_a_signal_and_raises_after_its_cleanup():
    import anyio

    cleaned = []

    async def main():
        try:
            signal.raise_signal(signal.SIGTERM)
            await anyio.sleep_forever()
        finally:
            cleaned.append(True)

    with pytest.raises(signals.Stopped) as caught:
        signals.run(main)
    assert (cleaned, caught.value.code) == ([True], 143)
