"""The command line's shared parts: a parser that tells a mistake in one line, and argument types.

The lesson runner (``harness.lesson``, every lesson's ``code.py``) and the user CLI
(``harness.app``, ``python -m harness``) parse their arguments the same way:

- ``Parser``: argparse, except that a bad command line is one line on stderr,
  ``error: argument --max-turns: ... (see --help)``, and exit code 2; the usage block is
  one ``--help`` away;
- ``positive``: a whole number of at least 1 (turns, seconds);
- ``folder``: a folder that exists or does not exist yet, never a file (a workspace, a
  token store the run creates); ``existing_folder``: one that exists (a root offered to
  servers, a workspace the user names).

It imports only the standard library: a lesson parses its arguments before any SDK is
imported, so ``--help`` and a mistake answer at once.

Introduced by s19. Shared by the lesson runner and the CLI. Not handled here: the
options themselves (each command adds its own), environment variables (``harness.spec``).
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import Any, NoReturn

from harness import nesting
from harness.errors import UsageError
from harness.jsonvalue import JSONObject


class Parser(argparse.ArgumentParser):
    """argparse, with a bad command line told in one line (its usage block is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see --help)\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A command argparse would refuse: named with the commands ``--help`` lists (a hidden one is not), and the
        nearest of them when there is one."""
        if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
            shown = [c.dest for c in action._choices_actions]  # argparse keeps no public list of the listed ones
            meant = difflib.get_close_matches(str(value), shown, n=1)
            raise argparse.ArgumentError(action, f"invalid choice: '{value}'" + (f"; did you mean '{meant[0]}'?" if meant else "")
                                         + f" (choose from {', '.join(shown)})")
        super()._check_value(action, value)


def positive(value: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got '{value}'")
    return int(value)


def folder(value: str) -> Path:
    """An argparse type: a folder that exists, or does not exist yet; never a file."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"'{value}' is a file, not a folder")
    return path


def existing_folder(value: str) -> Path:
    """An argparse type: a folder that exists."""
    path = Path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"'{value}' is not a folder")
    return path


def json_arguments(text: str) -> JSONObject:
    """A command's ``JSON_ARGS``: one JSON object, nested at most ``nesting.MAX_NESTING`` deep; else a ``UsageError``."""
    try:
        value = nesting.loads(text)
    except nesting.TooDeep as exc:
        raise UsageError(f"JSON_ARGS: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"JSON_ARGS: not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise UsageError("JSON_ARGS: expected a JSON object, e.g. '{\"query\": \"hooks\"}'")
    return value
