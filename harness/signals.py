"""Running an async main so that Ctrl-C and SIGTERM stop it cleanly, and errors come out as one.

``run(main)`` runs ``main()`` on asyncio inside an anyio cancel scope that SIGINT and
SIGTERM cancel. A cancel scope, not a task cancel: anyio keeps cancelling everything
inside it until it exits, so an SDK await that swallows one ``CancelledError`` cannot keep
a hung call alive, while cleanup that must finish (stopping servers) is shielded where it
runs. If a signal stopped the run, ``Stopped`` is raised after the cleanup, carrying the
conventional exit code (130, 143).

Outside the event loop (before it starts, after it ends) the signals are Python-level
handlers that raise ``Stopped``, so ``finally`` blocks run there too and a temporary
folder is removed: ``trapped()`` installs them for a whole command, ``run`` for itself if
nobody did; ``held()`` keeps them back for a few lines that must not be cut in two.
Only the first signal stops; later ones are ignored while the first one's
cleanup runs (the shutdown graces bound it), and ``finish(action)`` uses that to complete
an action a signal cut short.
SIGKILL cannot be caught: what it leaves (a temporary folder) stays, and the children
die by their own means (``harness/transports/stdio.py``, ``mock_servers/lifeline.py``).

Task groups wrap what their tasks raise in exception groups; ``run`` raises the one
exception that matters instead (a usage error, then a signal, then a harness error, then a
closed pipe), so a caller prints one line. A group with none of those is a bug, and its
traceback shows.

Used by the lesson runner and the user CLI. Not handled here: Windows consoles; signals
in a thread other than the main one (the handlers are installed only from the main thread).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from harness.errors import HarnessError, UsageError

T = TypeVar("T")
SIGNALS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated")}


class Stopped(Exception):
    """A signal ended the run; carries the exit code and the word for it."""

    def __init__(self, code: int, word: str) -> None:
        super().__init__(word)
        self.code = code


class Trap:
    """SIGINT and SIGTERM for one command: the first one stops it, later ones are ignored."""

    def __init__(self) -> None:
        self.caught: list[int] = []  # the first signal, once one came

    def first(self, signum: int) -> bool:
        """Note ``signum``; True if it is the first signal (the one that stops the command)."""
        if self.caught:
            return False
        self.caught.append(signum)
        return True

    def stopped(self) -> Stopped:
        return Stopped(*SIGNALS[self.caught[0]])

    def handler(self, signum: int, frame: Any) -> None:
        """The Python-level handler, outside the event loop: raise ``Stopped`` once."""
        if self.first(signum):
            raise self.stopped()


@contextmanager
def trapped(trap: Trap | None = None) -> Iterator[Trap]:
    """Install ``trap``'s handlers for SIGINT and SIGTERM for the block (main thread only), then restore."""
    trap = trap or Trap()
    if threading.current_thread() is not threading.main_thread():
        yield trap
        return
    previous = {signum: signal.signal(signum, trap.handler) for signum in SIGNALS}
    try:
        yield trap
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back in this thread for the block; one that came meanwhile is handled after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def finish(action: Callable[[], None]) -> None:
    """Run ``action`` to the end, even if a signal lands on it: a trap raises only once, so a second go cannot be cut short."""
    try:
        action()
    except (Stopped, KeyboardInterrupt):
        action()
        raise


def run(main: Callable[[], Awaitable[T]], trap: Trap | None = None) -> T:
    """``asyncio.run(main())`` that stops on SIGINT/SIGTERM and raises one exception, not a group."""
    try:
        if trap is not None:  # the caller's handlers are in place already
            return asyncio.run(_guarded(main, trap))
        with trapped() as own:
            return asyncio.run(_guarded(main, own))
    except BaseExceptionGroup as group:
        raise first_error(group) from None


async def _guarded(main: Callable[[], Awaitable[T]], trap: Trap) -> T:
    import anyio  # the SDK's async library

    loop = asyncio.get_running_loop()
    in_main_thread = threading.current_thread() is threading.main_thread()
    with anyio.CancelScope() as scope:

        def stop(signum: int) -> None:
            if trap.first(signum):
                scope.cancel()

        if trap.caught:  # a signal came before the loop ran
            scope.cancel()
        previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
        for signum in SIGNALS:
            loop.add_signal_handler(signum, stop, signum)
        try:
            result = await main()
        finally:
            # Hazard: remove_signal_handler sets the default action (death, for SIGTERM) until
            # the previous handler is back; blocking both signals in this thread closes that gap.
            with held():
                for signum in SIGNALS:
                    loop.remove_signal_handler(signum)
                    if in_main_thread and callable(previous[signum]):
                        signal.signal(signum, previous[signum])
    if trap.caught:
        raise trap.stopped()
    return result


def reader_left() -> int:
    """``... | head``: the reader left. Point stdout at /dev/null so the exit flush is quiet; exit 0."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a real file (a test's StringIO): nothing to silence
    return 0


def first_error(group: BaseExceptionGroup) -> BaseException:
    """The one exception a group stands for, or the group itself if it holds only bugs."""
    leaves: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            leaves.append(exc)

    walk(group)
    for kind in (UsageError, Stopped, HarnessError, BrokenPipeError, KeyboardInterrupt):
        for leaf in leaves:
            if isinstance(leaf, kind):
                return leaf
    return group
