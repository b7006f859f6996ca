"""One server entry as another client wrote it, read field by field into a ``ServerConfig``.

The readers of issue 21 (VS Code, Cursor, Windsurf, Gemini CLI, Zed, Codex, Continue,
goose) each know their own field names; what they share is here:

- ``Entry`` reads one field at a time, typed, and an error names the server and the field
  as the client spells it (``server 'wiki': field 'httpUrl': expected a non-empty string``).
  It remembers which fields were read: ``unknown()`` is what is left, and ``read_entry``
  warns about each one (but the fields later mechanisms read from ``raw``:
  ``formats.MECHANISM_FIELDS``), naming file, server and field. Nothing is dropped silently.
- ``finish`` builds the ``ServerConfig``: the transport, the command or URL, the timeouts
  (each with the setting that changes it, as that client writes it), a disabled entry, the
  tool filters, the VS Code input values. A broken entry is a failed ``ServerConfig``.
- ``dollar_braces`` turns Gemini CLI's ``$VAR`` into the ``${VAR}`` that
  ``harness.config.variables`` expands at each start; ``substitute`` fills in the
  variables a client resolves when it reads the file (``${workspaceFolder}``, ``${userHome}``).

Introduced by issue 21. Not handled here: which file is which format
(``harness.config.formats``), expanding ``${VAR}`` (``harness.config.variables``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness import transports
from harness.config import dotenv
from harness.config.files import read_config
from harness.config.formats import MECHANISM_FIELDS, ServerConfig, Source, unread_hint
from harness.config.variables import VARIABLE
from harness.errors import ConfigError
from harness.naming import normalize
from harness.spec import ServerSpec, State, Timeouts


class Entry:
    """One entry of a server table: typed reads that name the field, and which fields were read."""

    def __init__(self, name: str, entry: Mapping[str, Any]) -> None:
        self.name, self.entry, self.seen = name, entry, set()

    def bad(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"server '{self.name}': field '{key}': {problem}")

    def get(self, key: str) -> Any:
        self.seen.add(key)
        return self.entry.get(key)

    def has(self, key: str) -> bool:
        return self.entry.get(key) is not None

    def text(self, key: str, required: bool = False) -> str | None:
        value = self.get(key)
        if value is None:
            if required:
                raise self.bad(key, "required")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.bad(key, "expected a non-empty string")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(key, "expected a list of strings")
        return tuple(value)

    def names(self, key: str) -> tuple[str, ...] | None:
        """A list of strings, or None if the field is absent (an empty list is a list: it names nothing)."""
        return None if self.get(key) is None else self.strings(key)

    def table(self, key: str) -> dict[str, str]:
        value = self.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise self.bad(key, "expected an object of strings")
        return {str(k): v for k, v in value.items()}

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.bad(key, "expected true or false")
        return value

    def number(self, key: str, unit: str, most: float) -> float | None:
        value = self.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= most:
            raise self.bad(key, f"expected {unit}, more than 0 and at most {most:g}")
        return float(value)

    def unknown(self, ignored: Iterable[str] = ()) -> list[str]:
        return [str(k) for k in self.entry if k not in self.seen and k not in set(ignored)]


@dataclass
class Server:
    """What a reader found in one entry, before it is checked and frozen into a ``ServerConfig``."""

    transport: str  # a registered transport's name
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    url_field: str = "url"  # as the client spells it, for messages
    headers: dict[str, str] = field(default_factory=dict)
    disabled: str = ""  # why it is off, as that client says it ('"enabled": false'); "" if on
    timeouts: dict[str, tuple[float, str]] = field(default_factory=dict)  # connect/list/call -> (seconds, where to change it)
    settable: dict[str, str] = field(default_factory=dict)  # connect/list/call -> the field that sets it, when not set
    include: tuple[str, ...] | None = None  # only these tools (None: every tool)
    exclude: tuple[str, ...] = ()
    inputs: Mapping[str, tuple[str, bool]] = field(default_factory=dict)  # VS Code ${input:ID} -> (value, a secret?)


def read_table(table: Any, source: Source, key: str, one: Callable[[Entry, Source], Server | None],
               ignored: Iterable[str] = ()) -> list[ServerConfig]:
    """Every entry of a server object (``{name: entry}``) through ``one``; None from ``one``: skipped (it said why)."""
    if table is None:
        return []
    if not isinstance(table, dict):
        raise ConfigError(f"{source.shown}: field '{key}': expected an object of servers")
    return [s for name, entry in table.items() if (s := read_entry(str(name), entry, source, one, ignored)) is not None]


def read_entry(name: str, entry: Any, source: Source, one: Callable[[Entry, Source], Server | None],
               ignored: Iterable[str] = ()) -> ServerConfig | None:
    """One entry into a ``ServerConfig``; a broken one is a failed ``ServerConfig`` naming the field, never an exception."""
    raw = MappingProxyType(dict(entry)) if isinstance(entry, dict) else MappingProxyType({})
    try:
        if not isinstance(entry, dict):
            raise ConfigError(f"server '{name}': expected an object")
        if "__" in (spelled := normalize(name)):
            raise ConfigError(f"server '{name}': its name reads '{spelled}' in tool names, which holds the separator '__'; rename it")
        reading = Entry(name, entry)
        found = one(reading, source)
        if found is None:
            return None
        for key in reading.unknown((*ignored, *MECHANISM_FIELDS)):  # those are read by their mechanisms, from raw
            source.warning(f"server '{name}': field '{key}': not read by this harness (left out)" + unread_hint(key, reading.seen))
        return finish(name, found, source, raw)
    except ConfigError as exc:
        return ServerConfig(name, source.scope, source.shown, None, State.FAILED, str(exc), raw=raw)


def finish(name: str, found: Server, source: Source, raw: Mapping[str, Any]) -> ServerConfig:
    if transports.is_local(found.transport):
        if not found.command:
            raise ConfigError(f"server '{name}': field 'command': required")
        spec = transports.check(ServerSpec(name, found.transport, command=found.command, args=found.args, env=found.env,
                                           cwd=found.cwd))
    else:
        url = found.url or ""
        if not url:
            raise ConfigError(f"server '{name}': field '{found.url_field}': required")
        if not VARIABLE.search(url) and not url.startswith(("http://", "https://")) and "${input:" not in url:
            raise ConfigError(f"server '{name}': field '{found.url_field}': expected an http:// or https:// URL")
        spec = transports.check(ServerSpec(name, found.transport, url=url, headers=found.headers))
    # Where each timeout is changed, as this client's file spells it: a timeout's error says so.
    settings = {which: f"{where} for server '{name}' in {source.shown}" for which, where in found.settable.items()}
    values = {}
    for which, (seconds, where) in found.timeouts.items():
        values[which], settings[which] = seconds, f"{where} for server '{name}' in {source.shown}"
    state, reason = (State.DISABLED, f"{found.disabled} in {source.shown}") if found.disabled else (State.PENDING, "")
    return ServerConfig(name, source.scope, source.shown, spec, state, reason, Timeouts(**values, settings=settings), raw,
                        include_tools=found.include, exclude_tools=tuple(found.exclude), inputs=MappingProxyType(dict(found.inputs)))


_DOLLAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def dollar_braces(text: str) -> str:
    """Gemini CLI's ``$VAR`` and ``${VAR}`` both as ``${VAR}``, which the harness expands at each start."""
    return _DOLLAR.sub(lambda m: "${" + (m.group(1) or m.group(2)) + "}", text)


