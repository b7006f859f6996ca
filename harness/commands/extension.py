"""What a lesson plugs into the user CLI: commands of its own, options on the others, stack parts, doctor findings.

The CLI (``harness.app``) parses and dispatches the commands every lesson shares. A later
mechanism reaches the command line as an ``Extension``: a module under ``harness/commands/``
with a module-level ``EXTENSION``, registered by one import line in
``harness.commands.extensions``. The CLI asks each extension, in that order:

- ``commands``: the commands it adds (``Command``: a name, a help line, a function that adds
  its arguments, whether it has ``--json``); they are listed in ``--help`` after the shared ones;
- ``options(parsers)``: options it adds to any command, shared or its own (``tools --search``);
- ``parts(args)``: stack parts (``harness.parts.Part``) for every command that connects, ``chat``
  included, decided from the parsed arguments;
- ``run(args, stack, out, err)``: after the servers connected, the command, if it is the
  extension's (or a flag of its own took over a shared one): its exit code, or ``None`` for
  "not mine"; the first extension that answers runs it. A ``Command(connects=False)`` (a
  file converter, say) is run with ``stack=None`` before any config is read or server started;
- ``problems(stack, prog)``: what ``doctor`` reports beyond the shared checks, once the servers
  that passed them are connected.

Extension modules are imported when the parser is built, so ``--help`` costs what they import:
nothing heavy at their top. Not handled here: the shared commands that start nothing (``add``,
``discover``) stay in ``harness.app``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from harness.commands.doctor import Problem
    from harness.parts import Part
    from harness.stack import Stack


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """A command with no arguments of its own."""


@dataclass(frozen=True)
class Command:
    """One command an extension adds: ``mcp-course NAME``, with ``help`` in the command list."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments
    json: bool = False  # accepts --json
    connects: bool = True  # False: ``run`` gets no stack (stack=None) and nothing is started, not even the config read


class Extension:
    """The hooks, each a no-op here: an extension overrides the ones it needs."""

    commands: tuple[Command, ...] = ()

    def options(self, parsers: Mapping[str, argparse.ArgumentParser]) -> None:
        """Add options to any command's parser (by name: ``parsers["chat"]``)."""

    def parts(self, args: argparse.Namespace) -> list[Part]:
        """The stack parts these arguments ask for."""
        return []

    async def run(self, args: argparse.Namespace, stack: Stack | None, out: TextIO, err: TextIO) -> int | None:
        """Run ``args.command`` on the connected stack if it is this extension's; ``None`` when it is not. ``stack`` is
        None for a ``Command`` that does not connect."""
        return None

    async def problems(self, stack: Stack, prog: str) -> list[Problem]:
        """``doctor``'s findings of this extension, on the connected stack."""
        return []
