"""VS Code's ``mcp.json`` and Cursor's ``mcp.json``, read as those editors write them.

    format  file                                           table        transports
    vscode  .vscode/mcp.json, ~/.config/Code/User/mcp.json  servers      type: stdio, http, sse
    cursor  .cursor/mcp.json, ~/.cursor/mcp.json            mcpServers   command: stdio; url: http, else sse

Where each rule comes from:

- VS Code, "MCP configuration reference" (code.visualstudio.com/docs/copilot/reference/
  mcp-configuration): ``servers`` maps names to entries; ``type`` is ``stdio`` (``command``,
  ``args``, ``env``, ``envFile``, ``cwd``), ``http`` or ``sse`` (``url``, ``headers``). For
  ``http`` VS Code tries Streamable HTTP first and falls back to SSE, so it is read here
  as the ``http-or-sse`` transport (``harness.transports.fallback``). ``inputs`` is a list
  of ``{type: promptString | pickString, id, description, password, default, options}``;
  ``${input:ID}`` is replaced by the answer, asked once. ``${workspaceFolder}``,
  ``${userHome}`` and ``${env:VAR}`` are VS Code's predefined variables. ``dev`` (watch and
  debug a server under development) and ``gallery``/``version`` (the marketplace's) are
  the editor's own, read and left out without a warning.
- Cursor, "Model Context Protocol" (cursor.com/docs/context/mcp): ``mcpServers``, a
  ``command`` (with ``args``, ``env``, ``envFile``) or a ``url`` (with ``headers``); a
  ``url`` is Streamable HTTP, and SSE only for a server that answers as the MCP
  transports spec's backwards-compatibility section says (a 4xx to the POST of
  ``initialize``), hence ``http-or-sse`` too. Interpolation: ``${env:NAME}``,
  ``${userHome}``, ``${workspaceFolder}``, ``${workspaceFolderBasename}``,
  ``${pathSeparator}`` and ``${/}``.

An input is answered by ``--input ID=VALUE``, else asked on the terminal (a password
without echo), else its ``default``; with none of these its servers fail, naming it. A
password's value is a secret from then on: the transcript redacts it
(``harness.config.variables``). The workspace folder is the folder that holds ``.vscode``
or ``.cursor`` (for a user file: the current folder).

Not handled here: VS Code's ``settings.json`` ``"mcp"`` section (older releases), its
``command`` input type (runs a VS Code command), Cursor's ``auth`` (static OAuth client).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register
from harness.errors import ConfigError
from harness.jsonvalue import JSON, JSONObject

EDITOR_FIELDS = ("dev", "gallery", "version", "description")  # the editor's own: nothing for a client to do


def workspace(source: Source) -> Path:
    folder = source.path.resolve().parent
    return folder.parent if folder.name in (".vscode", ".cursor") else Path.cwd()


def variables(source: Source) -> dict[str, str]:
    folder = workspace(source)
    home = str(source.home or Path.home())
    return {"workspaceFolder": str(folder), "workspaceFolderBasename": folder.name, "userHome": home,
            "pathSeparator": os.sep, "/": os.sep}


def _stdio_or_remote(e: Entry, source: Source, kind: str | None) -> Server:
    if kind == "stdio" or (kind is None and e.has("command")):
        env = {}
        if (path := e.text("envFile")) is not None:
            env.update(entries.env_file(entries.substitute(path, variables(source)) or path, workspace(source), e))
        env.update(e.table("env"))  # env wins over envFile, as in both editors
        return Server("stdio", command=e.text("command", required=True), args=e.strings("args"), env=env, cwd=e.text("cwd"))
    transport = {"sse": "sse", "http": "http-or-sse", None: "http-or-sse"}[kind]
    return Server(transport, url=e.text("url", required=True), headers=e.table("headers"))


def _vscode_entry(inputs: JSONObject) -> Callable[[Entry, Source], Server]:
    def one(e: Entry, source: Source) -> Server:
        kind = e.get("type")
        if kind is not None and kind not in ("stdio", "http", "sse"):
            raise e.bad("type", "expected one of stdio, http, sse")
        found = entries.substituted(_stdio_or_remote(e, source, kind), variables(source))
        found.inputs = _answers(e.name, found, inputs, source)
        for key in EDITOR_FIELDS:
            e.get(key)
        return found
    return one


def _answers(name: str, found: Server, inputs: JSONObject, source: Source) -> dict[str, tuple[str, bool]]:
    """The value of each ``${input:ID}`` this server uses: --input, the terminal, or the input's default."""
    used = set()
    for text in (found.command, found.url, found.cwd, *found.args, *found.env.values(), *found.headers.values()):
        used.update(re.findall(r"\$\{input:([^}\s]+)\}", text or ""))
    answers = {}
    for ident in sorted(used):
        spec = inputs.get(ident)
        if spec is None:
            raise ConfigError(f"server '{name}': ${{input:{ident}}}: no input with id '{ident}' in 'inputs'")
        secret = spec.get("password") is True
        value = source.inputs.get(ident)
        if value is None and source.ask is not None:
            question = spec.get("description") or ident
            value = source.ask(ident, f"{question} ({ident})", secret)
        if value is None and isinstance(spec.get("default"), str):
            value = spec["default"]
        if value is None:
            continue  # unanswered: expanding it fails this server, naming the input
        options = spec.get("options")
        if spec.get("type") == "pickString" and isinstance(options, list):
            allowed = [o if isinstance(o, str) else o.get("value") if isinstance(o, dict) else None for o in options]
            if value not in allowed:
                raise ConfigError(f"server '{name}': input '{ident}': expected one of {', '.join(str(a) for a in allowed)}")
        answers[ident] = (value, secret)
    return answers


