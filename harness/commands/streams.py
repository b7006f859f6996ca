"""How much the CLI says on stderr, and in which colours: ``--wire``, ``--verbose``, ``--quiet``, ``NO_COLOR``.

    mcp-course --wire tools            every JSON-RPC frame, as the lessons print them (``    >> docs {...}``)
    mcp-course --verbose servers       every state change (``state: docs: pending -> connected: ``) and the
                                       transports' notes (a spawn, an HTTP GET), whether stderr is a terminal or not
    mcp-course --quiet call docs.x     stderr holds errors only: no warning, hint, note, progress or lost: line

Frames and notes go to stderr, so stdout stays the command's own output (``--json`` included);
they pass through the CLI's redactor, so a secret a server was started or signed in with never
shows in a frame. ``chat`` prints its transcript on stdout, and there the frames come inline,
as in a lesson.

Colour is for a person: only when stderr is a terminal and ``NO_COLOR`` is not set (to any
value, as no-color.org says). ``error:`` lines are red, ``warning:`` and ``lost:`` lines
yellow, and a state line's new state coloured by what it means (connected green; failed red;
needs-auth and blocked yellow). ``Levels`` does this below the CLI's own ``terminal.Writer``,
which escapes every control character a server sends first, so the only escape sequences that
reach the terminal are these.

Introduced by issue 37. Not handled here: colour on stdout (the ``servers`` table stays plain
text, for pipes and scripts alike), a pager.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from harness.hub import Change
    from harness.transcript import Transcript
    from harness.wire import WireTap

RED, YELLOW, GREEN, DIM, RESET = "\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[2m", "\x1b[0m"
STATES = {"connected": GREEN, "failed": RED, "needs-auth": YELLOW, "blocked": YELLOW, "disabled": DIM, "closed": DIM}
QUIET_DROPS = ("warning:", "hint:", "note:", "progress:", "lost:", "state:")  # what --quiet keeps off stderr
_NAMES = "|".join(map(re.escape, STATES))
# A state line: --verbose's "state: docs: pending -> connected: ...", or the terminal's progress "docs: connected".
_STATE = re.compile(rf"^(state: .+ -> )({_NAMES})\b|^([^\s:]+: )({_NAMES})$")


def options(option: Callable[..., None]) -> None:
    """The three options, added by ``option`` (harness.app's, so they go before or after any command)."""
    option("--wire", dest="wire", action="store_true", default=False,
           help="print every JSON-RPC frame on stderr (>> sent, << received; chat: inline in its transcript)")
    option("--verbose", dest="verbose", action="store_true", default=False,
           help="print every state change and the transports' notes on stderr")
    option("--quiet", dest="quiet", action="store_true", default=False,
           help="print only errors on stderr (no warnings, hints, notes or progress)")


def coloured(stream: TextIO, environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Colour on ``stream``: a terminal, and no ``NO_COLOR`` (any value, empty included)."""
    return "NO_COLOR" not in environ and bool(getattr(stream, "isatty", lambda: False)())


class Levels:
    """A text stream that colours each line by its kind (on a terminal) and, ``quiet``, drops all but errors.

    Lines are judged by how they start, write by write: ``print`` writes a line's text and its
    end apart, and a question asked without a line end must still appear at once, so nothing is held.
    """

    def __init__(self, stream: TextIO, quiet: bool = False, colour: bool = False) -> None:
        self.stream, self.quiet, self.colour = stream, quiet, colour
        self._start, self._drop, self._paint = True, False, ""

    def write(self, text: str) -> int:
        for piece in text.splitlines(keepends=True):
            if self._start:
                self._drop = self.quiet and piece.startswith(QUIET_DROPS)
                self._paint = self._colour_of(piece) if self.colour else ""
            self._start = piece.endswith("\n")
            if self._drop:
                continue
            body, end = (piece[:-1], "\n") if self._start else (piece, "")
            if self._paint and body:
                body = self._painted(body)
            self.stream.write(body + end)
        return len(text)

    def _colour_of(self, line: str) -> str:
        if line.startswith("error:"):
            return RED
        if line.startswith(("warning:", "lost:")):
            return YELLOW
        return "state" if _STATE.match(line) else ""

    def _painted(self, body: str) -> str:
        if self._paint != "state":
            return f"{self._paint}{body}{RESET}"
        found = _STATE.match(body)
        if found is None:  # a state line's later piece
            return body
        head, state = (found.group(1), found.group(2)) if found.group(2) else (found.group(3), found.group(4))
        return f"{head}{STATES[state]}{state}{RESET}{body[found.end():]}"

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return bool(self.stream.isatty())

    def __getattr__(self, name: str) -> object:  # fileno, encoding: the stream's own
        return getattr(self.stream, name)


def levels(stream: TextIO, args: argparse.Namespace) -> TextIO:
    """stderr as ``--quiet`` and the terminal ask."""
    return Levels(stream, quiet=args.quiet, colour=coloured(stream))  # type: ignore[return-value]  (a TextIO by its methods)


def side(args: argparse.Namespace, err: TextIO) -> Transcript | None:
    """Where ``--wire`` and ``--verbose`` print for a command without a transcript of its own: stderr, redacted."""
    if not (args.wire or args.verbose):
        return None
    from harness.transcript import Transcript  # only when asked for

    return Transcript(err, redactor=args.redactor)


def tap(args: argparse.Namespace, transcript: Transcript | None) -> WireTap | None:
    """The wire tap for ``--wire`` (frames) and ``--verbose`` (the transports' notes), printing to ``transcript``."""
    if transcript is None or not (args.wire or args.verbose):
        return None
    from harness.wire import WireTap  # only when asked for

    return WireTap(transcript, show=args.wire, events=args.verbose)


def changes(args: argparse.Namespace, transcript: Transcript | None) -> Callable[[Change], None] | None:
    """``--verbose``: every state change as a ``state:`` line (the lessons' own), else None."""
    if transcript is None or not args.verbose:
        return None
    from harness import lifecycle  # only when asked for

    return lifecycle.show(transcript)
