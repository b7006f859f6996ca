"""The SDK's log records, as lines of ours: ``warning: mcp sdk: ...``, escaped, never a traceback.

The MCP SDK (and the HTTP client under it) logs through ``logging``. With no handler set,
Python's last resort prints each warning or error bare on stderr ("Unexpected content
type: text/html"), traceback and all, before the harness's own ``error:`` line says what
failed. ``routed(stream)`` hangs one handler on the SDK's loggers for as long as a
program runs: a record of level warning or above becomes one line on ``stream``, with our
prefix and its text escaped (``harness.echo``); below that, nothing is shown, as before.
The loggers keep their level, filters (``harness.auth.provider`` quiets the OAuth flow's
own) and other handlers; their records stop going on to the root logger while routed.

Introduced by the user CLI and the lesson runner (``harness.app``, ``harness.lesson``).
Not handled here: a program that configures logging itself (``--log`` options): it is
left as it set things up, and our handler is removed on the way out.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from harness import echo

SDK_LOGGERS = ("mcp", "client", "httpx2", "httpcore2")  # the SDK's session logs as "client"
PREFIX = "warning: mcp sdk: "


class _Lines(logging.Handler):
    def __init__(self, stream: TextIO) -> None:
        super().__init__(logging.WARNING)
        self.stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            said = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: its format, as written
            said = str(record.msg)
        try:
            self.stream.write(PREFIX + echo.text(said, 1000).replace("\n", "\n  ") + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # the reader has gone: a log line is not worth an error of its own
            pass


@contextmanager
def routed(stream: TextIO) -> Iterator[None]:
    """While inside, every SDK record of level warning or above is one escaped line on ``stream``."""
    handler = _Lines(stream)
    loggers = [logging.getLogger(name) for name in SDK_LOGGERS]
    kept = [logger.propagate for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in zip(loggers, kept):
            logger.removeHandler(handler)
            logger.propagate = propagate
