"""Zed's ``settings.json`` ``context_servers``, read as Zed writes it: JSON with comments.

    format  file                                              table            transports
    zed     ~/.config/zed/settings.json, .zed/settings.json   context_servers  command: stdio; url: http

From Zed's docs, "Model Context Protocol" (zed.dev/docs/ai/mcp), and its settings
(zed-industries/zed, ``crates/project/src/project_settings.rs``, ``ContextServerSettings``):

- the file is JSON with ``//`` and ``/* */`` comments and trailing commas, as Zed's own
  settings parser allows (``harness.config.documents``: ``jsonc``);
- a custom server is ``{"command": "npx", "args": [...], "env": {...}}`` (newer Zed, with
  ``"source": "custom"`` in some releases), or, as older Zed wrote it,
  ``{"command": {"path": "npx", "args": [...], "env": {...}}, "settings": {}}``;
- a remote server is ``{"url": "https://...", "headers": {...}}`` (Streamable HTTP);
- ``"enabled": false`` turns one off;
- an entry with only ``settings`` (or ``"source": "extension"``) configures a server that a
  Zed extension provides: there is no command to run here, so it is left out with a note.

Not handled here: Zed's ``context_server_timeout`` and the extensions' own servers.
"""

from __future__ import annotations

from pathlib import Path

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register
from harness.jsonvalue import JSON


def _entry(e: Entry, source: Source) -> Server | None:
    command = e.entry.get("command")
    e.get("source")
    if e.entry.get("source") == "extension" or (command is None and not e.has("url")):
        e.get("settings")
        source.warning(f"server '{e.name}': provided by a Zed extension (no 'command' or 'url'): left out")
        return None
    if isinstance(command, dict):  # older Zed: {"command": {"path", "args", "env"}}
        nested = Entry(e.name, command)
        e.get("command")
        found = Server("stdio", command=nested.text("path", required=True), args=nested.strings("args"), env=nested.table("env"))
        for key in nested.unknown():
            source.warning(f"server '{e.name}': field 'command.{key}': not read by this harness (left out)")
        if e.get("settings") not in (None, {}):
            source.warning(f"server '{e.name}': field 'settings': for a Zed extension's server; left out")
    elif command is not None:
        found = Server("stdio", command=e.text("command", required=True), args=e.strings("args"), env=e.table("env"))
    else:
        found = Server("http", url=e.text("url", required=True), headers=e.table("headers"))
    found.disabled = '"enabled": false' if not e.flag("enabled", True) else ""
    return found


def read(document: JSON, source: Source) -> list[ServerConfig]:
    return entries.read_table(document.get("context_servers"), source, "context_servers", _entry)


def _named(path: Path) -> bool:
    return path.name == "settings.json" and path.parent.name in ("zed", ".zed")


register(Reader("zed", ("context_servers",), _named, lambda d: isinstance(d, dict) and isinstance(d.get("context_servers"), dict),
                read, "jsonc",
                lambda home, cwd: [(home / ".config" / "zed" / "settings.json", "user"), (cwd / ".zed" / "settings.json", "project")]))
