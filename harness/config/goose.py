"""goose's ``config.yaml`` ``extensions``, read as goose writes them.

    format  file                        table       transports
    goose   ~/.config/goose/config.yaml  extensions  type: stdio, streamable_http, sse (builtin: left out)

From goose's docs, "Configuration File" (block.github.io/goose/docs/guides/config-files)
and its source (block/goose ``crates/goose/src/agents/extension.rs``, ``ExtensionConfig``):

- ``extensions`` maps a key to an extension; ``type`` says which kind:
  ``stdio`` (``cmd``, ``args``, ``envs``, ``env_keys``, ``cwd``), ``streamable_http``
  (``uri``, ``headers``, ``envs``, ``env_keys``), ``sse`` (``uri``);
- ``builtin`` (and ``platform``, ``frontend``, ``inline_python``) are run inside goose
  itself: there is no MCP server to start here, so each is left out with a note;
- ``envs`` are values as written; ``env_keys`` names variables goose reads from its
  keyring or environment: here from the environment at each start (``${NAME}``);
- ``timeout`` (seconds, default 300) is the call timeout; ``enabled: false`` turns one off;
- ``available_tools`` (when not empty) are the only tools offered
  (``harness.config.toolfilter``); ``name``, ``display_name``, ``description``,
  ``bundled`` are goose's own labels.

Not handled here: goose's keyring (only the environment is read), ``GOOSE_*`` settings.
"""

from __future__ import annotations

from typing import Any

from harness.config import entries
from harness.config.entries import Entry, Server
from harness.config.formats import Reader, ServerConfig, Source, register

IN_GOOSE = ("builtin", "platform", "frontend", "inline_python")
LABELS = ("name", "display_name", "description", "bundled")


def _entry(e: Entry, source: Source) -> Server | None:
    kind = e.get("type")
    for key in LABELS:
        e.get(key)
    if kind in IN_GOOSE:
        source.warning(f"server '{e.name}': a goose {kind} extension runs inside goose: left out")
        return None
    if kind not in ("stdio", "streamable_http", "sse"):
        raise e.bad("type", "expected one of stdio, streamable_http, sse (builtin is left out)")
    env = e.table("envs")
    for name in e.strings("env_keys"):
        env.setdefault(name, "${" + name + "}")
    if kind == "stdio":
        found = Server("stdio", command=e.text("cmd", required=True), args=e.strings("args"), env=env, cwd=e.text("cwd"))
    else:
        found = Server("http" if kind == "streamable_http" else "sse", url=e.text("uri", required=True), url_field="uri",
                       headers=e.table("headers"))
        if env:
            source.warning(f"server '{e.name}': fields 'envs'/'env_keys': a remote extension has no process to pass them to")
    found.settable["call"] = "timeout (seconds)"
    if (seconds := e.number("timeout", "seconds", 3600)) is not None:
        found.timeouts["call"] = (seconds, "timeout (seconds)")
    found.disabled = "enabled: false" if not e.flag("enabled", True) else ""
    tools = e.strings("available_tools")
    found.include = tools or None  # an empty list: every tool, as goose has it
    return found


def read(document: Any, source: Source) -> list[ServerConfig]:
    return entries.read_table(document.get("extensions"), source, "extensions", _entry)


register(Reader("goose", ("extensions",), lambda p: p.name in ("config.yaml", "config.yml") and p.parent.name == "goose",
                lambda d: isinstance(d, dict) and isinstance(d.get("extensions"), dict), read, "yaml",
                lambda home, cwd: [(home / ".config" / "goose" / "config.yaml", "user")]))
