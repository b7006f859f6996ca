"""Windsurf's ``mcp_config.json``, read as Windsurf (Cascade) writes it.

    format    file                                  table       transports
    windsurf  ~/.codeium/windsurf/mcp_config.json   mcpServers  command: stdio; serverUrl (or url): http, else sse

From Windsurf's "Cascade MCP integration" docs (docs.windsurf.com/windsurf/cascade/mcp):
a server is a ``command`` with ``args`` and ``env``, or a remote ``serverUrl`` with
``headers`` (a ``url``, Cursor's word, is read too here, though Windsurf reads only
``serverUrl``); a remote server speaks Streamable HTTP or SSE, so it is
read as ``http-or-sse`` (``harness.transports.fallback``). ``${env:VAR}`` works in
``command``, ``args``, ``env``, ``serverUrl`` and ``headers``. ``disabled: true`` turns
a server off; ``disabledTools`` (the tools switched off in Cascade's panel) are left
out of its tools (``harness.config.toolfilter``).

Not handled here: ``${file:/path}`` interpolation (a file's content): it reaches the server
as written.
"""

from __future__ import annotations


from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register
from harness.jsonvalue import JSON


def _entry(e: Entry, source: Source) -> Server:
    if e.has("command") or not (e.has("serverUrl") or e.has("url")):
        found = Server("stdio", command=e.text("command", required=True), args=e.strings("args"), env=e.table("env"))
    else:
        key = "serverUrl" if e.has("serverUrl") else "url"
        found = Server("http-or-sse", url=e.text(key, required=True), url_field=key, headers=e.table("headers"))
    found.disabled = '"disabled": true' if e.flag("disabled", False) else ""
    found.exclude = e.strings("disabledTools")
    return found


def read(document: JSON, source: Source) -> list[ServerConfig]:
    return entries.read_table(document.get("mcpServers"), source, "mcpServers", _entry)


def _holds(document: JSON) -> bool:
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    return isinstance(servers, dict) and any(isinstance(e, dict) and "serverUrl" in e for e in servers.values())


register(Reader("windsurf", ("mcpServers",), lambda p: p.name == "mcp_config.json", _holds, read, "jsonc",
                lambda home, cwd: [(home / ".codeium" / "windsurf" / "mcp_config.json", "user")]))
