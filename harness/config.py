"""Configuration: the ``mcpServers`` files people already have, read as they wrote them (s27).

Three products write the same idea three ways, and the harness reads all of them:

    format          file                                  transports (``type``)           extras
    claude-desktop  claude_desktop_config.json            stdio only (``command``)        -
    claude-code     .mcp.json, ~/.claude.json, managed    stdio (default), sse, http      -
    cline           cline_mcp_settings.json               stdio, sse, streamableHttp      disabled, autoApprove,
                                                          (a bare ``url`` means sse)      timeout (seconds)

Scopes, as Claude Code has them (every path can be overridden, see ``Paths``):

- **enterprise**: ``<managed>/managed-mcp.json``. If it exists, only its servers load.
- otherwise **user** (``~/.claude.json`` ``mcpServers``) < **project** (every ``.mcp.json``
  from the filesystem root down to the working directory; the closer file wins) <
  **local** (``~/.claude.json`` ``projects[<cwd>].mcpServers``). A later scope replaces a
  server of the same name.

Every entry is checked on its own. A broken one becomes a ``failed`` server whose error
names it and its field (``server 'wiki': field 'command': required``); the good ones load.
A policy (``<managed>/managed-settings.json``: ``allowedMcpServers``, ``deniedMcpServers``,
by name, exact command line or URL wildcard; deny wins) is applied before anything is
spawned, and a server it refuses is listed ``blocked`` with the rule, never dropped.

``${VAR}``, ``${VAR:-default}`` (and Cline's ``${env:VAR}``) in command, args, env, url and
headers are kept as written and expanded by ``expand`` each time the server is started,
so a respawn sees the environment of then. A variable that is missing, with no default,
fails that server alone, naming the variable.

A server from a ``.mcp.json`` runs only once the user approved it for that project, as in
Claude Code (``enabledMcpjsonServers`` in ``~/.claude.json``): opening a cloned repository
must never start its programs. Files given explicitly (``--config``) need no approval.

Introduced by s27. Not handled here: Cline's remote config, writing files (s29),
``headersHelper``.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.spec import ServerSpec, State, Timeouts

SCOPES = ("enterprise", "user", "project", "local", "file")
_TYPES = {"stdio": "stdio", "sse": "sse", "http": "http", "streamableHttp": "http"}
TIMEOUT_NAMES = ("connect", "list", "call")  # what a server entry's "timeouts" may set (s28)
_VARIABLE = re.compile(r"\$\{(?:env:)?\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """One server as the config says it: where from, its spec (as written), and its state before connecting."""

    name: str
    scope: str
    source: str  # the file, as messages print it
    spec: ServerSpec | None  # None: the entry is broken
    state: State = State.PENDING  # or DISABLED, BLOCKED, FAILED (a broken entry)
    reason: str = ""  # why it is disabled, blocked or failed
    auto_approve: tuple[str, ...] = ()
    timeouts: Timeouts = field(default_factory=Timeouts)
    max_output_tokens: int | None = None  # s32: this server's cap on one result (the harness's own field)


@dataclass(frozen=True)
class Paths:
    """Where each scope's file is. The defaults are Claude Code's on Linux; tests and lessons pass their own."""

    home: Path = field(default_factory=Path.home)
    cwd: Path = field(default_factory=Path.cwd)
    managed: Path = Path("/etc/claude-code")


def file_format(path: Path) -> str:
    """Which product wrote a file, from its name; ``auto`` accepts the union of all three."""
    name = path.name
    if name == "cline_mcp_settings.json":
        return "cline"
    if name == "claude_desktop_config.json":
        return "claude-desktop"
    if name in (".mcp.json", ".claude.json", "managed-mcp.json"):
        return "claude-code"
    return "auto"


def read_json(path: Path, shown: str) -> dict[str, Any]:
    """A config file's top-level object, or a ``ConfigError`` naming the file (missing files are ``{}``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{shown}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: expected a JSON object at the top")
    return data


def parse_servers(servers: Any, scope: str, source: str, fmt: str) -> list[ServerConfig]:
    """Every entry of one ``mcpServers`` object; a broken entry is a failed ``ServerConfig``, never an exception."""
    if servers is None:
        return []
    if not isinstance(servers, dict):
        raise ConfigError(f"{source}: field 'mcpServers': expected an object of servers")
    found = []
    for name, entry in servers.items():
        try:
            found.append(_entry(str(name), entry, scope, source, fmt))
        except ConfigError as exc:
            found.append(ServerConfig(str(name), scope, source, None, State.FAILED, str(exc)))
    return found


