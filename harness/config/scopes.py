"""Which config files are read, in what order, and which project servers may run (s27).

Scopes, as Claude Code has them (every path can be overridden, see ``Paths``):

- **enterprise**: ``<managed>/managed-mcp.json``. If it exists, only its servers load.
- otherwise **user** (``~/.claude.json`` ``mcpServers``) < **project** (every ``.mcp.json``
  from the filesystem root down to the working directory; the closer file wins) <
  **local** (``~/.claude.json`` ``projects[<cwd>].mcpServers``). A later scope replaces a
  server of the same name.
- **file**: files given explicitly (``--config``) replace the scopes; they must exist, and
  need no approval. Each is read in the format its name or content says
  (``harness.config.formats``), or the one ``fmt`` (``--format``) names. A server named in
  two of them: the later file's wins, and a warning names both files; with two files or
  more, a broken entry's error names its file.
- **other clients**: with no file named, each registered format's usual places
  (``Reader.places``: ``~/.cursor/mcp.json``, ``~/.gemini/settings.json``,
  ``.vscode/mcp.json``...) are read first, and Claude Code's scopes above win over them. A
  server from another client's *project* file (in the working directory) is listed
  ``blocked`` until that file is named with ``--config``, as a ``.mcp.json`` waits for
  approval. A file there that cannot be read is a warning, not an error: it is that
  client's file. A name two clients' files both give is a warning naming both files.

A server from a ``.mcp.json`` runs only once the user approved it for that project, as in
Claude Code (``enabledMcpjsonServers`` in ``~/.claude.json``): opening a cloned repository
must never start its programs.

``load`` is the whole of it: the files, merged by name, then the enterprise policy
(``harness.config.policy``). ``copied`` is a lesson's way to read one settings file and
nothing of the machine it runs on.

Introduced by s27. Not handled here: Cline's remote config, writing files (s29), watching
them (``harness.reload``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.config.fields import checked
from harness.config.policy import apply_policy
from harness.config.formats import Ask, ServerConfig, Source, Warn, parse_servers, read_file, read_json, readers
from harness.errors import ConfigError
from harness.jsonvalue import JSONMapping
from harness.spec import State


@dataclass(frozen=True)
class Paths:
    """Where each scope's file is. The defaults are Claude Code's on Linux; tests and lessons pass their own."""

    home: Path = field(default_factory=Path.home)
    cwd: Path = field(default_factory=Path.cwd)
    managed: Path = Path("/etc/claude-code")


def load(paths: Paths, files: Iterable[Path] = (), *, fmt: str | None = None, inputs: Mapping[str, str] | None = None,
         ask: Ask | None = None, warn: Warn | None = None) -> list[ServerConfig]:
    """The servers to run, by name: from ``files`` if given, else from the scopes; policy applied.

    ``fmt``: the format of every file named (``--format``). ``inputs``: VS Code input values
    (``--input ID=VALUE``); ``ask``: who answers the others (None: nobody). ``warn``: where
    warnings go, one line each (None: stderr).
    """
    files = list(files)
    for f in files:
        if not f.is_file():  # a scope's file may be absent; a file the user named must be there
            raise ConfigError(f"{f}: no such file" if not f.exists() else f"{f}: not a file")

    def source(path: Path, shown: str, scope: str) -> Source:
        return Source(path, shown, scope, dict(inputs or {}), ask, warn, paths.home)

    if files:
        found = [server for f in files for server in read_file(f, source(f, str(f), "file"), fmt)]
        if len(files) > 1:  # which file a broken entry is in, when there is more than one
            found = [replace(s, reason=f"{s.reason} (in {s.source})") if s.state is State.FAILED else s for s in found]
        chosen = _merge(found, lambda kept, later: _said(warn, f"server '{kept.name}': in both {kept.source} and {later.source}; "
                                                               f"the one in {later.source} is used (the later --config file wins)"))
    else:
        chosen = _scoped(paths, source, warn)
    return [checked(s) for s in apply_policy(chosen, paths.managed)]  # a later mechanism's field, as it would read it


def _said(warn: Warn | None, text: str) -> None:
    if warn is not None:
        warn(text)
    else:
        print(f"warning: {text}", file=sys.stderr)


MakeSource = Callable[[Path, str, str], Source]  # (path, as shown, scope) -> where an entry was read


def _others(paths: Paths, source: MakeSource, warn: Warn | None) -> list[ServerConfig]:
    """The servers in every other client's usual files (``Reader.places``), user files first; project ones blocked."""
    found: list[ServerConfig] = []
    cwd = paths.cwd.resolve()
    for reader in readers():
        for path, scope in reader.places(paths.home, cwd):
            if not path.is_file():
                continue
            shown = _shown(path, paths.home, cwd, scope)
            try:
                servers = read_file(path, source(path, shown, scope), reader.name, explicit=False)
            except ConfigError as exc:
                _said(warn, f"{exc} (this file is left out)")
                continue
            found += [replace(s, state=State.BLOCKED, reason=f"a project server from {shown}, not started unless named: "
                                                             f"run with --config {shown}")
                      if scope == "project" and s.state is State.PENDING else s for s in servers]
    return found