def substitute(text: str | None, values: Mapping[str, str]) -> str | None:
    """``${name}`` for each of ``values`` filled in now (a client's own variables: ``workspaceFolder``, ``userHome``)."""
    if text is None:
        return None
    for key, value in values.items():
        text = text.replace("${" + key + "}", value)
    return text


def substituted(found: Server, values: Mapping[str, str]) -> Server:
    """``found`` with ``values`` filled in, in command, args, env, cwd, url and headers."""
    found.command, found.cwd, found.url = substitute(found.command, values), substitute(found.cwd, values), substitute(found.url, values)
    found.args = tuple(substitute(a, values) or "" for a in found.args)
    found.env = {k: substitute(v, values) or "" for k, v in found.env.items()}
    found.headers = {k: substitute(v, values) or "" for k, v in found.headers.items()}
    return found


def env_file(path_text: str, base: Path, entry: Entry) -> dict[str, str]:
    """The bindings of an ``envFile`` (VS Code, Cursor), read now, by python-dotenv's rules (``harness.config.dotenv``)."""
    path = Path(path_text).expanduser()
    path = path if path.is_absolute() else Path(base) / path
    data = read_config(path, str(path))
    if data is None:
        raise entry.bad("envFile", f"no such file: {path_text}")
    try:
        return dotenv.values(data.decode("utf-8", errors="replace"))
    except dotenv.DotenvError as exc:
        raise entry.bad("envFile", f"{path_text} {exc}") from None
