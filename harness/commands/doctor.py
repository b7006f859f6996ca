"""``doctor``: every problem of your config, each once, naming file, server and field, with the fix.

Two passes:

1. **Read, start nothing.** Every config file found (``--config FILE``..., else Claude
   Code's scopes from this folder, as ``harness.config`` reads them) is read on its own,
   so each unreadable file is named. Then each server: an entry the config rejects
   (``field 'command': required``), a ``${VAR}`` that is not set (naming the field that
   holds it), a command that is not on ``PATH``. A server the config turned off
   (disabled, blocked by policy, a ``.mcp.json`` server not approved yet) is a note, not
   a problem: someone chose that, and the note says how to change it.
2. **Connect** (unless ``--offline``): every server that passed, at once, on the CLI's
   stack. One that fails (cannot be reached, exits, no answer in time) or needs a sign-in
   is a problem; one that connects is ``ok`` with its tool count.

A server with a problem in the first pass is not started in the second, so each problem
is reported once. The exit code is 1 if there is any problem, else 0.

``--json`` prints ``{files, problems: [{file, server, field, problem, fix}], notes,
servers: [{name, state}]}``.

Not handled here: fixing anything (it only reads), a server's
tools once connected (``tools`` lists them), timeouts that a long first download needs
(``first_run_hint`` says so; the connect timeout is the user's to raise).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from harness import config, echo
from harness.commands import approve
from harness.config import formats
from harness.config.documents import DuplicateKey
from harness.config.variables import VARIABLE
from harness.errors import ConfigError
from harness.spec import ServerSpec, State

DOWNLOADERS = ("npx", "uvx", "bunx", "pnpx")  # run a package, fetching it first if the cache lacks it


@dataclass(frozen=True)
class Problem:
    """One thing that keeps a server (or a whole file) from working, and what to do about it."""

    file: str
    server: str | None
    field: str | None
    problem: str
    fix: str

    def lines(self) -> str:
        where = f"{self.file}: " + (f"server '{self.server}': " if self.server else "") + (f"field '{self.field}': " if self.field else "")
        return f"problem: {where}{echo.text(self.problem)}\n  fix: {self.fix}\n"


def scope_files(paths: config.Paths) -> list[Path]:
    """The files Claude Code's scopes read from here that exist: the managed file alone if it exists, else
    ``~/.claude.json`` and every ``.mcp.json`` from the root down (as ``harness.config.scopes`` reads them)."""
    managed = paths.managed / "managed-mcp.json"
    if managed.is_file():
        return [managed]
    cwd = paths.cwd.resolve()
    found = [paths.home / ".claude.json", *(folder / ".mcp.json" for folder in reversed([cwd, *cwd.parents]))]
    return [f for f in found if f.is_file()]


def files_problems(paths: config.Paths, named: Sequence[Path], **how: Any) -> tuple[list[str], list[Problem], list[config.ServerConfig]]:
    """Each file read on its own (so every unreadable one is named), then the servers of those that read
    (``how``: ``config.load``'s keywords, as the CLI's ``--format`` and ``--input`` give them)."""
    files = list(named) or scope_files(paths)
    twice: dict[str, DuplicateKey] = {}  # a key given twice, once however often its file is read
    passed_on, said = how.get("warn"), set()

    def warn(text: str) -> None:
        if isinstance(text, DuplicateKey):
            twice.setdefault(text, text)
        elif passed_on is not None and text not in said:  # each file is read alone, then with the others: said once
            said.add(text)
            passed_on(text)

    shown, problems, servers = _read(paths, named, files, {**how, "warn": warn})
    problems += [Problem(d.file, None, None, d[len(f"{d.file}: "):], f"keep one of the two {echo.name(d.key)} in {d.file}")
                 for d in twice.values()]
    return shown, problems, servers


def _read(paths: config.Paths, named: Sequence[Path], files: list[Path],
          how: dict[str, object]) -> tuple[list[str], list[Problem], list[config.ServerConfig]]:
    problems: list[Problem] = []
    good: list[Path] = []
    for f in files:
        try:
            config.load(paths, [f], **how)
            good.append(f)
        except ConfigError as exc:
            text = str(exc)
            problem = text[len(f"{f}: "):] if text.startswith(f"{f}: ") else text
            problems.append(Problem(str(f), None, None, problem, f"correct {f} (or leave it out) and run doctor again"))
    shown = [str(f) for f in files]
    if problems and not named:
        return shown, problems, []  # the scopes are read together: one bad file stops them all
    if named:
        servers = config.load(paths, good, **how) if good else []
    else:
        servers = config.load(paths, **how)  # the scopes, with their approvals: not the files as if named
    home = str(paths.home / ".claude.json")
    for source in dict.fromkeys(s.source for s in servers):  # a file the config read that the list above lacks
        if (home if source == "~/.claude.json" else source) not in shown:
            shown.append(source)
    return shown, problems, servers


def static(servers: Iterable[config.ServerConfig], environ: Mapping[str, str] = os.environ,
           prog: str = "mcp-course", paths: config.Paths | None = None) -> tuple[list[Problem], list[str]]:
    """The first pass, starting nothing: the problems, and notes for the servers the config turned off."""
    problems: list[Problem] = []
    notes: list[str] = []
    for server in servers:
        if server.state is State.FAILED:
            problems.append(_rejected(server))
        elif server.state is State.BLOCKED and "enabledMcpjsonServers" in server.reason:
            notes.append(f"server '{server.name}' ({server.source}) is {approve.hint(prog, server.name, paths or config.Paths())}")
        elif server.state in (State.BLOCKED, State.DISABLED):
            notes.append(f"server '{server.name}' ({server.source}) is {server.state.value}: {server.reason}")
        elif server.spec is not None:
            problems += _unset(server, environ) or _no_command(server, environ)
    return problems, notes


def clean(servers: Iterable[config.ServerConfig], problems: Sequence[Problem]) -> list[config.ServerConfig]:
    """The servers the second pass starts: pending, with no problem found in the first."""
    named = {p.server for p in problems}
    return [s for s in servers if s.state is State.PENDING and s.name not in named]


def connected(hub: Any, servers: Iterable[config.ServerConfig], prog: str) -> tuple[list[Problem], list[str]]:
    """The second pass, after ``connect_all``: a problem for each server that did not connect, ``ok`` lines for the rest."""
    problems, oks = [], []
    for server in servers:
        entry = hub.entries[server.name]
        remote = server.spec is not None and server.spec.url is not None
        field = "url" if remote else "command"
        if entry.state is State.CONNECTED:
            oks.append(f"ok: server '{server.name}': connected, {echo.count(len(entry.tools), 'tool')}")
        elif entry.state is State.NEEDS_AUTH:
            problems.append(Problem(server.source, server.name, None, "needs authorization (OAuth)", f"sign in: {prog} login {server.name}"))
        else:
            said = _without_name(str(entry.error or entry.state.value), server.name)
            hint = first_run_hint(server.spec, said)
            if pinned := re.search(r'set "protocol" to "[^"]+" or "[^"]+"', said):  # an era the server does not speak
                problems.append(Problem(server.source, server.name, "protocol", said.split("; command: ")[0],
                                        f"{pinned.group(0)} for server '{server.name}' in {server.source}"))
                continue
            if remote:
                fix = f"check that the server at {server.spec.where()} is running, and that '{field}' in {server.source} is its address"  # type: ignore[union-attr]
            else:
                fix = hint or f"run the command by hand to see why it stops: {server.spec.where()}"  # type: ignore[union-attr]
            problems.append(Problem(server.source, server.name, field, said, fix))
    return problems, oks


def first_run_hint(spec: ServerSpec | None, error: str) -> str:
    """For a connect timeout of an ``npx``/``uvx`` server: the likely cause (a first run downloads the package)."""
    if spec is None or spec.command is None or "(connect timeout" not in error:
        return ""
    program = Path(spec.command).name
    if program not in DOWNLOADERS:
        return ""
    return (f"{program} may be downloading the package on its first run: run '{spec.where()}' once by hand, "
            "or raise the connect timeout (\"timeouts\": {\"connect\": SECONDS} in the server's entry)")


def report(files: Sequence[str], problems: Sequence[Problem], notes: Sequence[str], oks: Sequence[str],
           states: Mapping[str, str], as_json: bool, out: TextIO) -> int:
    """Print the findings; 1 if there is any problem."""
    if as_json:
        out.write(json.dumps({"files": list(files), "problems": [asdict(p) for p in problems], "notes": list(notes),
                              "servers": [{"name": n, "state": s} for n, s in states.items()]}, indent=1) + "\n")
        return 1 if problems else 0
    out.write(f"read {len(files)} config file{'s' if len(files) != 1 else ''}" + (f": {', '.join(files)}\n" if files else
                                                                                 " (none found: give --config FILE)\n"))
    for p in problems:
        out.write(p.lines())
    for line in [*(f"note: {n}" for n in notes), *oks]:
        out.write(line + "\n")
    out.write(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}\n" if problems else "no problems\n")
    return 1 if problems else 0


def _rejected(server: config.ServerConfig) -> Problem:
    said = _without_name(server.reason, server.name)
    field = re.match(r"field '([^']+)': (.*)", said)
    if field is None:
        return Problem(server.source, server.name, None, said, f"correct server '{server.name}' in {server.source}")
    key, problem = field.groups()
    spelt = [k for k in server.raw if k != key and formats.near(str(k), [key]) is not None]  # 'comand' for a required 'command'
    if problem == "required":
        fix = f"rename '{spelt[0]}' to '{key}' in server '{server.name}'" if spelt else f"add '{key}' to server '{server.name}'"
    elif meant := re.search(r"\(did you mean '([^']+)'\?\)$", problem):
        fix = f"set '{key}' of server '{server.name}' to '{meant.group(1)}'"
    else:
        fix = f"set '{key}' of server '{server.name}' to what it says: {problem}"
    return Problem(server.source, server.name, key, problem, fix + f" in {server.source}")


def _unset(server: config.ServerConfig, environ: Mapping[str, str]) -> list[Problem]:
    """One problem per variable that is not set and has no default, naming the field that holds it."""
    spec = server.spec
    assert spec is not None
    fields = [("command", spec.command), *((f"args[{i}]", a) for i, a in enumerate(spec.args)),
              *((f"env.{k}", v) for k, v in spec.env.items()), ("url", spec.url), *((f"headers.{k}", v) for k, v in spec.headers.items())]
    found, seen = [], set()
    for key, value in fields:
        for match in VARIABLE.finditer(value or ""):
            name = match.group(1)
            if name in environ or match.group(2) is not None or name in seen:
                continue
            seen.add(name)
            found.append(Problem(server.source, server.name, key, f"${{{name}}} is not set",
                                 f"set {name} in the environment, or write ${{{name}:-default}} in {server.source}"))
    return found


def _no_command(server: config.ServerConfig, environ: Mapping[str, str]) -> list[Problem]:
    """A stdio server whose program is not there: the one check of a command that starts nothing."""
    try:  # with the VS Code inputs read from the file (--input, the terminal, a default)
        spec = config.expand(server.spec, environ, server.inputs)  # type: ignore[arg-type]  (_unset found every variable set)
    except ConfigError as exc:  # an input with no value: a problem of that server, not the end of doctor
        return [Problem(server.source, server.name, None, _without_name(str(exc), server.name),
                        "give it with --input ID=VALUE, or run doctor on a terminal to be asked")]
    if spec.command is None:
        return []
    command = spec.command
    if os.sep in command:
        path = Path(spec.cwd or ".") / command
        there = path.is_file() and os.access(path, os.X_OK)
    else:
        there = shutil.which(command, path=spec.env.get("PATH") or environ.get("PATH")) is not None
    if there:
        return []
    return [Problem(server.source, server.name, "command", f"'{command}' is not an executable program" + ("" if os.sep in command else " on PATH"),
                    f"install it, or give its full path in server '{server.name}' of {server.source}")]


def _without_name(text: str, name: str) -> str:
    prefix = f"server '{name}': "
    return text[len(prefix):] if text.startswith(prefix) else text