def _shown(path: Path, home: Path, cwd: Path, scope: str) -> str:
    """A project file relative to the working folder, a user file from ``~``: as the user would type it."""
    for folder, prefix in ((cwd, ""), (home, "~/"))[::-1 if scope == "user" else 1]:
        try:
            return prefix + str(path.relative_to(folder))
        except ValueError:
            continue
    return str(path)


def copied(source: Path, root: Path) -> tuple[Path, Paths]:
    """``source`` copied into the folder ``root``, and ``Paths`` that find no other config there (no user, project
    or policy file): what a lesson from s28 on reads, so its run is the same on every machine."""
    path = root / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return path, Paths(home=root, cwd=root, managed=root)


def _scoped(paths: Paths, source: MakeSource, warn: Warn | None) -> list[ServerConfig]:
    managed = paths.managed / "managed-mcp.json"
    if managed.is_file():  # enterprise control is exclusive
        return _merge(parse_servers(read_json(managed, str(managed), warn).get("mcpServers"), "enterprise", str(managed), "claude-code"))
    others = _merge(_others(paths, source, warn), lambda kept, later: _said(
        warn, f"server '{kept.name}': in both {kept.source} and {later.source}; the one in {later.source} is used"))
    claude = _claude_code(paths, warn)
    theirs = {s.name: s for s in claude}
    for server in others:
        if server.name in theirs:
            _said(warn, f"server '{server.name}': in both {server.source} and {theirs[server.name].source}; "
                        f"the one in {theirs[server.name].source} is used (Claude Code's scopes win)")
    return _merge([*others, *claude])


def _claude_code(paths: Paths, warn: Warn | None = None) -> list[ServerConfig]:
    user_file = paths.home / ".claude.json"
    user = read_json(user_file, "~/.claude.json", warn)
    found = parse_servers(user.get("mcpServers"), "user", "~/.claude.json", "claude-code")
    cwd = paths.cwd.resolve()
    for folder in reversed([cwd, *cwd.parents]):  # root first, so the closer file wins the merge
        project = folder / ".mcp.json"
        if project.is_file():
            found += parse_servers(read_json(project, str(project), warn).get("mcpServers"), "project", str(project), "claude-code")
    local = (user.get("projects") or {}).get(str(cwd)) or {}
    local = local if isinstance(local, dict) else {}
    found += parse_servers(local.get("mcpServers"), "local", "~/.claude.json", "claude-code")
    return [_approved(server, local) if server.scope == "project" else server for server in _merge(found)]


def _approved(server: ServerConfig, project: JSONMapping) -> ServerConfig:
    """A ``.mcp.json`` server runs only once the user approved it for this project (Claude Code's rule).

    A cloned repository must not start programs by being opened. The answers live in
    ``~/.claude.json`` under ``projects[<cwd>]``: ``disabledMcpjsonServers`` (rejected, and
    this wins), ``enabledMcpjsonServers``, or ``enableAllProjectMcpServers: true``.
    An unanswered server is listed ``blocked`` with how to approve it, a rejected one
    ``disabled``; neither is started.
    """
    if server.state is not State.PENDING:
        return server
    def named(key: str) -> bool:
        names = project.get(key)
        return isinstance(names, list) and _plain(server.name) in {_plain(str(n)) for n in names}
    if named("disabledMcpjsonServers"):
        return replace(server, state=State.DISABLED, reason="rejected for this project (disabledMcpjsonServers in ~/.claude.json)")
    if named("enabledMcpjsonServers") or project.get("enableAllProjectMcpServers") is True:
        return server
    return replace(server, state=State.BLOCKED, reason=(
        "a project server not approved yet: add it to enabledMcpjsonServers for this project in ~/.claude.json"))


def _plain(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)  # names compare as the model would see them (Claude Code does the same)


def _merge(servers: Iterable[ServerConfig], clash: Callable[[ServerConfig, ServerConfig], None] | None = None) -> list[ServerConfig]:
    """By name, the later one winning; ``clash(kept, later)`` is told of each name two sources give."""
    by_name: dict[str, ServerConfig] = {}
    for server in servers:
        if clash is not None and server.name in by_name and by_name[server.name].source != server.source:
            clash(by_name[server.name], server)
        by_name[server.name] = server  # later scopes and files win
    return [by_name[name] for name in sorted(by_name)]
