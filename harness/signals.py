"""Running a command so that Ctrl-C and SIGTERM stop it cleanly, whenever they land, and errors come out as one.

``trapped()`` installs one handler for SIGINT, SIGTERM and SIGHUP for a whole command. What the
first signal does depends on where the command is:

- outside the event loop (before it starts, after it ends): it raises ``Stopped``, so
  every ``finally`` runs and a temporary folder is removed;
- inside ``run(main)``: it cancels an anyio cancel scope around ``main()``. A cancel
  scope, not a task cancel: anyio keeps cancelling everything inside it until it exits,
  so an SDK await that swallows one ``CancelledError`` cannot keep a hung call alive,
  while cleanup that must finish (stopping servers) is shielded where it runs. After
  the cleanup, ``run`` raises ``Stopped``;
- inside ``last_words(words)`` too: ``words()`` is awaited first, then the scope is
  cancelled (a server told something while its connection is still open);
- inside ``trap.held()``: it waits for the end of the block (a few lines that must not
  be cut in two, such as creating a folder and naming it).

``Stopped`` carries the conventional exit code (130, 143, 129). Only the first signal stops;
later ones are ignored while its cleanup runs (the shutdown graces bound it), and
``finish(action)`` uses that to complete an action the first one cut short. The handler
stays installed from start to end: the process never falls back to the default action
(death, for SIGTERM) between two phases. SIGKILL cannot be caught: what it leaves (a
temporary folder) stays, and the children die by their own means
(``harness/transports/stdio.py``, ``mock_servers/lifeline.py``).

Task groups wrap what their tasks raise in exception groups; ``run`` raises the one
exception that matters instead (a usage error, then a signal, then a harness error, then a
closed pipe), so a caller prints one line. A group with none of those is a bug, and its
traceback shows.

Used by the lesson runner and the user CLI. Not handled here: Windows consoles; a command
run outside the main thread (no handler is installed there).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO, TypeVar

from harness.errors import HarnessError, UsageError

T = TypeVar("T")
LAST_WORDS_S = 5.0  # how long a stopping run waits for its last words (``last_words``) before it cancels
_last: ContextVar[list[Callable[[], Awaitable[None]]] | None] = ContextVar("last_words", default=None)
# SIGHUP: the terminal closed (a window, `tmux kill-session`); the run stops as for SIGTERM.
SIGNALS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated"), signal.SIGHUP: (129, "hung up")}


class Stopped(Exception):
    """A signal ended the run; carries the exit code and the word for it."""

    def __init__(self, code: int, word: str) -> None:
        super().__init__(word)
        self.code = code


class Trap:
    """SIGINT, SIGTERM and SIGHUP for one command: the first one stops it, later ones are ignored."""

    def __init__(self) -> None:
        self.caught: list[int] = []  # the first signal, once one came
        self._cancel: Callable[[], None] | None = None  # while run() runs: how to stop its main()
        self._holding = 0
        self._pending = False

    def first(self, signum: int) -> bool:
        """Note ``signum``; True if it is the first signal (the one that stops the command)."""
        if self.caught:
            return False
        self.caught.append(signum)
        return True

    def stopped(self) -> Stopped:
        return Stopped(*SIGNALS[self.caught[0]])

    def handler(self, signum: int, frame: Any) -> None:
        """The one handler: Python runs it in the main thread, between two bytecodes of whatever runs there."""
        if not self.first(signum):
            return
        if self._cancel is not None:
            self._cancel()
        elif self._holding:
            self._pending = True
        else:
            raise self.stopped()

    @contextmanager
    def held(self) -> Iterator[None]:
        """A first signal that lands in the block takes effect when the block ends."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            if not self._holding and self._pending:
                self._pending = False
                raise self.stopped()

    @contextmanager
    def cancelling(self, cancel: Callable[[], None]) -> Iterator[None]:
        """In the block a first signal calls ``cancel`` instead of raising (the event loop's phase)."""
        self._cancel = cancel
        try:
            if self.caught:  # it came before the loop ran, and was held
                cancel()
            yield
        finally:
            self._cancel = None


