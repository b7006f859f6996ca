"""``discover``: every MCP client config on this machine, each with its client, path, scope and servers.

It looks where each client keeps its file (``Reader.places`` of every format in
``harness.config``, under ``--home`` and from the current folder), and where Claude Code
keeps its own: ``~/.claude.json``, each ``.mcp.json`` from here up to the root, and the
enterprise ``managed-mcp.json``. Each file found is read alone, in its client's format, as
``--config FILE --format CLIENT`` would read it; a file that cannot be read is listed with
why, and the others still are. Nothing is started and nothing is written.

Text: one line per file, ``client  path  scope  N servers: names``; ``--json``: a list of
``{client, path, scope, servers: [{name, transport, state}], error}``.

Not handled here: a client's files outside the places the course knows for it (a custom
``--config`` path, a profile folder), and Claude Code's local scope inside ``~/.claude.json``
(``servers`` lists it, for this folder).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from harness import config, echo
from harness.errors import ConfigError


def places(paths: config.Paths) -> Iterator[tuple[str, Path, str]]:
    """(client, path, scope) of every file a client would read from here, found or not; each path once."""
    cwd, seen = paths.cwd.resolve(), set()
    claude = [(paths.managed / "managed-mcp.json", "managed"), (paths.home / ".claude.json", "user"),
              *((folder / ".mcp.json", "project") for folder in reversed([cwd, *cwd.parents]))]
    listed = [("claude-code", path, scope) for path, scope in claude]
    listed += [(reader.name, path, scope) for reader in config.readers() for path, scope in reader.places(paths.home, cwd)]
    for client, path, scope in listed:
        if path not in seen:
            seen.add(path)
            yield client, path, scope


def found(paths: config.Paths) -> list[dict[str, Any]]:
    """One row per file that exists: its client, path, scope, servers (name, transport, state) or the error."""
    rows = []
    for client, path, scope in places(paths):
        if not path.is_file():
            continue
        row: dict[str, Any] = {"client": client, "path": str(path), "scope": scope, "servers": [], "error": None}
        try:
            servers = config.load(paths, [path], fmt=client, warn=lambda text: None)  # warnings belong to a real read
        except ConfigError as exc:
            row["error"] = str(exc)
        else:
            row["servers"] = [{"name": s.name, "transport": s.spec.transport if s.spec else None, "state": s.state.value}
                              for s in servers]
        rows.append(row)
    return rows


def discover(paths: config.Paths, as_json: bool, out: TextIO) -> int:
    rows = found(paths)
    if as_json:
        out.write(json.dumps(rows, indent=1) + "\n")
        return 0
    if not rows:
        out.write(f"no MCP client config found (looked under {paths.home} and from {paths.cwd} up)\n")
        return 0
    width = max(len(r["path"]) for r in rows)
    kinds = max(len(r["client"]) for r in rows)
    for r in rows:
        names = [s["name"] for s in r["servers"]]
        detail = f"cannot be read: {echo.text(r['error'])}" if r["error"] else \
            f"{echo.count(len(names), 'server')}" + (f": {echo.names(names)}" if names else "")
        out.write(f"{r['client']:<{kinds}}  {echo.line(r['path']):<{width}}  {r['scope']:<8} {detail}\n")
    return 0
