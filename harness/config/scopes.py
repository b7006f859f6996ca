"""Which config files are read, in what order, and which project servers may run (s27).

Scopes, as Claude Code has them (every path can be overridden, see ``Paths``):

- **enterprise**: ``<managed>/managed-mcp.json``. If it exists, only its servers load.
- otherwise **user** (``~/.claude.json`` ``mcpServers``) < **project** (every ``.mcp.json``
  from the filesystem root down to the working directory; the closer file wins) <
  **local** (``~/.claude.json`` ``projects[<cwd>].mcpServers``). A later scope replaces a
  server of the same name.
- **file**: files given explicitly (``--config``) replace the scopes; they must exist, and
  need no approval.

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.config.policy import apply_policy
from harness.config.formats import ServerConfig, file_format, parse_servers, read_json
from harness.errors import ConfigError
from harness.spec import State


@dataclass(frozen=True)
class Paths:
    """Where each scope's file is. The defaults are Claude Code's on Linux; tests and lessons pass their own."""

    home: Path = field(default_factory=Path.home)
    cwd: Path = field(default_factory=Path.cwd)
    managed: Path = Path("/etc/claude-code")


def load(paths: Paths, files: Iterable[Path] = ()) -> list[ServerConfig]:
    """The servers to run, by name: from ``files`` if given, else from the scopes; policy applied."""
    files = list(files)
    for f in files:
        if not f.is_file():  # a scope's file may be absent; a file the user named must be there
            raise ConfigError(f"{f}: no such file" if not f.exists() else f"{f}: not a file")
    if files:
        chosen = _merge(server for f in files for server in parse_servers(
            read_json(f, str(f)).get("mcpServers"), "file", str(f), file_format(f)))
    else:
        chosen = _scoped(paths)
    return apply_policy(chosen, paths.managed)


def copied(source: Path, root: Path) -> tuple[Path, Paths]:
    """``source`` copied into the folder ``root``, and ``Paths`` that find no other config there (no user, project
    or policy file): what a lesson from s28 on reads, so its run is the same on every machine."""
    path = root / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return path, Paths(home=root, cwd=root, managed=root)


def _scoped(paths: Paths) -> list[ServerConfig]:
    managed = paths.managed / "managed-mcp.json"
    if managed.is_file():  # enterprise control is exclusive
        return _merge(parse_servers(read_json(managed, str(managed)).get("mcpServers"), "enterprise", str(managed), "claude-code"))
    user_file = paths.home / ".claude.json"
    user = read_json(user_file, "~/.claude.json")
    found = parse_servers(user.get("mcpServers"), "user", "~/.claude.json", "claude-code")
    cwd = paths.cwd.resolve()
    for folder in reversed([cwd, *cwd.parents]):  # root first, so the closer file wins the merge
        project = folder / ".mcp.json"
        if project.is_file():
            found += parse_servers(read_json(project, str(project)).get("mcpServers"), "project", str(project), "claude-code")
    local = (user.get("projects") or {}).get(str(cwd)) or {}
    local = local if isinstance(local, dict) else {}
    found += parse_servers(local.get("mcpServers"), "local", "~/.claude.json", "claude-code")
    return [_approved(server, local) if server.scope == "project" else server for server in _merge(found)]


def _approved(server: ServerConfig, project: Mapping[str, Any]) -> ServerConfig:
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


def _merge(servers: Iterable[ServerConfig]) -> list[ServerConfig]:
    by_name: dict[str, ServerConfig] = {}
    for server in servers:
        by_name[server.name] = server  # later scopes and files win
    return [by_name[name] for name in sorted(by_name)]