@contextmanager
def trapped(trap: Trap | None = None) -> Iterator[Trap]:
    """Install ``trap``'s handler for ``SIGNALS`` for the block (main thread only), then restore."""
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


def finish(action: Callable[[], None]) -> None:
    """Run ``action`` to the end, even if a signal lands on it: a trap raises only once, so a second go cannot be cut short."""
    try:
        action()
    except (Stopped, KeyboardInterrupt):
        action()
        raise


def run(main: Callable[[], Awaitable[T]], trap: Trap | None = None) -> T:
    """``asyncio.run(main())`` that stops on SIGINT/SIGTERM/SIGHUP and raises one exception, not a group.

    ``trap``: the caller's, installed with ``trapped()``; without one, ``run`` installs its own.
    """
    try:
        if trap is None:
            with trapped() as own:
                return asyncio.run(_guarded(main, own))
        return asyncio.run(_guarded(main, trap))
    except BaseExceptionGroup as group:
        raise first_error(group) from None


@contextmanager
def last_words(words: Callable[[], Awaitable[None]]) -> Iterator[None]:
    """While the block runs, a signal that stops ``run`` first awaits ``words()`` (all of them within
    ``LAST_WORDS_S``), and only then cancels: for what must reach a server over a connection still
    open (s39: ``tasks/cancel`` for a task being followed). Outside ``run`` it does nothing."""
    said = _last.get()
    if said is None:
        yield
        return
    said.append(words)
    try:
        yield
    finally:
        if words in said:
            said.remove(words)


async def _guarded(main: Callable[[], Awaitable[T]], trap: Trap) -> T:
    import anyio  # the SDK's async library

    loop = asyncio.get_running_loop()
    scope = anyio.CancelScope()
    said: list[Callable[[], Awaitable[None]]] = []
    _last.set(said)  # every task main() starts copies this context: they all add to this one list
    ending: list[asyncio.Task[None]] = []  # the last words' task, kept from the garbage collector

    async def last() -> None:
        with anyio.move_on_after(LAST_WORDS_S):
            while said:
                try:
                    await said.pop(0)()
                except Exception:  # noqa: BLE001  (one failed word must not keep the run from stopping)
                    continue
        scope.cancel()

    def stop() -> None:
        if said:
            ending.append(loop.create_task(last()))
        else:
            scope.cancel()

    # call_soon_threadsafe: the handler may interrupt the loop's own bookkeeping, and this is
    # the one loop call made to be safe from there (asyncio's own signal support uses it).
    # The scope is entered inside `cancelling`, so a late signal never raises in its exit.
    with trap.cancelling(lambda: loop.call_soon_threadsafe(stop)), _wakeup(loop):
        with scope:
            result = await main()
    if trap.caught:
        raise trap.stopped()
    return result


@contextmanager
def _wakeup(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Wake the loop when a signal arrives, in whichever thread: the handler then runs at once.

    Python runs a handler only when the main thread executes bytecode; a loop asleep in
    epoll would not notice a signal the kernel gave to another thread (an executor's).
    ``set_wakeup_fd`` makes the C-level handler write a byte to a socket the loop watches.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    receive, send = socket.socketpair()
    receive.setblocking(False)
    send.setblocking(False)

    def drain() -> None:
        try:
            while receive.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass

    loop.add_reader(receive.fileno(), drain)
    previous = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        loop.remove_reader(receive.fileno())
        receive.close()
        send.close()


async def ask_line(ask_in: TextIO, ask_out: TextIO, question: str) -> str:
    """``question`` on ``ask_out``, then the line typed on ``ask_in``; a signal during the wait ends it at once.

    Not a worker thread blocked in ``readline()``: cancelling its task cannot stop the
    thread, so Ctrl-C at a question would hold the cleanup and the exit until Enter. The
    wait is for the terminal to be readable, and a typed line is read whole.
    """
    import anyio  # the SDK's async library: only when someone is asked

    ask_out.write(question)
    ask_out.flush()
    try:
        await anyio.wait_readable(ask_in)
    except (OSError, ValueError):  # no pollable descriptor (a StringIO, a regular file): reading it cannot block
        pass
    return ask_in.readline()


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
