"""How a harness program ends: flush stdout and stderr, then ``os._exit`` with the code.

A process that imported the ``mcp`` SDK spends about a quarter of a second of CPU in the
interpreter's teardown, freeing modules nobody will use again. A lesson run, the CLI and
each mock server pay it on every exit, and the test suite starts hundreds of them. By the
time ``exit_now`` is called there is nothing left for a teardown to do: every server was
stopped and every file closed by the ``with`` and ``finally`` blocks that opened them, and
no harness code leaves cleanup to ``atexit`` or to a finalizer.

Only a program's own entry calls it (``python -m harness``, a lesson's ``code.py`` run as
the program, a mock server's ``__main__``): ``main(argv, out)`` called in process, as the
tests do, returns its code as before.

Introduced by s19 (the lesson runner's exit codes). Not handled here: an exception that
escapes ``main`` (a bug), which takes Python's ordinary exit and its traceback.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn


def exit_now(code: int) -> NoReturn:
    """Flush stdout and stderr, then end the process with ``code`` at once (no interpreter teardown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader left (| head), or the stream was closed: nothing more to say
            pass
    os._exit(code)
