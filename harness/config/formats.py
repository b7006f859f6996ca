"""The three ``mcpServers`` formats, read as their products write them (s27).

    format          file                                  transports (``type``)           extras
    claude-desktop  claude_desktop_config.json            stdio only (``command``)        -
    claude-code     .mcp.json, ~/.claude.json, managed    stdio (default), sse, http      -
    cline           cline_mcp_settings.json               stdio, sse, streamableHttp      disabled, timeout (seconds)
                                                          (a bare ``url`` means sse)

Each format is a ``Reader`` in one registry (``register``): its name, how its file is
known from the file's name and from its content, how the text is decoded (JSON, JSON
with comments, TOML, YAML) and how its servers are read. The three formats above are
registered here; every other client's format is a module of its own that registers
itself (``harness.config.clients`` lists them). ``detect`` picks the reader for a file:
by name first, then by content, then the union of the three (``auto``); ``--format
NAME`` overrides it (``reader``). ``read_file`` is one file read that way. A field of a
named file that no reader reads is a warning (``KNOWN``), naming file, server and field.

``parse_servers`` reads one ``mcpServers`` object. Every entry is checked on its own: a
broken one becomes a ``failed`` ``ServerConfig`` whose reason names it and its field
(``server 'wiki': field 'command': required``); the good ones load. The words a format
uses for its transports are its own; ``harness.transports`` says which transport each
means. A ``ServerConfig`` keeps its entry as written (``raw``): a field that belongs to a
later mechanism (Cline's ``autoApprove``, s31; ``maxOutputTokens``, s32) is read and
checked by that mechanism's module, not here.

Introduced by s27. Not handled here: which files are read
and in what order (``harness.config.scopes``), ``${VAR}`` (kept as written,
``harness.config.variables``), Cline's remote config, ``headersHelper``.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from harness import transports
from harness.config.documents import decode, loads_json
from harness.config.files import read_config
from harness.config.variables import VARIABLE
from harness.errors import ConfigError
from harness.jsonvalue import JSON, JSONMapping, JSONObject
from harness.naming import normalize
from harness.spec import ServerSpec, State, Timeouts

# The words each product's files use for a transport (``type``); the registry says which transport
# each word means (Cline's "streamableHttp" is http). A file of no known product may use any
# word the registry knows, so a transport registered later is configured without an edit here.
WORDS = {"claude-desktop": ("stdio",), "claude-code": ("stdio", "sse", "http"), "cline": ("stdio", "sse", "streamableHttp", "http")}
TIMEOUT_NAMES = ("connect", "list", "call")  # what a server entry's "timeouts" may set (s28)
# The fields an entry of the three may have: read here, or by a later mechanism from ``raw`` (s31, s32). Any other
# field of a file named with --config is a warning.
# Fields a later mechanism reads from ``raw`` for a server of any format: s31's permissions, s32's output cap, s34's era.
MECHANISM_FIELDS = ("autoApprove", "maxOutputTokens", "protocol", "toolSearch", "tasks", "trustSkills")
_EVERY = {"type", "command", "args", "env", "cwd", "disabled", "timeouts", *MECHANISM_FIELDS}  # read for any format
KNOWN = {"claude-desktop": _EVERY, "claude-code": _EVERY | {"url", "headers"},
         "cline": _EVERY | {"transportType", "url", "headers", "timeout"}}
KNOWN["auto"] = set().union(*KNOWN.values())


@dataclass(frozen=True)
class ServerConfig:
    """One server as the config says it: where from, its spec (as written), and its state before connecting."""

    name: str
    scope: str
    source: str  # the file, as messages print it
    spec: ServerSpec | None  # None: the entry is broken
    state: State = State.PENDING  # or DISABLED, BLOCKED, FAILED (a broken entry)
    reason: str = ""  # why it is disabled, blocked or failed
    timeouts: Timeouts = field(default_factory=Timeouts)
    # The entry as written, read-only: the fields of later mechanisms are read where they are used.
    raw: JSONMapping = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)
    # The tools it may offer (Gemini's includeTools/excludeTools, Codex's enabled_tools/disabled_tools):
    # only those named (None: every tool), less those excluded; ``harness.config.toolfilter`` applies them.
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    # VS Code's ${input:ID} values, read when the file was: ID -> (value, a password?); expanded at each start.
    inputs: Mapping[str, tuple[str, bool]] = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)


Warn = Callable[[str], None]
Bad = Callable[[str, str], ConfigError]  # (an entry's key, what is wrong) -> the error naming file, server and key
Ask = Callable[[str, str, bool], "str | None"]  # (the input's id, the question, a password?) -> the answer; None: no one to ask


@dataclass(frozen=True)
class Source:
    """Where a document comes from, and what reading it may use: as messages show the file, its scope, the
    ``--input`` values and who else to ask (VS Code's inputs), the environment, and where warnings go."""

    path: Path
    shown: str
    scope: str
    inputs: Mapping[str, str] = field(default_factory=dict)
    ask: Ask | None = None
    warn: Warn | None = None
    home: Path | None = None  # for ${userHome}; the folder of the project: the file's, unless a format says

    def warning(self, text: str) -> None:
        (self.warn or _stderr)(f"{self.shown}: {text}")


def _stderr(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr)  # never a silent drop, even for a caller that passed no warn


@dataclass(frozen=True)
class Reader:
    """One client's config format: how its file is known, decoded and read.

    ``named(path)``: the file's name says it is this format. ``holds(document)``: the decoded
    content does (checked when no name did). ``read(document, source)``: its servers, a
    broken entry a failed ``ServerConfig``. ``decode``: json (JSON only), jsonc (comments
    and trailing commas allowed), toml or yaml. ``tables``: the server tables it reads, as
    the message for a file with none of them names them.
    """

    name: str
    tables: tuple[str, ...]
    named: Callable[[Path], bool]
    holds: Callable[[JSON], bool]
    read: Callable[[JSON, Source], list[ServerConfig]]
    decode: str = "json"
    # Where the client keeps this file, for discovery without --config: (home, cwd) -> [(path, scope)],
    # scope "user" or "project" (a project file's servers are listed blocked until its file is named).
    places: Callable[[Path, Path], list[tuple[Path, str]]] = field(default=lambda home, cwd: [])


_READERS: dict[str, Reader] = {}


def register(reader: Reader) -> None:
    """Make ``reader`` a format (again: the last registration of a name wins, in its first place)."""
    _READERS[reader.name] = reader


def readers() -> tuple[Reader, ...]:
    return tuple(_READERS.values())


def reader(name: str) -> Reader:
    """The format named ``name`` (``--format NAME``), or a ``ConfigError`` listing them."""
    found = _READERS.get(name)
    if found is None:
        raise ConfigError(f"--format {name}: no such format (formats: {', '.join(_READERS)})")
    return found


def detect(path: Path, document: JSON) -> Reader | None:
    """The reader for a file: the first whose name rule matches, else the first whose content rule does."""
    by_content = sorted(_READERS.values(), key=lambda r: r.name == "auto")  # the union of the three: only when no other claims it
    return by_name(path) or next((r for r in by_content if r.holds(document)), None)


def by_name(path: Path) -> Reader | None:
    return next((r for r in _READERS.values() if r.named(path)), None)


def unread(source: Source) -> ConfigError:
    """A file with no server table any reader knows: which formats are read, and how to name one."""
    tables = sorted({t for r in _READERS.values() for t in r.tables})
    return ConfigError(f"{source.shown}: no server table this harness reads ({', '.join(tables)}); formats read: "
                       f"{', '.join(_READERS)} (give --format NAME if this file is one of them)")


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


def read_json(path: Path, shown: str, warn: Warn | None = None) -> JSONObject:
    """A config file's top-level object, or a ``ConfigError`` naming the file (missing files are ``{}``); a key given
    twice is a warning to ``warn`` (None: stderr)."""
    data = read_config(path, shown)
    if data is None:
        return {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc}") from None
    if not text.strip():
        return {}
    data = loads_json(text, shown, warn or _stderr)
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: expected a JSON object at the top")
    return data


def read_file(path: Path, source: Source, fmt: str | None = None, explicit: bool = True) -> list[ServerConfig]:
    """The servers of one file, in the format ``fmt`` names or ``detect`` finds. ``explicit``: the user named the
    file, so one with no server table any reader knows is an error that lists the formats (a file found by looking
    in a client's usual place may hold only its other settings)."""
    chosen = reader(fmt) if fmt else by_name(path)
    if chosen is not None and chosen.name in ("cline", "claude-desktop", "claude-code"):
        document: JSON = read_json(path, source.shown, source.warn)  # s27's three, read exactly as before
    else:
        data = read_config(path, source.shown)
        try:
            text = (data or b"").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source.shown}: cannot read: {exc}") from None
        if not text.strip():
            return []
        kind = chosen.decode if chosen else _kind(path)
        try:
            document = decode(text, kind, source.shown, source.warn or _stderr)
        except ConfigError as strict:
            if kind != "json":
                raise
            try:  # a comment or a trailing comma: an error, as for every strict JSON file, that says which formats take them
                decode(text, "jsonc", source.shown, lambda text: None)
            except ConfigError:
                raise strict from None
            jsonc = ", ".join(r.name for r in _READERS.values() if r.decode == "jsonc")
            raise ConfigError(f"{strict} (a comment or a trailing comma: JSONC, which only {jsonc} files may hold; "
                              "give --format NAME if this is one)") from None
        chosen = chosen or detect(path, document)
    if not document:
        return []
    if not isinstance(document, dict):
        raise ConfigError(f"{source.shown}: expected a JSON object at the top" if _kind(path) == "json" else
                          f"{source.shown}: expected a table of settings at the top")
    if chosen is None or not any(t in document for t in chosen.tables):
        if explicit and (chosen is None or chosen.name not in ("cline", "claude-desktop", "claude-code", "auto")):
            raise unread(source)
        return []
    return chosen.read(document, source)


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    return "toml" if suffix == ".toml" else "yaml" if suffix in (".yaml", ".yml") else "json"


