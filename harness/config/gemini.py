"""Gemini CLI's ``settings.json`` ``mcpServers``, read as Gemini CLI writes it.

    format  file                                             table       transports
    gemini  ~/.gemini/settings.json, .gemini/settings.json   mcpServers  command: stdio; httpUrl: http; url: sse

From Gemini CLI's "MCP servers with Gemini CLI" (google-gemini/gemini-cli,
docs/tools/mcp-server.md) and its configuration reference (docs/get-started/configuration.md):

- a server has exactly one of ``command`` (with ``args``, ``env``, ``cwd``), ``url`` (an
  SSE endpoint) or ``httpUrl`` (Streamable HTTP), and ``headers`` for the two remote ones;
- ``timeout`` is in **milliseconds** (default 600 000): here the call timeout;
- ``env`` values, and ``headers``, may name variables as ``$VAR`` or ``${VAR}``; both are
  expanded from the environment each time the server starts (``harness.config.variables``),
  so ``"$MY_TOKEN"`` no longer reaches the server as that literal text;
- ``includeTools`` (only these) and ``excludeTools`` (never these; it wins) filter the
  server's tools (``harness.config.toolfilter``);
- ``trust: true`` skips Gemini's confirmations. Here it is read and not applied: calls are
  decided by this harness's own permission rules (s31). A warning says so.
- ``description`` is for people; ``type`` (``sse``/``http``, newer files) picks the transport
  of ``url``; ``oauth`` and ``authProviderType`` are Gemini's own sign-in, and warned about.

The file holds every other Gemini setting too; only ``mcpServers`` is read. ``mcp.allowed``
and ``mcp.excluded`` (top-level lists of server names) turn servers off, as in Gemini.
Not handled here: ``%VAR%`` (Windows), ``mcp.serverCommand``, extensions' servers.
"""

from __future__ import annotations

from dataclasses import replace

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register
from harness.errors import ConfigError
from harness.jsonvalue import JSON
from harness.spec import State

MAX_MS = 3_600_000


def _entry(e: Entry, source: Source) -> Server:
    given = [k for k in ("command", "url", "httpUrl") if e.has(k)]
    if len(given) > 1:
        raise e.bad(given[1], f"give one of command, url, httpUrl (this entry has {', '.join(given)})")
    kind = e.get("type")
    if e.has("command") or not given:
        found = Server("stdio", command=e.text("command", required=True), args=e.strings("args"),
                       env={k: entries.dollar_braces(v) for k, v in e.table("env").items()}, cwd=e.text("cwd"))
    elif e.has("httpUrl"):
        found = Server("http", url=e.text("httpUrl"), url_field="httpUrl")
    else:
        if kind is not None and kind not in ("sse", "http"):
            raise e.bad("type", "expected sse or http")
        found = Server("http" if kind == "http" else "sse", url=e.text("url"))
    if found.url is not None:
        found.headers = {k: entries.dollar_braces(v) for k, v in e.table("headers").items()}
    found.settable["call"] = '"timeout" (milliseconds)'
    if (ms := e.number("timeout", "milliseconds", MAX_MS)) is not None:
        found.timeouts["call"] = (ms / 1000, '"timeout" (milliseconds)')
    found.include, found.exclude = e.names("includeTools"), e.strings("excludeTools")
    if e.flag("trust", False):
        source.warning(f"server '{e.name}': field 'trust': not applied: this harness asks about calls by its own "
                       "permission rules (chat --yes allows every call)")
    e.get("description")
    return found


def read(document: JSON, source: Source) -> list[ServerConfig]:
    servers = entries.read_table(document.get("mcpServers"), source, "mcpServers", _entry)
    mcp = document.get("mcp") if isinstance(document.get("mcp"), dict) else {}
    allowed, excluded = mcp.get("allowed"), mcp.get("excluded")
    for key, names in (("mcp.allowed", allowed), ("mcp.excluded", excluded)):
        if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            raise ConfigError(f"{source.shown}: field '{key}': expected a list of server names")
    off = []
    for server in servers:
        why = "listed in mcp.excluded" if excluded and server.name in excluded else \
            "not in mcp.allowed" if allowed is not None and server.name not in allowed else ""
        off.append(replace(server, state=State.DISABLED, reason=f"{why} in {source.shown}") if why and server.spec else server)
    return off


def _holds(document: JSON) -> bool:
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    gemini_only = ("httpUrl", "includeTools", "excludeTools", "trust")
    return isinstance(servers, dict) and any(isinstance(e, dict) and any(k in e for k in gemini_only) for e in servers.values())


register(Reader("gemini", ("mcpServers",), lambda p: p.name == "settings.json" and p.parent.name == ".gemini", _holds, read, "jsonc",
                lambda home, cwd: [(home / ".gemini" / "settings.json", "user"), (cwd / ".gemini" / "settings.json", "project")]))
