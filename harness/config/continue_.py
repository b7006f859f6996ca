"""Continue's ``config.yaml`` ``mcpServers`` blocks, and ``.continue/mcpServers/*.yaml``.

    format    file                                                    table       transports
    continue  ~/.continue/config.yaml, .continue/mcpServers/*.yaml    mcpServers  type: stdio, sse, streamable-http

From Continue's docs, "config.yaml Reference" (docs.continue.dev/reference, ``mcpServers``)
and "MCP" (docs.continue.dev/customize/deep-dives/mcp), and its schema
(continuedev/continue ``packages/config-yaml``):

- the file has ``name``, ``version``, ``schema`` and other blocks (models, rules...); the
  MCP servers are a **list** under ``mcpServers``, each with a ``name``;
- a block is ``command`` (with ``args``, ``env``, ``cwd``) or ``url`` with ``type``
  ``sse`` or ``streamable-http`` (a ``url`` with no ``type`` is tried as Streamable HTTP,
  then SSE); ``requestOptions.headers`` are its headers;
- ``connectionTimeout`` is in milliseconds: the connect timeout here;
- ``${{ secrets.NAME }}`` and ``${{ inputs.NAME }}`` are read from the environment at each
  start (as ``${NAME}``), since Continue's secrets come from the Hub or a ``.env`` file;
- a block with ``uses:`` is a Continue Hub reference (``owner/block``): there is nothing to
  run without the Hub, so it is left out with a note.

A file in ``.continue/mcpServers/`` holds one block file (the same ``mcpServers`` list).
Not handled here: the JSON files Continue also reads from that folder, other than through
the ``mcpServers`` object formats (they are Claude Desktop's shape, read as ``auto``).
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register
from harness.errors import ConfigError
from harness.jsonvalue import JSON, JSONObject

_SECRET = re.compile(r"\$\{\{\s*(?:secrets|inputs)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _vars(text: str) -> str:
    return _SECRET.sub(lambda m: "${" + m.group(1) + "}", text)


def _entry(e: Entry, source: Source) -> Server | None:
    e.get("name")
    if e.has("uses"):
        e.get("uses")
        e.get("with")
        source.warning(f"server '{e.name}': 'uses: {e.entry['uses']}' is a Continue Hub block: left out")
        return None
    kind = e.get("type")
    if kind is not None and kind not in ("stdio", "sse", "streamable-http"):
        raise e.bad("type", "expected one of stdio, sse, streamable-http")
    if kind == "stdio" or (kind is None and e.has("command")):
        found = Server("stdio", command=e.text("command", required=True), args=e.strings("args"),
                       env={k: _vars(v) for k, v in e.table("env").items()}, cwd=e.text("cwd"))
    else:
        options = e.get("requestOptions") or {}
        if not isinstance(options, dict):
            raise e.bad("requestOptions", "expected an object")
        nested = Entry(e.name, options)
        headers = {k: _vars(v) for k, v in nested.table("headers").items()}
        for key in nested.unknown():
            source.warning(f"server '{e.name}': field 'requestOptions.{key}': not read by this harness (left out)")
        found = Server({"sse": "sse", "streamable-http": "http"}.get(kind or "", "http-or-sse"), url=e.text("url", required=True),
                       headers=headers)
    found.command = _vars(found.command) if found.command else None
    found.args = tuple(_vars(a) for a in found.args)
    found.url = _vars(found.url) if found.url else None
    found.settable["connect"] = '"connectionTimeout" (milliseconds)'
    if (ms := e.number("connectionTimeout", "milliseconds", 3_600_000)) is not None:
        found.timeouts["connect"] = (ms / 1000, '"connectionTimeout" (milliseconds)')
    return found


def read(document: JSON, source: Source) -> list[ServerConfig]:
    blocks = document.get("mcpServers")
    if blocks is None:
        return []
    if not isinstance(blocks, list):
        raise ConfigError(f"{source.shown}: field 'mcpServers': expected a list of servers, each with a 'name'")
    table: JSONObject = {}
    for number, block in enumerate(blocks, 1):
        name = block.get("name") if isinstance(block, dict) else None
        if not isinstance(name, str) or not name.strip():
            name = str(block.get("uses")) if isinstance(block, dict) and block.get("uses") else f"mcpServers[{number}]"
        if name in table:
            source.warning(f"server '{name}': named twice in mcpServers; the later block is used")
        table[name] = block
    return entries.read_table(table, source, "mcpServers", _entry)


def _holds(document: JSON) -> bool:
    return isinstance(document, dict) and isinstance(document.get("mcpServers"), list)


def _places(home: Path, cwd: Path) -> list[tuple[Path, str]]:
    folder = cwd / ".continue" / "mcpServers"
    blocks = sorted(p for p in folder.glob("*.y*ml") if p.suffix in (".yaml", ".yml")) if folder.is_dir() else []
    return [(home / ".continue" / "config.yaml", "user"), *((p, "project") for p in blocks)]


def _named(path: Path) -> bool:
    return (path.name in ("config.yaml", "config.yml") and path.parent.name == ".continue") or \
        (path.suffix in (".yaml", ".yml") and path.parent.name == "mcpServers" and path.parent.parent.name == ".continue")


register(Reader("continue", ("mcpServers",), _named, _holds, read, "yaml", _places))