def _entry(name: str, entry: Any, scope: str, source: str, fmt: str) -> ServerConfig:
    def bad(key: str, problem: str) -> ConfigError:
        return ConfigError(f"server '{name}': field '{key}': {problem}")

    def text(key: str, required: bool = False) -> str | None:
        value = entry.get(key)
        if value is None:
            if required:
                raise bad(key, "required")
            return None
        if not isinstance(value, str) or not value.strip():
            raise bad(key, "expected a non-empty string")
        return value

    def strings(key: str) -> tuple[str, ...]:
        value = entry.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad(key, "expected a list of strings")
        return tuple(value)

    def table(key: str) -> dict[str, str]:
        value = entry.get(key) or {}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise bad(key, "expected an object of strings")
        return {str(k): v for k, v in value.items()}

    if not isinstance(entry, dict):
        raise ConfigError(f"server '{name}': expected an object")
    kind = _transport(entry, fmt, bad)
    timeouts = _timeouts(name, entry, fmt, source, bad)
    disabled = entry.get("disabled", False)
    if not isinstance(disabled, bool):
        raise bad("disabled", "expected true or false")
    if kind == "stdio":
        spec = ServerSpec(name, "stdio", command=text("command", required=True), args=strings("args"),
                          env=table("env"), cwd=text("cwd"))
    else:
        url = text("url", required=True)
        if not _VARIABLE.search(url or "") and not (url or "").startswith(("http://", "https://")):
            raise bad("url", "expected an http:// or https:// URL")
        spec = ServerSpec(name, kind, url=url, headers=table("headers"))
    state, reason = (State.DISABLED, f"\"disabled\": true in {source}") if disabled else (State.PENDING, "")
    cap = entry.get("maxOutputTokens")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 100):
        raise bad("maxOutputTokens", "expected a whole number of tokens, at least 100")
    return ServerConfig(name, scope, source, spec, state, reason, strings("autoApprove"), timeouts, cap)


