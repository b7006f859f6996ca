"""``add NAME`` and ``remove NAME``: a server written into, or taken out of, the file a client reads.

    mcp-course add docs -- npx -y @acme/docs-mcp --root .
    mcp-course add api --url https://api.example/mcp --header "Authorization: Bearer ${API_TOKEN}" --scope user
    mcp-course remove docs

``--format`` picks the client (default ``claude-code``); ``--scope`` picks Claude Code's file,
as ``claude mcp add`` does: ``local`` (default) this folder's entry in ``~/.claude.json``
(``projects[<folder>].mcpServers``), ``project`` this folder's ``.mcp.json``, ``user`` the
top-level ``mcpServers`` of ``~/.claude.json``. For ``claude-desktop`` and ``cline`` it is
their one user file. ``--config FILE`` names the file instead. The entry is written in that
client's words (Claude Code: ``type`` ``stdio``/``http``/``sse``; Cline: ``streamableHttp``;
Claude Desktop: stdio only).

The write is ``approve``'s: the whole file to a temporary file in the same folder, flushed,
given the old file's mode, then ``os.replace``; every other key stays as it was, in its
order, and the file keeps its indentation, so a diff shows only the server's lines.

Not handled here: the formats whose files hold comments or are TOML or YAML (VS Code,
Cursor, Windsurf, Zed, Gemini CLI, Codex, goose, Continue): writing them back would drop
what a JSON or YAML library does not keep, so ``add`` refuses them, naming the file to
edit by hand.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any, TextIO

from harness import config
from harness.commands.approve import claude_json, write_atomically
from harness.config.formats import CLINE_SETTINGS, reader
from harness.errors import ConfigError, UsageError

WRITTEN = ("claude-code", "claude-desktop", "cline")  # strict JSON: nothing in them a rewrite could lose


def target(args: argparse.Namespace, paths: config.Paths) -> tuple[Path, str, list[str]]:
    """The file to write, how to name it, and the keys down to its ``mcpServers`` table."""
    fmt = args.format or "claude-code"
    if fmt not in WRITTEN:
        places = [str(p) for p, _ in reader(fmt).places(paths.home, paths.cwd)] or ["its file"]
        raise UsageError(f"--format {fmt}: {args.command} writes {', '.join(WRITTEN)} files; a {fmt} file may hold comments "
                         f"or order a rewrite would lose: edit {' or '.join(places)} by hand")
    if args.config:
        return args.config[0], str(args.config[0]), ["mcpServers"]
    if fmt == "claude-desktop":
        path = paths.home / ".config" / "Claude" / "claude_desktop_config.json"
        return path, str(path), ["mcpServers"]
    if fmt == "cline":
        return paths.home / CLINE_SETTINGS, str(paths.home / CLINE_SETTINGS), ["mcpServers"]
    if args.scope == "project":
        return paths.cwd / ".mcp.json", ".mcp.json", ["mcpServers"]
    keys = ["mcpServers"] if args.scope == "user" else ["projects", str(paths.cwd.resolve()), "mcpServers"]
    return paths.home / ".claude.json", claude_json(paths), keys


def entry(args: argparse.Namespace, fmt: str) -> dict[str, Any]:
    """The server's entry, in the words of ``fmt``."""
    command = list(args.server_command)
    if bool(command) == bool(args.url):
        raise UsageError("add: give either -- COMMAND ARGS... (a local server) or --url URL (a remote one), not both")
    env = dict(_pair(e, "=", "--env", "KEY=VALUE") for e in args.env)
    headers = dict(_pair(h, ":", "--header", "'Name: value'") for h in args.header)
    if command:
        if headers:
            raise UsageError("add: --header goes with --url")
        found: dict[str, Any] = {"type": "stdio"} if fmt == "claude-code" else {}
        found.update({"command": command[0], "args": command[1:]})
        return {**found, "env": env} if env else found
    if fmt == "claude-desktop":
        raise UsageError("--format claude-desktop: its file holds local servers only (-- COMMAND ARGS...)")
    if env:
        raise UsageError("add: --env goes with a command (a remote server gets --header)")
    kind = args.transport or "http"
    found = {"type": "streamableHttp" if fmt == "cline" and kind == "http" else kind, "url": args.url}
    return {**found, "headers": headers} if headers else found


def add(args: argparse.Namespace, paths: config.Paths, out: TextIO) -> int:
    fmt = args.format or "claude-code"
    path, shown, keys = target(args, paths)
    new = entry(args, fmt)
    data, indent = _read(path, shown)
    table = _table(data, keys, shown)
    if args.name in table:
        raise UsageError(f"server '{args.name}' is in {shown} already: remove it first ({args.prog} remove {args.name})")
    table[args.name] = new
    _written(path, shown, data, indent)
    out.write(f"{args.name}: added to {shown}" + (f" (projects[{keys[1]}])" if len(keys) > 2 else "") + "\n")
    return 0


def remove(args: argparse.Namespace, paths: config.Paths, out: TextIO) -> int:
    path, shown, keys = target(args, paths)
    data, indent = _read(path, shown)
    table = _table(data, keys, shown)
    if args.name not in table:
        raise UsageError(f"no server '{args.name}' in {shown} (servers there: {', '.join(table) or 'none'})")
    del table[args.name]
    _written(path, shown, data, indent)
    out.write(f"{args.name}: removed from {shown}\n")
    return 0


def _pair(text: str, sep: str, option: str, shape: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise UsageError(f"{option} {text!r}: expected {shape}")
    return key.strip(), value.strip() if sep == ":" else value


def _read(path: Path, shown: str) -> tuple[dict[str, Any], int]:
    """The file's object (``{}`` if there is none yet) and its indentation (2 for a new file)."""
    data = config.read_json(path.resolve(), shown)
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return data, 2
    found = re.search(r"\n( +)\S", text)
    return data, len(found.group(1)) if found else 2


def _table(data: dict[str, Any], keys: list[str], shown: str) -> dict[str, Any]:
    """The ``mcpServers`` object down ``keys``, made where it is missing; a ``ConfigError`` if one is not an object."""
    node = data
    for depth, key in enumerate(keys):
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"{shown}: field '{'.'.join(keys[:depth + 1])}': expected an object")
    return node


def _written(path: Path, shown: str, data: dict[str, Any], indent: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_atomically(path.resolve(), data, indent)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot write: {exc.strerror or exc}") from None
