"""``approve SERVER`` and ``deny SERVER``: the answer to a ``.mcp.json`` server, written where Claude Code keeps it.

A project's ``.mcp.json`` comes with the repository, so its servers start only once the
user approved them for that project (``harness.config.scopes``). Claude Code asks once,
and keeps the answer in ``~/.claude.json``, in the project's entry
(``projects[<folder>]``): an approved server's name is added to
``enabledMcpjsonServers``, a rejected one's to ``disabledMcpjsonServers``. These
commands write the same lists, so Claude Code and this CLI agree on the answer:

- ``approve`` adds the name to ``enabledMcpjsonServers`` and takes it out of
  ``disabledMcpjsonServers`` (where it would win);
- ``deny`` does the opposite.

Names compare as Claude Code compares them (``_`` for every character outside
``[A-Za-z0-9_-]``). The write is atomic: the whole file to a temporary file in the same
folder, flushed, given the old file's mode (a new one is 0600: it may hold tokens of
other tools), then ``os.replace``; a symlinked ``~/.claude.json`` is written through to
its target. Every other field stays as it was, in its order.

Not handled here: ``enableAllProjectMcpServers`` (set by hand), a
Claude Code that writes the file at the same moment (the later write wins, as between two
Claude Code windows), user and local servers (they need no approval).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, TextIO

from harness import config
from harness.errors import ConfigError, UsageError
from harness.naming import normalize

LISTS = {"approve": ("enabledMcpjsonServers", "disabledMcpjsonServers"), "deny": ("disabledMcpjsonServers", "enabledMcpjsonServers")}


def claude_json(paths: config.Paths) -> str:
    """The file approvals are written to, as the user should read it: ``~/.claude.json`` for your home, else its path."""
    return "~/.claude.json" if paths.home.expanduser().resolve() == Path.home().resolve() else str(paths.home / ".claude.json")


def hint(prog: str, name: str, paths: config.Paths) -> str:
    """What to do about a ``.mcp.json`` server not approved yet: the same words in ``servers``, ``doctor`` and ``approve``."""
    return f"not approved for this project: '{prog} approve {name}' lets it start (enabledMcpjsonServers in {claude_json(paths)})"


def answer(verb: str, name: str, paths: config.Paths, out: TextIO) -> int:
    """Write ``verb`` (approve or deny) for the ``.mcp.json`` server ``name`` of the project at ``paths.cwd``."""
    project = [s for s in config.load(paths) if s.scope == "project"]
    server = next((s for s in project if normalize(s.name) == normalize(name)), None)
    if server is None:
        known = ", ".join(s.name for s in project) or "none"
        raise UsageError(f"no .mcp.json server '{name}' here ({verb} answers for this folder's .mcp.json servers: {known})")
    into, out_of = LISTS[verb]
    target = (paths.home / ".claude.json").resolve()  # through a symlink: the file it points at is the one to replace
    shown = claude_json(paths)
    data = config.read_json(target, shown)
    projects = data.setdefault("projects", {})
    if not isinstance(projects, dict):
        raise ConfigError(f"{shown}: field 'projects': expected an object")
    key = str(paths.cwd.resolve())
    entry = projects.setdefault(key, {})
    if not isinstance(entry, dict):
        raise ConfigError(f"{shown}: field 'projects.{key}': expected an object")
    listed = {k: entry.get(k, []) for k in (into, out_of)}
    for k, names in listed.items():
        if not isinstance(names, list):
            raise ConfigError(f"{shown}: field 'projects.{key}.{k}': expected a list of names")
    done = "approved" if verb == "approve" else "denied"
    named = {k: [n for n in names if normalize(str(n)) == normalize(server.name)] for k, names in listed.items()}
    if named[into] and not named[out_of]:
        out.write(f"{server.name}: {done} already for {key} ({into} in {shown})\n")
        return 0
    if not named[into]:
        entry[into] = [*listed[into], server.name]
    if named[out_of]:
        entry[out_of] = [n for n in listed[out_of] if n not in named[out_of]]
    write_atomically(target, data)
    out.write(f"{server.name}: {done} for {key} ({into} in {shown})\n")
    return 0


def write_atomically(path: Path, data: Any, indent: int = 2) -> None:
    """``data`` as JSON into ``path``: a temporary file in the same folder with the old mode, then ``os.replace``."""
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=indent, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