def _timeouts(name: str, entry: dict[str, Any], fmt: str, source: str, bad: Any) -> Timeouts:
    """Cline's ``timeout`` (seconds, for calls) and the harness's own ``timeouts`` object (s28).

    Each timeout's error will say where to change it: the field of this server in this file.
    """
    def seconds(value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
            raise bad(key, "expected seconds, more than 0 and at most 3600")
        return float(value)

    values: dict[str, float] = {}
    settings = {n: f'"timeouts": {{"{n}": SECONDS}} for server \'{name}\' in {source}' for n in TIMEOUT_NAMES}
    if fmt in ("cline", "auto") and entry.get("timeout") is not None:
        values["call"] = seconds(entry["timeout"], "timeout")  # Cline's timeout is the call timeout
        if values["call"] < 1:
            raise bad("timeout", "expected seconds, from 1 to 3600")
        settings["call"] = f'"timeout" (seconds) for server \'{name}\' in {source}'
    given = entry.get("timeouts", {})
    if not isinstance(given, dict) or set(given) - set(TIMEOUT_NAMES):
        raise bad("timeouts", f"expected an object with any of {', '.join(TIMEOUT_NAMES)} (seconds)")
    for key, value in given.items():
        values[key] = seconds(value, f"timeouts.{key}")
    return Timeouts(**values, settings=settings)


def _transport(entry: dict[str, Any], fmt: str, bad: Any) -> str:
    declared = entry.get("type", entry.get("transportType") if fmt == "cline" else None)
    if declared is None:
        if "command" in entry or "url" not in entry:
            return "stdio"
        if fmt in ("cline", "auto"):
            return "sse"  # Cline's rule for a bare url, kept for its old files
        raise bad("type", "required with 'url' (sse or http)")
    allowed = {"claude-desktop": ("stdio",), "claude-code": ("stdio", "sse", "http"),
               "cline": ("stdio", "sse", "streamableHttp", "http")}.get(fmt, tuple(_TYPES))
    if declared not in allowed:
        raise bad("type", f"expected one of {', '.join(allowed)}")
    return _TYPES[declared]


# --- scopes and precedence --------------------------------------------------------------------


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
    return _apply_policy(chosen, paths)


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


# --- allow and deny ----------------------------------------------------------------------------------


def _apply_policy(servers: list[ServerConfig], paths: Paths) -> list[ServerConfig]:
    settings = paths.managed / "managed-settings.json"
    policy = read_json(settings, str(settings))
    allowed, denied = policy.get("allowedMcpServers"), policy.get("deniedMcpServers") or []
    for rules, key in ((allowed, "allowedMcpServers"), (denied, "deniedMcpServers")):
        if rules is not None and not (isinstance(rules, list) and all(isinstance(r, dict) for r in rules)):
            raise ConfigError(f"{settings}: field '{key}': expected a list of rules")
    result = []
    for server in servers:
        verdict = _verdict(server.spec, allowed, denied) if server.spec is not None else None
        if verdict is not None and server.state is not State.FAILED:
            server = replace(server, state=State.BLOCKED, reason=f"{verdict} ({settings.name})")
        result.append(server)
    return result


def _verdict(spec: ServerSpec, allowed: list[dict[str, Any]] | None, denied: list[dict[str, Any]]) -> str | None:
    """Why the policy refuses ``spec``, or None. Deny wins over allow."""
    for rule in denied:
        if _matches(rule, spec):
            return f"denied by {_show(rule)}"
    if allowed is None:
        return None
    # As Claude Code: once the allowlist names commands (URLs), a stdio (remote) server
    # must match one of those; otherwise its name must be listed.
    key = "serverCommand" if spec.transport == "stdio" else "serverUrl"
    relevant = [r for r in allowed if key in r] or [r for r in allowed if "serverName" in r]
    if any(_matches(rule, spec) for rule in relevant):
        return None
    return "not in allowedMcpServers"


def _matches(rule: Mapping[str, Any], spec: ServerSpec) -> bool:
    if "serverName" in rule:
        return rule["serverName"] == spec.name
    if "serverCommand" in rule:
        return spec.transport == "stdio" and list(rule["serverCommand"]) == [spec.command, *spec.args]
    if "serverUrl" in rule:
        return spec.transport != "stdio" and fnmatch.fnmatchcase(spec.url or "", str(rule["serverUrl"]))
    return False


def _show(rule: Mapping[str, Any]) -> str:
    key, value = next(iter(rule.items()))
    return f"{key} {json.dumps(value)}"


# --- variables ----------------------------------------------------------------------------------------


def expand(spec: ServerSpec, environ: Mapping[str, str] = os.environ) -> ServerSpec:
    """``spec`` with every ``${VAR}`` resolved now, or a ``ConfigError`` naming what is missing."""
    missing: list[str] = []

    def one(text: str | None) -> str | None:
        if text is None:
            return None

        def value(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                return environ[name]
            if default is not None:
                return default
            missing.append(name)
            return match.group(0)

        return _VARIABLE.sub(value, text)

    expanded = replace(spec, command=one(spec.command), args=tuple(one(a) or "" for a in spec.args),
                       env={k: one(v) or "" for k, v in spec.env.items()}, url=one(spec.url),
                       headers={k: one(v) or "" for k, v in spec.headers.items()})
    if missing:
        names = ", ".join(sorted(set(missing)))
        raise ConfigError(f"server '{spec.name}': missing environment variables: {names} (set them, or write ${{NAME:-default}})")
    return expanded


# --- into the hub -------------------------------------------------------------------------------------


def copied(source: Path, root: Path) -> tuple[Path, Paths]:
    """``source`` copied into the folder ``root``, and ``Paths`` that find no other config there (no user, project
    or policy file): what a lesson from s28 on reads, so its run is the same on every machine."""
    path = root / source.name
    path.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return path, Paths(home=root, cwd=root, managed=root)


def add_to(hub: Any, servers: Iterable[ServerConfig], connector: Any) -> None:
    """Make every configured server known to ``hub``: pending ones with ``connector(server)``, the rest with their reason."""
    for server in servers:
        hub.add(server.name, **entry(server, connector))


# lesson: s29
def entry(server: ServerConfig, connector: Any) -> dict[str, Any]:
    """What ``hub.add`` (or ``hub.replace``) takes for ``server``: a connector if it may start, else its state and reason."""
    if server.state is State.PENDING:
        return {"connector": connector(server), "spec": server.spec}
    return {"connector": _never, "spec": server.spec, "state": server.state, "error": ConfigError(server.reason)}


async def _never() -> Any:
    raise AssertionError("the hub never starts a disabled, blocked or broken server")


def connector(server: ServerConfig, conns: Any, environ: Mapping[str, str] = os.environ, **options: Any) -> Any:
    """A hub connector that expands the spec's variables each time, then opens it with ``conns`` (a ``Connections``)."""
    from harness.errors import ServerError

    async def connect() -> Any:
        try:
            spec = expand(server.spec, environ)  # type: ignore[arg-type]  (pending servers have a spec)
        except ConfigError as exc:
            raise ServerError(str(exc)) from None  # that server fails; the others go on
        # Each new session of this connection (a reconnect, a respawn) expands the variables again.
        return await conns.open(spec, timeouts=server.timeouts, respec=lambda: expand(server.spec, environ), **options)  # type: ignore[arg-type]

    return connect


def rows(hub: Any, servers: Iterable[ServerConfig]) -> list[dict[str, Any]]:
    """One row per server, as ``servers --json`` prints them: name, scope, transport, state, error, tools."""
    table = []
    for server in servers:
        entry = hub.entries[server.name]
        table.append({"name": server.name, "scope": server.scope, "transport": server.spec.transport if server.spec else None,
                      "state": entry.state.value, "error": str(entry.error) if entry.error else None,
                      "tools": [t["name"] for t in entry.tools]})
    return table
