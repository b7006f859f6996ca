"""What the user CLI takes for reading configs: ``--format NAME`` and ``--input ID=VALUE``.

``add_arguments(parser)`` adds both options to the CLI's parser (or through its ``add``); ``options(args, err)`` is
what ``config.load`` then takes: the format, the input values, who answers the other VS
Code inputs (the terminal, when stdin is one: a password is read without echo; each
answer is kept with the ``--input`` values, so neither a second server using the same
input nor chat's reload of the file asks again), and where warnings go (``warning: ...`` lines on ``err``). The CLI (``harness.app``) owns the
parser; this module owns what the options mean.

Not handled here: reading the files (``harness.config.scopes``); an
input that an edit adds during chat is asked on the terminal while the chat waits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from harness.config.formats import readers


def add_arguments(parser: argparse._ActionsContainer, add: Callable[..., object] | None = None) -> None:
    """``--format`` and ``--input`` on ``parser``, or through ``add`` (``add_argument``'s signature) when given."""
    add = add or parser.add_argument
    names = [r.name for r in readers()]
    add("--format", dest="format", choices=names, default=None, metavar="NAME",
        help=f"read every --config file in this format ({', '.join(names)}); default: from each file's name and content")
    add("--input", dest="input", action="append", default=[], type=_input, metavar="ID=VALUE",
        help="the value of a VS Code input (${input:ID}); default: asked on the terminal")


def _input(text: str) -> tuple[str, str]:
    ident, sep, value = text.partition("=")
    if not sep or not ident.strip():
        raise argparse.ArgumentTypeError("expected ID=VALUE")
    return ident.strip(), value


def options(args: argparse.Namespace, err: TextIO) -> dict[str, object]:
    """``config.load``'s keywords from the parsed options (absent ones: their defaults)."""
    def warn(text: str) -> None:
        err.write(f"warning: {text}\n")

    given = getattr(args, "input", None)
    if given is None:
        given = []

    answered: dict[str, str | None] = {}  # each input asked once, however many servers (or reads of the file) use it

    def ask(ident: str, question: str, secret: bool) -> str | None:
        if ident not in answered:
            answered[ident] = terminal(question, secret)
            if answered[ident] is not None:
                given.append((ident, answered[ident]))  # kept with --input's: a reload of the file (chat) reads it again, unasked
        return answered[ident]

    return {"fmt": getattr(args, "format", None), "inputs": dict(given), "ask": ask if sys.stdin.isatty() else None, "warn": warn}


def terminal(question: str, secret: bool) -> str | None:
    """Ask on the terminal before anything runs (the event loop's ``harness.ask`` is not up yet); a password unechoed."""
    import getpass  # only when a VS Code input is asked on the terminal

    try:
        if secret:
            return getpass.getpass(f"{question}: ", stream=sys.stderr)
        sys.stderr.write(f"{question}: ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        return line.rstrip("\n") if line else None
    except EOFError:  # Ctrl-D: no answer (Ctrl-C is the run's signal, and ends it)
        return None
