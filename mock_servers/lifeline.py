"""Run a mock server that dies with the process that started it.

    python -m mock_servers.lifeline MODULE [ARGS...]      e.g. MODULE = mock_servers.serve

``mock_servers.launch`` starts every network server this way, so that no server outlives
its lesson, whatever ends the lesson (a ``kill -9`` included). Two ways to notice the
parent is gone, because each alone has a gap:

- the lifeline pipe. Stdin must be a pipe from the parent, which never writes to it and
  never closes it: end of file on it means the parent is gone (the kernel closes a dead
  process's pipes). A thread waits for that and exits the process. It has no race: a
  parent that died before the thread started still gave end of file.
- on Linux, the parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the kernel
  kills this process the moment its parent dies, with no thread involved. It only takes
  hold from the ``prctl`` call on, and the kernel sends it when the parent *thread* that
  started us exits (launch.py starts servers from the event loop's thread, which stops
  them before it ends). The pipe covers both gaps.

Then ``MODULE`` runs as ``__main__`` in this same process (same pid, same argv shape).
A stdio server needs none of this: its stdin is the client's pipe already, and the
harness gives it the death signal itself (``harness/transports/stdio.py``).

Not handled: a process the server starts itself (the mock servers start none), and a
parent that keeps the pipe but stops caring (a hung lesson is stopped by whoever runs it).
"""

from __future__ import annotations

import os
import runpy
import signal
import stat
import sys
import threading

PR_SET_PDEATHSIG = 1
PARENT_GONE = 1  # the exit code when the lifeline breaks; nobody is left to read it


def die_with_parent() -> None:
    """Exit when the parent dies: the death signal (Linux), and a thread on the stdin pipe."""
    if not stat.S_ISFIFO(os.fstat(0).st_mode):
        raise SystemExit("mock_servers.lifeline: stdin must be a pipe from the parent (its end means the parent is gone)")
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    threading.Thread(target=_wait_for_end_of_input, name="lifeline", daemon=True).start()


def _wait_for_end_of_input() -> None:
    while True:
        try:
            if not os.read(0, 512):  # the parent never writes; anything read is ignored
                break
        except InterruptedError:
            continue
        except OSError:
            break
    os._exit(PARENT_GONE)  # abrupt on purpose: the server's client is gone with its parent


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0].startswith("-"):
        raise SystemExit("usage: python -m mock_servers.lifeline MODULE [ARGS...]")
    die_with_parent()
    sys.argv = [args[0], *args[1:]]
    runpy.run_module(args[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
