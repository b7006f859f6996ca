"""No process left behind: the one leak check for every test module that starts processes.

It counts only the processes this test session started. At the start of the session each
pytest process (the xdist controller and every worker) becomes a child subreaper
(``install``): an orphan of anything it started, however deep, is reparented to it, not
to PID 1 or another subreaper. So "ours" is simply "our children": what a test spawned,
and every orphan of what it spawned, whatever its command line. A process of another
checkout or another session is never our child, so it never fails the check.

A test leaks when, after it ends, /proc still shows a child of this process that was not
there when the test began:

- alive, in any state (running, sleeping, stopped): a process it did not stop;
- a zombie that this process spawned (through ``subprocess.Popen``, which anyio and
  asyncio use too) and nobody reaped. A zombie that was adopted (an orphan that exited)
  is reaped here and not counted: before the subreaper, PID 1 reaped those.

Stopping is asynchronous (a signal, then the parent reaps), so the check polls /proc
under a deadline (``limits.REAP``) before it fails, listing pid, state and command line.

Use it in a module with::

    from leaks import no_process_left  # noqa: F401  (the fixture)
    pytestmark = pytest.mark.usefixtures("no_process_left")

Linux only (it reads /proc and calls prctl). Where the kernel refuses the subreaper,
``install`` says so and the check still sees direct children, not orphans.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import forkserver
import pytest
from limits import REAP

POLL = 0.05  # seconds between two looks at /proc while waiting for a test's processes to go
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37

_spawned: set[tuple[str, int]] = set()  # (pid, start) of every child this process spawned itself


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
    """The children of ``parent`` (default: this process), in any state, adopted orphans included."""
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


# --- the session: a subreaper that knows which children it spawned ---------------------------


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def subreaper() -> bool:
    """Whether this process is a child subreaper now."""
    flag = ctypes.c_int(0)
    return _libc().prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value != 0


def install() -> str | None:
    """Make this process the session's subreaper and note every child it spawns; why not, if it cannot."""
    if not getattr(subprocess.Popen._execute_child, "_noted", False):
        execute = subprocess.Popen._execute_child

        def execute_child(self, *args, **kwargs):
            execute(self, *args, **kwargs)
            fields = stat(str(self.pid))
            if fields is not None:
                _spawned.add((str(self.pid), int(fields[19])))

        execute_child._noted = True
        subprocess.Popen._execute_child = execute_child
    libc = _libc()
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return f"cannot become a child subreaper: {os.strerror(ctypes.get_errno())}"
    return None


def reap_adopted() -> None:
    """Reap the zombies among our children that this process did not spawn: exited orphans."""
    for proc in children():
        if proc.state == "Z" and proc.key not in _spawned:
            try:
                os.waitpid(int(proc.pid), os.WNOHANG)
            except ChildProcessError:
                pass  # reaped meanwhile


def ours() -> list[Proc]:
    """Our children, and the stdio mock servers our fork server runs for us (``tests/forkserver.py``)."""
    parent = forkserver.parent_pid()
    return children() + (children(parent) if parent is not None else [])


def left_behind(before: set[tuple[str, int]]) -> list[Proc]:
    """Our processes that were not there ``before`` (keys taken when the test began), adopted zombies reaped.

    A zombie counts only if this process spawned it and nobody reaped it; the fork server reaps its own.
    """
    reap_adopted()
    return [p for p in ours() if p.key not in before and (p.state != "Z" or p.key in _spawned)]


@contextmanager
def adopting() -> Iterator[None]:
    """For a test that counts a lesson's orphans itself: skipped where the session is no subreaper."""
    if not subreaper():
        pytest.skip("this process is not a child subreaper (tests/leaks.py: install)")
    yield


def settle(before: set[tuple[str, int]], deadline: float = REAP) -> list[Proc]:
    """``left_behind(before)``, once it is empty or ``deadline`` s have passed.

    Call this only after every child a ``Popen`` owns has been waited for.
    """
    end = time.monotonic() + deadline
    while (left := left_behind(before)) and time.monotonic() < end:
        time.sleep(POLL)  # polling /proc under a deadline: there is no event for "exited"
    return left


@pytest.fixture
def no_process_left():
    """Fails the test if, ``REAP`` s after it ends, a process it started is still there."""
    before = {p.key for p in ours()}
    yield
    left = settle(before)
    assert not left, "expected no process left by the test, found:\n" + "\n".join(f"  {p}" for p in left)
