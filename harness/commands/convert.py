"""``convert --from FILE --to FORMAT [--output FILE [--force]]``: one client's config in another client's format.

    mcp-course convert --from .vscode/mcp.json --to windsurf
    mcp-course convert --from ~/.codex/config.toml --to claude-code --output .mcp.json

The source's format is found as every command finds it (its name, then its content; the
shared ``--format NAME`` overrides). The converted file goes to stdout, or with ``--output``
to that file, written atomically (a temporary file in the same folder, then linked into
place, so a reader never sees half of it) and never over an existing file unless
``--force``. What the target cannot express is one ``lost:`` line on stderr each, naming
the server and the field (``harness.config.convert``). Exit codes: 0 everything carried
over, 1 something was lost (the file is written all the same), 2 bad usage or a file that
cannot be read or written. Nothing is started and no other config is read.

A CLI extension (``harness.commands.extension``) that does not connect. Not handled here:
writing into an existing file beside its other servers (``add`` does that, one server at a time).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from harness.commands.extension import Command, Extension
from harness.config import convert as converting  # light: the config readers, which the CLI imports anyway
from harness.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from harness.stack import Stack



def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", type=Path, required=True, metavar="FILE", help="the config file to convert")
    parser.add_argument("--to", dest="target", required=True, choices=converting.TARGETS, metavar="FORMAT",
                        help=f"the client whose format to write: {', '.join(converting.TARGETS)}")
    parser.add_argument("--output", dest="output_file", type=Path, metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument("--force", action="store_true", help="with --output: replace FILE if it exists")
    parser.epilog = "exit 0: everything carried over; 1: something the target cannot express was left out (each named on stderr)"


class Convert(Extension):
    commands = (Command("convert", "convert a config file into another client's format (nothing started)", _arguments,
                        connects=False),)

    async def run(self, args: argparse.Namespace, stack: Stack | None, out: TextIO, err: TextIO) -> int | None:
        if args.command != "convert":
            return None
        return convert(args.source, args.target, vars(args).get("format"), args.output_file, args.force, out, err)


EXTENSION = Convert()


def convert(source: Path, target: str, fmt: str | None, output: Path | None, force: bool, out: TextIO, err: TextIO) -> int:
    servers, inputs, lost = converting.read(source, fmt)
    text, more = converting.write(servers, inputs, target)
    lost += more
    if output is None:
        out.write(text)
    else:
        written(output, text, force)  # first: a file that cannot be written is the one error, said alone
    for line in lost:
        err.write(f"lost: {line}\n")
    if output is not None:
        err.write(f"note: {output}: written as {target}\n")
    return 1 if lost else 0


def written(path: Path, text: str, force: bool) -> None:
    """``text`` into ``path`` at once: a temporary file in its folder, then linked (a new file) or replaced (--force)."""
    if path.exists() and not force:
        raise UsageError(f"--output {path}: the file exists (give --force to replace it)")
    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(f"--output {path}: no such folder: {folder}")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if force:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if the file appeared meanwhile: never over one
            os.unlink(tmp)
    except FileExistsError:
        os.unlink(tmp)
        raise UsageError(f"--output {path}: the file exists (give --force to replace it)") from None
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise ConfigError(f"--output {path}: cannot write: {exc.strerror or exc}") from None
