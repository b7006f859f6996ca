"""One client's config file in another client's format, and what the target cannot say.

    servers, inputs, lost = convert.read(path, fmt)        # every format harness.config reads
    text, more = convert.write(servers, inputs, "windsurf")  # the target's file, and its losses

``read`` reads a file with the registered reader of its format (``harness.config.formats``),
so a converted server is what the harness itself would start: its transport, command,
arguments, environment, folder, URL and headers, whether it is off, the timeouts the file
set, the tool filters, a VS Code or Cursor ``envFile`` (as written, not its values) and the
fields of later mechanisms (``autoApprove``, ``maxOutputTokens``, ``protocol``,
``toolSearch``), carried as written into every target. Variables are kept as variables
(``${VAR}``), then written in the target's syntax (``${env:VAR}`` for VS Code, Cursor,
Windsurf and Cline; ``${{ secrets.VAR }}`` for Continue; Codex's ``env_vars`` and
``bearer_token_env_var``; goose's ``env_keys``).

Each writer knows what its client's file can express (the readers' docstrings say where
from). Anything else is a loss: one line naming the server and the field
(``server 'api': disabled: vscode has no such setting; left out``), never a silent drop. A reader's own
warnings while reading (a field it does not read, a Zed extension's server) are losses too.

Introduced by issue 37 (``mcp-course convert``). Not handled here: comments of the source
file (a converted file is written fresh), ``${VAR:-default}`` in clients without defaults
(written as it is), Claude Code's ``projects`` in ``~/.claude.json`` (only the top level).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.config import formats
from harness.config.documents import decode
from harness.config.files import read_config
from harness.config.formats import MECHANISM_FIELDS, Source
from harness.errors import ConfigError
from harness.jsonvalue import JSON, JSONObject
from harness.spec import State, Timeouts

TARGETS = ("claude-code", "claude-desktop", "cline", "vscode", "cursor", "windsurf", "gemini", "zed", "codex", "continue", "goose")
_DEFAULTS = Timeouts()
_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}")
_INPUT = re.compile(r"\$\{input:[^}\s]+\}")


@dataclass
class Server:
    """One server as every format can be compared: what the harness would start, and how the file set it."""

    name: str
    transport: str  # stdio, sse, http or http-or-sse
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    timeouts: dict[str, float] = field(default_factory=dict)  # connect/list/call: only those the file set
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    env_file: str | None = None  # VS Code's and Cursor's, as written
    extras: JSONObject = field(default_factory=dict)  # the later mechanisms' fields, as written


def read(path: Path, fmt: str | None = None) -> tuple[list[Server], list[JSONObject], list[str]]:
    """The servers of one file, VS Code's ``inputs`` (if any), and what reading it left out (one line each)."""
    lost: list[str] = []
    shown = str(path)
    data = read_config(path, shown)
    if data is None:
        raise ConfigError(f"{shown}: no such file")
    chosen = formats.reader(fmt) if fmt else formats.by_name(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc}") from None
    kind = chosen.decode if chosen else {".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}.get(path.suffix.lower(), "jsonc")
    document = decode(text, "jsonc" if kind == "json" else kind, shown, lambda line: None)  # duplicates: read_file says them
    chosen = chosen or formats.detect(path, document)
    if chosen is None:
        raise formats.unread(Source(path, shown, "user"))
    configs = formats.read_file(path, Source(path, shown, "user", warn=lambda line: lost.append(line)), chosen.name)
    if not configs and not any(isinstance(document, dict) and t in document for t in chosen.tables):
        raise formats.unread(Source(path, shown, "user"))
    servers = []
    for found in configs:
        if found.spec is None:
            lost.append(f"server '{found.name}': not converted: {found.reason}")
            continue
        spec, raw = found.spec, found.raw
        env = dict(spec.env)
        env_file = raw.get("envFile") if chosen.name in ("vscode", "cursor") else None
        if isinstance(env_file, str):  # the file's values stay in the file: only the entry's own env is carried
            own = raw.get("env") if isinstance(raw.get("env"), dict) else {}
            env = {k: v for k, v in env.items() if k in own}
        servers.append(Server(
            found.name, spec.transport, _plain(spec.command), tuple(_plain(a) or "" for a in spec.args),
            {k: _plain(v) or "" for k, v in env.items()}, _plain(spec.cwd), _plain(spec.url),
            {k: _plain(v) or "" for k, v in spec.headers.items()}, found.state is State.DISABLED,
            {n: getattr(found.timeouts, n) for n in ("connect", "list", "call") if getattr(found.timeouts, n) != getattr(_DEFAULTS, n)},
            found.include_tools, tuple(found.exclude_tools), env_file if isinstance(env_file, str) else None,
            {k: raw[k] for k in MECHANISM_FIELDS if k in raw}))
    inputs = document.get("inputs") if chosen.name == "vscode" and isinstance(document, dict) else None
    return servers, [i for i in inputs or [] if isinstance(i, dict)], lost


def _plain(text: str | None) -> str | None:
    """``${env:VAR}`` (VS Code, Cursor, Windsurf, Cline) as ``${VAR}``: one spelling to convert from."""
    return None if text is None else _VAR.sub(lambda m: "${" + m.group(1) + (m.group(2) or "") + "}", text)


# What each target writes a transport as, when it cannot write it as it is (absent: it can).
_KINDS: dict[str, dict[str, str | None]] = {
    "claude-desktop": {"sse": None, "http": None, "http-or-sse": None},  # None: the server cannot be written at all
    "claude-code": {"http-or-sse": "http"}, "cline": {"http-or-sse": "http"}, "gemini": {"http-or-sse": "http"},
    "goose": {"http-or-sse": "http"}, "vscode": {"http": "http-or-sse"}, "cursor": {"http": "http-or-sse"},
    "windsurf": {"http": "http-or-sse", "sse": "http-or-sse"}, "zed": {"sse": "http", "http-or-sse": "http"},
    "codex": {"sse": "http", "http-or-sse": "http"}, "continue": {},
}
_SAID = {"http": "Streamable HTTP", "sse": "SSE", "http-or-sse": "Streamable HTTP falling back to SSE", "stdio": "stdio"}
# What each target's file can hold besides command, args, env, url and headers.
_CAN = {
    "claude-code": {"cwd", "timeouts.connect", "timeouts.list", "timeouts.call"},
    "claude-desktop": {"cwd", "timeouts.connect", "timeouts.list", "timeouts.call"},
    "cline": {"cwd", "disabled", "timeouts.connect", "timeouts.list", "timeouts.call"},
    "vscode": {"cwd", "envFile"}, "cursor": {"cwd", "envFile"}, "windsurf": {"disabled", "exclude"},
    "gemini": {"cwd", "disabled", "include", "exclude", "timeouts.call"}, "zed": {"disabled"},
    "codex": {"cwd", "disabled", "include", "exclude", "timeouts.connect", "timeouts.call"},
    "continue": {"cwd", "timeouts.connect"}, "goose": {"cwd", "disabled", "include", "timeouts.call"},
}
_ENV_SYNTAX = {"cline": "${env:%s}", "vscode": "${env:%s}", "cursor": "${env:%s}", "windsurf": "${env:%s}",
               "continue": "${{ secrets.%s }}"}  # the others: ${VAR} (Claude, Gemini), or no variables at all (below)
NO_VARIABLES = ("zed", "codex", "goose")  # their files expand none: Codex and goose pass variables on by name only


class Losses(list[str]):
    def add(self, server: str, what: str, why: str) -> None:
        self.append(f"server '{server}': {what}: {why}")


def write(servers: list[Server], inputs: list[JSONObject], target: str) -> tuple[str, list[str]]:
    """The target's file for ``servers`` (its text), and each thing it could not express, one line each."""
    if target not in TARGETS:
        raise ConfigError(f"--to {target}: no such format (formats: {', '.join(TARGETS)})")
    lost, written = Losses(), []
    for server in servers:
        kind = _KINDS[target].get(server.transport, server.transport)
        if kind is None:
            lost.add(server.name, "transport", f"{target} starts local servers only; {_SAID[server.transport]} server left out")
            continue
        if kind != server.transport:
            lost.add(server.name, "transport", f"{_SAID[server.transport]} written as {target}'s {_SAID[kind]}")
        for what, present in (("cwd", server.cwd), ("disabled", server.disabled), ("envFile", server.env_file),
                              ("include", server.include is not None), ("exclude", server.exclude),
                              *((f"timeouts.{n}", n in server.timeouts) for n in ("connect", "list", "call"))):
            if present and what not in _CAN[target]:
                lost.add(server.name, what, f"{target} has no such setting; left out" +
                         (" (its variables are not copied: they stay in that file)" if what == "envFile" else ""))
        if target == "goose" and server.include == ():
            lost.add(server.name, "include", "goose reads an empty available_tools as every tool")
        if target == "goose" and kind != "stdio" and server.env:
            lost.add(server.name, "env", "a goose remote extension has no process to pass it to")
        if target != "vscode" and any(_INPUT.search(t) for t in _texts(server)):
            lost.add(server.name, "${input:...}", f"a VS Code input; {target} asks for none, so it is written as it is")
        written.append((server, kind))
    document = _WRITERS[target](written, inputs, lost)
    return _dump(document, target), list(lost)


def _texts(server: Server) -> list[str]:
    return [t for t in (server.command, server.cwd, server.url, *server.args, *server.env.values(), *server.headers.values()) if t]


def _vars(text: str, target: str, server: str, what: str, lost: Losses) -> str:
    """``text`` with each ``${VAR}`` in the target's syntax; in a file that expands none, kept and named."""
    if target in NO_VARIABLES:
        if _VAR.search(text):
            lost.add(server, what, f"{target} expands no variables here; written as it is")
        return text
    syntax = _ENV_SYNTAX.get(target)

    def spelled(m: re.Match[str]) -> str:
        if m.group(2):  # ${VAR:-default}: Claude Code's; kept as written, which this harness reads in every format
            if target not in ("claude-code", "claude-desktop"):
                lost.add(server, what, f"{target} has no ${{VAR:-default}}; written as it is")
            return m.group(0)
        return m.group(0) if syntax is None else syntax % m.group(1)

    return _VAR.sub(spelled, text)


def _common(s: Server, kind: str, target: str, lost: Losses, *, command: str = "command", env: str = "env",
            url: str = "url", headers: str = "headers") -> JSONObject:
    """command/args/env/cwd or url/headers, in the target's words and variable syntax."""
    entry: JSONObject = {}
    if kind == "stdio":
        entry[command] = _vars(s.command or "", target, s.name, "command", lost)
        if s.args:
            entry["args"] = [_vars(a, target, s.name, "args", lost) for a in s.args]
        if s.env:
            entry[env] = {k: _vars(v, target, s.name, f"env.{k}", lost) for k, v in s.env.items()}
        if s.cwd and "cwd" in _CAN[target]:
            entry["cwd"] = _vars(s.cwd, target, s.name, "cwd", lost)
    else:
        entry[url] = _vars(s.url or "", target, s.name, "url", lost)
        if s.headers:
            entry[headers] = {k: _vars(v, target, s.name, f"headers.{k}", lost) for k, v in s.headers.items()}
    return entry


Written = list[tuple[Server, str]]


def _claude(target: str) -> Callable[[Written, list[JSONObject], Losses], JSONObject]:
    words = {"claude-code": {"stdio": "stdio", "sse": "sse", "http": "http"},
             "claude-desktop": {"stdio": None}, "cline": {"stdio": None, "sse": "sse", "http": "streamableHttp"}}[target]

    def document(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
        table = {}
        for s, kind in servers:
            entry = {"type": words[kind]} if words[kind] else {}
            entry.update(_common(s, kind, target, lost))
            if target == "cline" and s.disabled:
                entry["disabled"] = True
            timeouts = dict(s.timeouts)
            if target == "cline" and timeouts.get("call", 0) >= 1:
                entry["timeout"] = _number(timeouts.pop("call"))
            if timeouts:
                entry["timeouts"] = {n: _number(v) for n, v in timeouts.items()}
            table[s.name] = {**entry, **s.extras}
        return {"mcpServers": table}
    return document


def _vscode(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        entry = {"type": {"stdio": "stdio", "sse": "sse", "http-or-sse": "http"}[kind], **_common(s, kind, "vscode", lost)}
        if s.env_file and kind == "stdio":
            entry["envFile"] = s.env_file
        table[s.name] = {**entry, **s.extras}
    used = {m[len("${input:"):-1] for s, _ in servers for t in _texts(s) for m in _INPUT.findall(t)}
    kept = [i for i in inputs if i.get("id") in used]
    return {"inputs": kept, "servers": table} if kept else {"servers": table}


def _cursor(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        entry = ({"type": "sse"} if kind == "sse" else {}) | _common(s, kind, "cursor", lost)
        if s.env_file and kind == "stdio":
            entry["envFile"] = s.env_file
        table[s.name] = {**entry, **s.extras}
    return {"mcpServers": table}


def _windsurf(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        entry = _common(s, kind, "windsurf", lost, url="serverUrl")
        if s.disabled:
            entry["disabled"] = True
        if s.exclude:
            entry["disabledTools"] = list(s.exclude)
        table[s.name] = {**entry, **s.extras}
    return {"mcpServers": table}


def _gemini(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table, off = {}, []
    for s, kind in servers:
        entry = _common(s, kind, "gemini", lost, url="httpUrl" if kind == "http" else "url")
        if "call" in s.timeouts:
            entry["timeout"] = _number(s.timeouts["call"] * 1000)
        if s.include is not None:
            entry["includeTools"] = list(s.include)
        if s.exclude:
            entry["excludeTools"] = list(s.exclude)
        off += [s.name] if s.disabled else []
        table[s.name] = {**entry, **s.extras}
    return {"mcpServers": table, **({"mcp": {"excluded": off}} if off else {})}


def _zed(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        entry = _common(s, kind, "zed", lost)
        if s.disabled:
            entry["enabled"] = False
        table[s.name] = {**entry, **s.extras}
    return {"context_servers": table}


def _codex(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        passed = [k for k, v in s.env.items() if v == "${" + k + "}"]  # a variable of the same name: passed on by name
        bearer = s.headers.get("Authorization", "")
        token = re.fullmatch(r"Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}", bearer)
        named = {h: m.group(1) for h, v in s.headers.items() if (m := re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", v))}
        rest = Server(s.name, kind, s.command, s.args, {k: v for k, v in s.env.items() if k not in passed}, s.cwd, s.url,
                      {h: v for h, v in s.headers.items() if h not in named and not (h == "Authorization" and token)})
        entry = _common(rest, kind, "codex", lost, headers="http_headers")
        if passed:
            entry["env_vars"] = passed
        if named:
            entry["env_http_headers"] = named
        if token:
            entry["bearer_token_env_var"] = token.group(1)
        for name, key in (("connect", "startup_timeout_sec"), ("call", "tool_timeout_sec")):
            if name in s.timeouts:
                entry[key] = _number(s.timeouts[name])
        if s.disabled:
            entry["enabled"] = False
        if s.include is not None:
            entry["enabled_tools"] = list(s.include)
        if s.exclude:
            entry["disabled_tools"] = list(s.exclude)
        table[s.name] = {**entry, **s.extras}
    return {"mcp_servers": table}


def _continue(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    blocks = []
    for s, kind in servers:
        entry: JSONObject = {"name": s.name}
        if kind in ("sse", "http"):
            entry["type"] = {"sse": "sse", "http": "streamable-http"}[kind]
        common = _common(s, kind, "continue", lost)
        if "headers" in common:
            common["requestOptions"] = {"headers": common.pop("headers")}
        entry.update(common)
        if "connect" in s.timeouts:
            entry["connectionTimeout"] = _number(s.timeouts["connect"] * 1000)
        blocks.append({**entry, **s.extras})
    return {"name": "MCP servers", "version": "0.0.1", "schema": "v1", "mcpServers": blocks}


def _goose(servers: Written, inputs: list[JSONObject], lost: Losses) -> JSONObject:
    table = {}
    for s, kind in servers:
        passed = [k for k, v in s.env.items() if v == "${" + k + "}"]
        rest = Server(s.name, kind, s.command, s.args, {k: v for k, v in s.env.items() if k not in passed} if kind == "stdio" else {},
                      s.cwd, s.url, s.headers)
        entry: JSONObject = {"name": s.name, "type": {"stdio": "stdio", "sse": "sse", "http": "streamable_http"}[kind],
                                 "enabled": not s.disabled}
        entry.update(_common(rest, kind, "goose", lost, command="cmd", env="envs", url="uri"))
        if passed and kind == "stdio":
            entry["env_keys"] = passed
        if "call" in s.timeouts:
            entry["timeout"] = _number(s.timeouts["call"])
        if s.include:
            entry["available_tools"] = list(s.include)
        table[s.name] = {**entry, **s.extras}
    return {"extensions": table}


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


_WRITERS = {"claude-code": _claude("claude-code"), "claude-desktop": _claude("claude-desktop"), "cline": _claude("cline"),
            "vscode": _vscode, "cursor": _cursor, "windsurf": _windsurf, "gemini": _gemini, "zed": _zed, "codex": _codex,
            "continue": _continue, "goose": _goose}


def _dump(document: JSONObject, target: str) -> str:
    if target == "codex":
        return _toml(document)
    if target in ("continue", "goose"):
        import yaml  # only to write a YAML file

        return str(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, default_flow_style=False))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _toml(document: JSONObject) -> str:
    """Codex's ``[mcp_servers.NAME]`` tables: strings, numbers, booleans, lists and tables of those."""
    lines = []
    for name, entry in document["mcp_servers"].items():
        lines.append(f"[mcp_servers.{_key(name)}]")
        tables = {k: v for k, v in entry.items() if isinstance(v, dict)}
        lines += [f"{_key(k)} = {_value(v)}" for k, v in entry.items() if k not in tables]
        for key, table in tables.items():
            lines += ["", f"[mcp_servers.{_key(name)}.{_key(key)}]", *(f"{_key(k)} = {_value(v)}" for k, v in table.items())]
        lines.append("")
    return "\n".join(lines)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: JSON) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + "}"
    raise ConfigError(f"a value TOML cannot hold: {value!r}")
