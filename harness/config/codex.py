"""Codex's ``config.toml`` ``[mcp_servers.NAME]`` tables, read as Codex writes them.

    format  file                                          table        transports
    codex   ~/.codex/config.toml, .codex/config.toml      mcp_servers  command: stdio; url: http

From Codex's docs, "Model Context Protocol" and the configuration reference
(developers.openai.com/codex/mcp, openai/codex ``docs/config.md``; the fields are
``McpServerConfig`` in ``codex-rs/core/src/config_types.rs``):

- stdio: ``command``, ``args``, ``env`` (a table), ``env_vars`` (names of variables passed
  on from Codex's environment), ``cwd``;
- Streamable HTTP: ``url``, ``bearer_token_env_var`` (the token is read from that variable
  at each start and sent as ``Authorization: Bearer ...``: a secret in every output),
  ``http_headers`` (values as written), ``env_http_headers`` (header -> variable name);
- ``startup_timeout_sec`` (default 10 in Codex; ``startup_timeout_ms`` in older files) is
  the connect timeout here, ``tool_timeout_sec`` (default 60) the call timeout;
- ``enabled = false`` turns a server off; ``enabled_tools`` (only these) and
  ``disabled_tools`` (never these) filter its tools (``harness.config.toolfilter``);
- ``required`` (Codex stops if it fails) is read and not applied: here every server fails
  alone. ``oauth``/``scopes`` are Codex's sign-in; ``harness.auth`` signs in its own way.

Not handled here: Codex starting servers with a reduced environment (the harness passes its
own), profiles (``[profiles.NAME]``).
"""

from __future__ import annotations

from typing import Any

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register

CODEX_ONLY = ("required", "oauth", "scopes", "oauth_resource", "experimental_use_rmcp_client")


def _entry(e: Entry, source: Source) -> Server:
    if e.has("command") or not e.has("url"):
        env = e.table("env")
        for name in e.strings("env_vars"):
            env.setdefault(name, "${" + name + "}")
        found = Server("stdio", command=e.text("command", required=True), args=e.strings("args"), env=env, cwd=e.text("cwd"))
    else:
        headers = e.table("http_headers")
        headers.update({k: "${" + v + "}" for k, v in e.table("env_http_headers").items()})
        if (token := e.text("bearer_token_env_var")) is not None:
            headers["Authorization"] = "Bearer ${" + token + "}"
        found = Server("http", url=e.text("url", required=True), headers=headers)
    found.settable.update(connect="startup_timeout_sec", call="tool_timeout_sec")
    if (seconds := e.number("startup_timeout_sec", "seconds", 3600)) is not None:
        found.timeouts["connect"] = (seconds, "startup_timeout_sec")
    elif (ms := e.number("startup_timeout_ms", "milliseconds", 3_600_000)) is not None:
        found.timeouts["connect"] = (ms / 1000, "startup_timeout_ms")
    if (seconds := e.number("tool_timeout_sec", "seconds", 3600)) is not None:
        found.timeouts["call"] = (seconds, "tool_timeout_sec")
    found.disabled = "enabled = false" if not e.flag("enabled", True) else ""
    found.include, found.exclude = e.names("enabled_tools"), e.strings("disabled_tools")
    for key in CODEX_ONLY:
        if e.get(key) is not None:
            source.warning(f"server '{e.name}': field '{key}': Codex's own; not applied here")
    return found


def read(document: Any, source: Source) -> list[ServerConfig]:
    return entries.read_table(document.get("mcp_servers"), source, "mcp_servers", _entry)


register(Reader("codex", ("mcp_servers",), lambda p: p.suffix == ".toml" and p.parent.name == ".codex",
                lambda d: isinstance(d, dict) and isinstance(d.get("mcp_servers"), dict), read, "toml",
                lambda home, cwd: [(home / ".codex" / "config.toml", "user"), (cwd / ".codex" / "config.toml", "project")]))
