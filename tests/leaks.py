"""No process left behind: the one leak check for every test module that starts processes.

A test leaks when, after it ends, /proc still shows a process it is responsible for:

- a child of this pytest process, in any state: running, stopped, or a zombie nobody
  reaped (grandchildren need no check of their own: their parent, our child, is caught);
- an orphan: a process adopted by PID 1 whose command line names ``mock_servers`` or a
  lesson (``lessons/s``), i.e. a server or lesson whose parent exited without stopping it.

Processes that existed before the test began are ignored, so a test is only blamed for
its own. Stopping is asynchronous (a signal, then the parent reaps), so the check polls
/proc under a deadline before it fails, listing pid, state and command line.

Use it in a module with::

    from leaks import no_process_left  # noqa: F401  (the fixture)
    pytestmark = pytest.mark.usefixtures("no_process_left")

For a test that kills what it started (``kill -9`` of a lesson), ``adopting()`` makes
this process a child subreaper: every orphan of the block is reparented here, not to PID 1
or to another subreaper (a container's init, ``systemd --user``), so it is counted as
our child whatever its command line, and ``settle`` reaps the ones that exit.

Linux only (it reads /proc). Not handled outside ``adopting()``: orphans adopted by a
subreaper other than PID 1.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

DEADLINE = 5.0  # seconds for the test's processes to be stopped and reaped after it ends
POLL = 0.05  # seconds between two looks at /proc while waiting for that
ORPHAN_MARKS = ("mock_servers", "lessons/s")  # command lines of the orphans we would be to blame for
PR_SET_CHILD_SUBREAPER = 36


def stat(pid: str) -> list[str] | None:
    """The fields of /proc/PID/stat after ``pid (comm)``: state, ppid, ...; None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2:].split()  # comm may hold spaces and parentheses; it ends at the last ")"


def cmdline(pid: str) -> str:
    """The command line with spaces between arguments; "" for a zombie or a process that is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


@dataclass(frozen=True)
class Proc:
    pid: str
    state: str  # R, S, D, Z (zombie), T (stopped), ...
    ppid: str
    started: int  # clock ticks after boot; with pid, tells a process from a later one given the same pid
    cmdline: str

    @property
    def key(self) -> tuple[str, int]:
        return self.pid, self.started

    def __str__(self) -> str:
        return f"pid {self.pid} state {self.state}: {self.cmdline or '(no command line: a zombie)'}"


def processes() -> Iterator[Proc]:
    """Every process /proc shows now (those that exit while we look are skipped)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fields = stat(pid)
        if fields is not None:
            yield Proc(pid, fields[0], fields[1], int(fields[19]), cmdline(pid))


def children(parent: int | None = None) -> list[Proc]:
    """The children of ``parent`` (default: this process), in any state."""
    ppid = str(os.getpid() if parent is None else parent)
    return [p for p in processes() if p.ppid == ppid]


def descendants(pid: int) -> list[Proc]:
    """Every process below ``pid``: children, their children, ..."""
    everyone = list(processes())
    found, parents = [], {str(pid)}
    while below := [p for p in everyone if p.ppid in parents and p not in found]:
        found += below
        parents = {p.pid for p in below}
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and everything below it: the clean-up after a test that already failed."""
    for proc in [*descendants(pid), *(p for p in processes() if p.pid == str(pid))]:
        try:
            os.kill(int(proc.pid), signal.SIGKILL)
        except ProcessLookupError:
            pass  # it exited meanwhile


def ours() -> list[Proc]:
    """Our children, and the orphaned servers and lessons, whenever they started."""
    me = str(os.getpid())
    return [p for p in processes()
            if p.ppid == me or (p.ppid == "1" and any(mark in p.cmdline for mark in ORPHAN_MARKS))]


def left_behind(before: set[tuple[str, int]]) -> list[Proc]:
    """``ours()`` without the processes in ``before`` (keys taken when the test began)."""
    return [p for p in ours() if p.key not in before]


@contextmanager
def adopting() -> Iterator[None]:
    """Orphans of processes started in the block are reparented to this process (a child subreaper)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip(f"cannot become a child subreaper: {os.strerror(ctypes.get_errno())}")
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)  # adopted ones stay our children: settle or kill_tree them


def settle(before: set[tuple[str, int]], deadline: float = DEADLINE) -> list[Proc]:
    """Our children that were not there ``before``, once none is left or ``deadline`` s have passed.

    Children that exited are reaped here (adopted orphans have no one else to reap them), so
    call this only after every child a ``Popen`` owns has been waited for.
    """
    end = time.monotonic() + deadline
    while True:
        alive = []
        for proc in children():
            if proc.key in before:
                continue
            if proc.state == "Z":
                try:
                    os.waitpid(int(proc.pid), os.WNOHANG)
                except ChildProcessError:
                    pass  # reaped meanwhile
            else:
                alive.append(proc)
        if not alive or time.monotonic() >= end:
            return alive
        time.sleep(POLL)  # polling /proc under a deadline: there is no event for "exited"


@pytest.fixture
def no_process_left():
    """Fails the test if, ``DEADLINE`` s after it ends, a process it started is still there."""
    before = {p.key for p in processes()}
    yield
    deadline = time.monotonic() + DEADLINE
    while (left := left_behind(before)) and time.monotonic() < deadline:
        time.sleep(POLL)  # polling /proc under a deadline: there is no event for "reaped"
    assert not left, "expected no process left by the test, found:\n" + "\n".join(f"  {p}" for p in left)
