"""The user CLI's own streams: every line it writes is redacted and escaped on its way out.

The CLI prints what servers say (a ``call``'s result, a resource, a server's name in the
first column of ``servers``, an error holding a server's stderr) on stdout and stderr
directly, not through a transcript. ``Writer`` wraps each stream so that whatever is
written, by any command, first loses every secret the stack registered (a ``${TOKEN}`` a
server was started with, a token the sign-in got: ``harness.redact``) and then has every
control and bidi character escaped (``harness.echo.terminal``), as a transcript's lines
do. ``--json`` output is unchanged by the escape (JSON escapes controls itself) and is
redacted all the same.

Introduced by the user CLI (``harness.app``). Not handled here: what a server wrote to a
file, or a question asked on the terminal (``harness.ask`` escapes those itself).
"""

from __future__ import annotations

from typing import Any, TextIO

from harness import echo
from harness.redact import Redactor


class Writer:
    """A text stream whose every write is redacted, then escaped, before it reaches ``stream``."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self.stream, self.redactor = stream, redactor

    def write(self, text: str) -> int:
        self.stream.write(echo.terminal(self.redactor(text)))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding: the stream's own
        return getattr(self.stream, name)
