"""A course mock server in a child process for the length of a ``with``, for tests that run the CLI in process.

``mock_servers.launch.serve_http`` is the async way (a test on its own event loop); the CLI's
``main`` runs its own loop, so these tests start the server beside it, synchronously:

    with served(command("docs", "http", module="mock_servers.protected")) as url:
        ...

The child prints ``READY <url>`` once it listens (or dies first: the test fails naming what
it printed). On leaving it is sent SIGTERM, killed after ``limits.STOP`` if still there, and
reaped; its pipes are closed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import forkserver
from limits import STOP

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def served(argv: Sequence[str]) -> Iterator[str]:
    """Run ``argv`` (a mock server over sse or http) from the repository root; yields the URL it says it is ready at."""
    child = subprocess.Popen(forkserver.redirect(list(argv), str(ROOT), dict(os.environ)), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             cwd=ROOT, start_new_session=True, text=True)
    try:
        line = child.stdout.readline()  # READY <url>, or nothing when it died
        assert line.startswith("READY "), f"expected {' '.join(argv[-4:])} to say READY, got {line!r}"
        yield line.split(" ", 1)[1].strip()
    finally:
        child.terminate()
        try:
            child.wait(STOP)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stdout.close()