def parse_servers(servers: JSON, scope: str, source: str, fmt: str) -> list[ServerConfig]:
    """Every entry of one ``mcpServers`` object; a broken entry is a failed ``ServerConfig``, never an exception."""
    if servers is None:
        return []
    if not isinstance(servers, dict):
        raise ConfigError(f"{source}: field 'mcpServers': expected an object of servers")
    found = []
    for name, entry in servers.items():
        raw = MappingProxyType(dict(entry)) if isinstance(entry, dict) else MappingProxyType({})
        try:
            found.append(_entry(str(name), entry, scope, source, fmt, raw))
        except ConfigError as exc:
            found.append(ServerConfig(str(name), scope, source, None, State.FAILED, str(exc), raw=raw))
    return found


def _entry(name: str, entry: JSON, scope: str, source: str, fmt: str, raw: JSONMapping) -> ServerConfig:
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
    if "__" in (spelled := normalize(name)):
        # mcp__{server}__{tool}: a server spelled with the separator would read as another
        # server plus part of a tool name, and a rule for that server would reach its tools.
        raise ConfigError(f"server '{name}': its name reads '{spelled}' in tool names, which holds the separator '__'; rename it")
    kind = _transport(entry, fmt, bad)
    timeouts = _timeouts(name, entry, fmt, source, bad)
    disabled = entry.get("disabled", False)
    if not isinstance(disabled, bool):
        raise bad("disabled", "expected true or false")
    if transports.is_local(kind):
        spec = transports.check(ServerSpec(name, kind, command=text("command", required=True), args=strings("args"),
                                           env=table("env"), cwd=text("cwd"), inherit_env=fmt in WHOLE_ENVIRONMENT))
    else:
        url = text("url", required=True)
        if not VARIABLE.search(url or "") and not (url or "").startswith(("http://", "https://")):
            raise bad("url", "expected an http:// or https:// URL")
        spec = transports.check(ServerSpec(name, kind, url=url, headers=table("headers")))
    state, reason = (State.DISABLED, f"\"disabled\": true in {source}") if disabled else (State.PENDING, "")
    return ServerConfig(name, scope, source, spec, state, reason, timeouts, raw)


