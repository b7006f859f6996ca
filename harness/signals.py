"""Running an async main so that Ctrl-C and SIGTERM stop it cleanly, and errors come out as one.

``run(main)`` runs ``main()`` on asyncio inside an anyio cancel scope that SIGINT and
SIGTERM cancel. A cancel scope, not a task cancel: anyio keeps cancelling everything
inside it until it exits, so an SDK await that swallows one ``CancelledError`` cannot keep
a hung call alive, while cleanup that must finish (stopping servers) is shielded where it
runs. If a signal stopped the run, ``Stopped`` is raised after the cleanup, carrying the
conventional exit code (130, 143).

Task groups wrap what their tasks raise in exception groups; ``run`` raises the one
exception that matters instead (a usage error, then a signal, then a harness error, then a
closed pipe), so a caller prints one line. A group with none of those is a bug, and its
traceback shows.

Used by the lesson runner and the user CLI. Not handled here: a second Ctrl-C during
cleanup (the shutdown graces bound it), Windows consoles.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from harness.errors import HarnessError, UsageError

T = TypeVar("T")
SIGNALS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated")}


class Stopped(Exception):
    """A signal ended the run; carries the exit code and the word for it."""

    def __init__(self, code: int, word: str) -> None:
        super().__init__(word)
        self.code = code


def run(main: Callable[[], Awaitable[T]]) -> T:
    """``asyncio.run(main())`` that stops on SIGINT/SIGTERM and raises one exception, not a group."""
    try:
        return asyncio.run(_guarded(main))
    except BaseExceptionGroup as group:
        raise first_error(group) from None


async def _guarded(main: Callable[[], Awaitable[T]]) -> T:
    import anyio  # the SDK's async library

    loop = asyncio.get_running_loop()
    caught: list[int] = []
    with anyio.CancelScope() as scope:

        def stop(signum: int) -> None:
            if not caught:
                caught.append(signum)
                scope.cancel()

        for signum in SIGNALS:
            loop.add_signal_handler(signum, stop, signum)
        try:
            result = await main()
        finally:
            for signum in SIGNALS:
                loop.remove_signal_handler(signum)
    if caught:
        raise Stopped(*SIGNALS[caught[0]])
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
