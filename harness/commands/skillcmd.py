"""``skills``, ``skill SERVER:NAME``, doctor's skill findings and chat's ``/server:prompt``: s37 on the user CLI.

- ``skills [--json]`` lists every connected server's skills as the model's catalogue names
  them (``server:skill``), each with its description and its files' count and size; nothing
  of a skill is read.
- ``skill SERVER:NAME [--file PATH]`` prints that skill's ``SKILL.md`` (or one of its files)
  once it is verified against the listing (size, digest, frontmatter); a file that differs
  is an error line naming the skill, the file and what differed, and nothing of it is printed.
  The user asked for it by name: there is no trust question.
- ``doctor`` reads every file of every skill and verifies it (the one place the CLI reads a
  skill whole, because the user asked for a check), and reports each skill the listing left
  out and each file that fails.
- ``chat`` gets the skills part (``harness.skilltool.Skills``): the catalogue, ``load_skill``,
  and the trust question asked as chat asks its permissions (``--yes``, answers, the terminal);
  and prompts as commands (``harness.slash.Commands``): a prompt ``/server:prompt arg=value``
  is that server's prompt, expanded into the user's turn.

A CLI extension (``harness.commands.extension``), imported when the parser is built: nothing
heavy at the top. Not handled here: the wire and the verification (``harness.skills``).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from harness import echo
from harness.commands.extension import Command, Extension
from harness.errors import ToolError, UsageError

if TYPE_CHECKING:
    from harness.commands.doctor import Problem
    from harness.parts import Part
    from harness.skilltool import Loader
    from harness.stack import Stack

USES = ("skills", "skill", "doctor", "chat")  # the commands whose stack lists skills


def _skill_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="SERVER:NAME", help="the skill, as `skills` names it")
    parser.add_argument("--file", metavar="PATH", help="one of the skill's files instead of SKILL.md (references/FORMS.md)")


class SkillCommands(Extension):
    """``skills``, ``skill`` and doctor's findings; the skills part in chat."""

    commands = (Command("skills", "every skill the servers offer, with its description and files", json=True),
                Command("skill", "one skill's SKILL.md (or --file PATH), printed once verified", _skill_arguments))

    def parts(self, args: argparse.Namespace) -> list[Part]:
        if args.command not in USES:
            return []
        from harness.skilltool import Skills  # the loop's types: only for a command that lists skills

        if args.command != "chat":
            return [Skills()]
        from harness.slash import Commands  # chat's typed /server:prompt: only for chat

        return [Skills(), Commands()]

    async def run(self, args: argparse.Namespace, stack: Stack, out: TextIO, err: TextIO) -> int | None:
        if args.command == "skills":
            return listed(await _loader(stack), args.json, out)
        if args.command == "skill":
            return await shown(await _loader(stack), args.name, args.file, out, err)
        return None

    async def problems(self, stack: Stack, prog: str) -> list[Problem]:
        return await checked(stack, await _loader(stack))


EXTENSION = SkillCommands()


async def _loader(stack: Stack) -> Loader:
    from harness.skilltool import Skills  # the part's module: only once servers are connected

    part = stack.find(Skills)
    assert part is not None and part.loader is not None, "the skills part is in the stack of every command in USES"
    await part.loader.refresh()
    return part.loader


def listed(loader: Loader, as_json: bool, out: TextIO) -> int:
    """``skills``: one line per skill (two with its description), or a line saying there are none."""
    rows = [{"name": name, "server": s.server, "uri": s.uri, "description": s.description, "frontmatter": s.frontmatter,
             "files": None if s.files is None else len(s.files), "bytes": None if s.files is None else s.size}
            for name, s in sorted(loader.names.items())]
    if as_json:
        out.write(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
        return 0
    if not rows:
        out.write("no skills: no connected server declares io.modelcontextprotocol/skills\n")
        return 0
    for row in rows:
        files = "files listed by directory" if row["files"] is None else f"{echo.count(row['files'], 'file')}, {row['bytes']:,} bytes"
        out.write(f"{echo.line(str(row['name']), 120)}  ({files})\n    {echo.line(str(row['description']), 200)}\n")
    return 0


async def shown(loader: Loader, name: str, path: str | None, out: TextIO, err: TextIO) -> int:
    """``skill NAME``: its SKILL.md (or ``path``), verified, escaped; an error line, and exit 1, for a file that differs."""
    skill = loader.names.get(name)
    if skill is None:
        raise UsageError(f"skill {name!r}: no such skill (the skills: {', '.join(sorted(loader.names)) or 'none'})")
    uri = skill.uri if path is None else skill.root + path.removeprefix("/")
    if path is not None and skill.files is not None and skill.file(uri) is None:
        files = ", ".join(skill.relative(f.uri) for f in skill.files) or "none"
        raise UsageError(f"skill {name}: no file {path!r} (its files: {files})")
    try:
        data = await loader.listings[skill.server].read(skill, uri)
    except ToolError as exc:
        err.write(f"error: {exc}\n")
        return 1
    text = data.decode("utf-8", "replace")
    out.write(echo.terminal(text if text.endswith("\n") else text + "\n"))
    return 0


async def checked(stack: Stack, loader: Loader) -> list[Problem]:
    """doctor: each skill left out of a listing, and each file of a listed skill that fails verification."""
    from harness.commands.doctor import Problem  # doctor's value: only when doctor runs

    sources = {s.name: s.source for s in stack.servers}
    found = []
    for server, listing in sorted(loader.listings.items()):
        if server not in stack.hub.clients:
            continue
        for text in listing.warnings:
            if text.endswith("left out"):
                found.append(Problem(sources.get(server, "?"), server, None, text.removeprefix(f"server '{server}': "),
                                     "the server's listing is not a skill the harness can load: tell its maintainer"))
    for name, skill in sorted(loader.names.items()):
        listing = loader.listings[skill.server]
        for uri in [skill.uri, *(f.uri for f in skill.files or () if f.uri != skill.uri)]:
            try:
                await listing.read(skill, uri)
            except ToolError as exc:
                found.append(Problem(sources.get(skill.server, "?"), skill.server, None, str(exc),
                                     f"do not load {name}: the server serves another file than it lists; tell its maintainer"))
                break  # one finding a skill: its first file that fails
    return found