# The formats whose client starts a local server with its own whole environment, the entry's
# ``env`` on top: Claude Code (``{...subprocessEnv(), ...config.env}``, shared/reference/runtimes.md
# K14), so its users' servers find the tokens, proxies and NODE_EXTRA_CA_CERTS of their shell.
# Cline passes only the SDK's default list (HOME, LOGNAME, PATH, SHELL, TERM, USER; runtimes.md
# C17), and so does every format whose client documents nothing else: the safe default.
WHOLE_ENVIRONMENT = frozenset({"claude-code"})


def _timeouts(name: str, entry: JSONObject, fmt: str, source: str, bad: Bad) -> Timeouts:
    """Cline's ``timeout`` (seconds, for calls) and the harness's own ``timeouts`` object (s28).

    Each timeout's error will say where to change it: the field of this server in this file.
    """
    def seconds(value: JSON, key: str) -> float:
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


def _transport(entry: JSONObject, fmt: str, bad: Bad) -> str:
    """The registered transport an entry means, from the words of its file's format."""
    declared = entry.get("type", entry.get("transportType") if fmt == "cline" else None)
    if declared is None:
        if "command" in entry or "url" not in entry:
            declared = "stdio"  # every product's default: a command to spawn
        elif fmt in ("cline", "auto"):
            declared = "sse"  # Cline's rule for a bare url, kept for its old files
        else:
            raise bad("type", "required with 'url' (sse or http)")
    words = WORDS.get(fmt)  # None: any name or alias of a registered transport
    kind = transports.by_alias(declared) if isinstance(declared, str) and (words is None or declared in words) else None
    if kind is None:
        choices = words or transports.names()
        meant = near(declared, choices) if isinstance(declared, str) else None
        raise bad("type", f"expected one of {', '.join(choices)}" + (f" (did you mean '{meant}'?)" if meant else ""))
    return kind