def _inputs(document: JSONObject, source: Source) -> JSONObject:
    given = document.get("inputs") or []
    if not isinstance(given, list) or not all(isinstance(i, dict) and isinstance(i.get("id"), str) for i in given):
        raise ConfigError(f"{source.shown}: field 'inputs': expected a list of objects, each with an 'id'")
    for spec in given:
        if spec.get("type") not in ("promptString", "pickString"):
            source.warning(f"input '{spec['id']}': type '{spec.get('type')}' is not read (promptString and pickString are)")
    return {i["id"]: i for i in given if i.get("type") in ("promptString", "pickString")}


def read_vscode(document: JSON, source: Source) -> list[ServerConfig]:
    inputs = _inputs(document, source)
    return entries.read_table(document.get("servers"), source, "servers", _vscode_entry(inputs))


def _cursor_entry(e: Entry, source: Source) -> Server:
    kind = e.get("type")  # Cursor writes none; some files carry VS Code's words
    if kind is not None and kind not in ("stdio", "http", "sse", "streamableHttp"):
        raise e.bad("type", "expected one of stdio, http, sse")
    found = _stdio_or_remote(e, source, {"streamableHttp": "http"}.get(kind, kind))
    return entries.substituted(found, variables(source))


def read_cursor(document: JSON, source: Source) -> list[ServerConfig]:
    return entries.read_table(document.get("mcpServers"), source, "mcpServers", _cursor_entry)


def _named(folder: str) -> Callable[[Path], bool]:
    return lambda path: path.name == "mcp.json" and path.parent.name == folder


def _is_vscode(document: JSON) -> bool:
    return isinstance(document, dict) and isinstance(document.get("servers"), dict)


register(Reader("vscode", ("servers",), lambda p: _named(".vscode")(p) or (p.name == "mcp.json" and p.parent.name == "User"),
                _is_vscode, read_vscode, "jsonc",
                lambda home, cwd: [(home / ".config" / "Code" / "User" / "mcp.json", "user"), (cwd / ".vscode" / "mcp.json", "project")]))
register(Reader("cursor", ("mcpServers",), _named(".cursor"), lambda d: False, read_cursor, "jsonc",
                lambda home, cwd: [(home / ".cursor" / "mcp.json", "user"), (cwd / ".cursor" / "mcp.json", "project")]))