SPELLINGS = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http", "stdin": "stdio"}  # other clients' words


def unread_hint(key: str, known: Iterable[str]) -> str:
    """What a warning about an unread field adds when the field looks like a misspelling of one that is read."""
    meant = near(key, known)
    return f"; did you mean '{meant}'?" if meant else ""


def near(word: str, known: Iterable[str]) -> str | None:
    """The one of ``known`` that ``word`` misspells ('comand': 'command') or is another client's word for; else None."""
    known = sorted(known)
    found = SPELLINGS.get(word) if SPELLINGS.get(word) in known else next(iter(difflib.get_close_matches(word, known, n=1, cutoff=0.8)), None)
    return found


def _mcp_servers(fmt: str) -> Callable[[JSON, Source], list[ServerConfig]]:
    def read(document: JSON, source: Source) -> list[ServerConfig]:
        found = parse_servers(document.get("mcpServers") if isinstance(document, dict) else None, source.scope, source.shown, fmt)
        for server in found:
            for key in (k for k in server.raw if k not in KNOWN[fmt]):
                source.warning(f"server '{server.name}': field '{key}': not read by this harness (left out)" + unread_hint(key, KNOWN[fmt]))
        return found
    return read


def _object_of(table: str) -> Callable[[JSON], bool]:
    return lambda document: isinstance(document, dict) and isinstance(document.get(table), dict)


def _never(document: JSON) -> bool:
    return False


# The three formats of s27, in the order file_format names them; "auto" is the union, for a file of no known name.
# Claude Code's own files are read by harness.config.scopes (its scopes and approvals), so it has no places here.
CLINE_SETTINGS = Path(".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json")  # Linux
register(Reader("cline", ("mcpServers",), lambda p: file_format(p) == "cline", _never, _mcp_servers("cline"),
                places=lambda home, cwd: [(home / CLINE_SETTINGS, "user")]))
register(Reader("claude-desktop", ("mcpServers",), lambda p: file_format(p) == "claude-desktop", _never, _mcp_servers("claude-desktop"),
                places=lambda home, cwd: [(home / ".config" / "Claude" / "claude_desktop_config.json", "user")]))
register(Reader("claude-code", ("mcpServers",), lambda p: file_format(p) == "claude-code", _never, _mcp_servers("claude-code")))
register(Reader("auto", ("mcpServers",), lambda p: False, _object_of("mcpServers"), _mcp_servers("auto")))
