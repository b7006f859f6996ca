"""What a server is, before anything connects to it: ``ServerSpec``, ``Timeouts``, ``Limits``, ``State``.

These are plain values with no SDK import, so config code and the CLI can load them in a
few milliseconds. ``ServerSpec`` is immutable all the way down (its ``env`` and
``headers`` are frozen mappings, its ``args`` a tuple), so two specs compare and hash by
value: reload (s29) diffs and fingerprints them.

``State`` is the one spelling of where a server is in its life, owned by the hub
(``harness.hub``)::

    pending ──> connected ──> closed
       │  └───> needs-auth ──> connected
       └──────> failed            disabled (configured off), blocked (a policy's no): never started

``Limits`` are the sizes a server's answers may reach (a frame, its tools, a description,
the pages of one listing); ``Limits.from_environ`` reads the ``MCP_COURSE_MAX_*`` variables
the user CLI honours.

Not handled here: reading config files (s27), expanding ``${VAR}`` (s27), whether a spec's
transport exists and has what it needs (the registry's ``harness.transports.check``).
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from harness import redact
from harness.errors import ConfigError


class State(enum.Enum):
    PENDING = "pending"  # known, not connected yet (or connecting now)
    CONNECTED = "connected"
    NEEDS_AUTH = "needs-auth"  # reachable, but wants the user to sign in first (s26)
    FAILED = "failed"  # with an error that says why
    DISABLED = "disabled"  # configured off (s27); never connected
    BLOCKED = "blocked"  # refused by an allow/deny policy (s27); never connected
    CLOSED = "closed"  # stopped on purpose


class FrozenMap(Mapping[str, str]):
    """A read-only, hashable ``str -> str`` mapping, so a spec holding one hashes by value."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str] | None = None) -> None:
        self._items = dict(items or {})

    def __getitem__(self, key: str) -> str:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"


@dataclass(frozen=True)
class ServerSpec:
    """Where one server is: a command to spawn (a local transport) or a URL. Hashable."""

    name: str
    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=FrozenMap)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=FrozenMap)
    # A local server gets the harness's whole environment under ``env`` (Claude Code's rule),
    # not only the SDK's minimal one (HOME, PATH, ...: Cline's, and the default). The config
    # readers set it by the format of the file (harness.config.formats.WHOLE_ENVIRONMENT).
    inherit_env: bool = False
    # Set by variable expansion (harness.config.variables): how messages show the entry
    # (as written, ${TOKEN} and all), and the (value, variable) pairs that are secrets.
    shown: str = field(default="", compare=False)
    secrets: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # Lists and dicts are accepted for convenience and frozen here, so no caller can
        # change a spec after the hub has compared or fingerprinted it.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", FrozenMap(self.env))
        object.__setattr__(self, "headers", FrozenMap(self.headers))

    def where(self) -> str:
        """The command line or URL, as messages print it: as written before any variable was expanded, every URL
        in it (a connection string in the args too) without its userinfo and query values."""
        if self.shown:
            return self.shown
        if self.url is None:
            return shlex.join([redact.argument(word) for word in (self.command or "", *self.args)])
        return redact.url(self.url)


@dataclass(frozen=True)
class Timeouts:
    """Seconds. Each failure message names the timeout that fired."""

    connect: float = 30.0  # spawn or reach the server, and its answer to initialize (Claude Code: 30 s)
    list: float = 30.0  # one whole tools/list, every page of it (a cursor that never ends must not hold a connect)
    call: float = 60.0  # each tools/call (Cline's default; Claude Code waits ~28 h)
    auth: float = 300.0  # a sign-in: the user's browser step (Claude Code's callback waits 5 min)
    # stdio: after stdin closes, before SIGTERM. The SDK waits 2 s. A lone Python server
    # exits on end of input in about 0.1 s, but 20 closing at once queue for the CPU to tear
    # their interpreters down, and 2 s made closing 20 take 2 s. After this grace SIGTERM
    # asks again, still politely: a slow server that handles it has kill_grace to finish.
    # Only a server that flushes on end of input, dies at once on SIGTERM (the default
    # action) and needs longer than this grace would lose its flush: raise it for that one.
    exit_grace: float = 0.25
    kill_grace: float = 2.0  # stdio: after SIGTERM, before SIGKILL
    # Where each timeout can be changed, as an error should say it ("call": '"timeout" in
    # cline_mcp_settings.json'). Filled by whoever set the values (config, CLI); not compared.
    settings: Mapping[str, str] = field(default_factory=FrozenMap, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", FrozenMap(self.settings))

    def explain(self, name: str) -> str:
        """``call timeout``, and where to change it when that is known: what an error says after the limit."""
        where = self.settings.get(name)
        return f"{name} timeout; change it with {where}" if where else f"{name} timeout"


MIB = 1024 * 1024
# Each limit's environment variable: what ``Limits.from_environ`` reads, and what a message names.
LIMIT_VARIABLES = {
    "frame": "MCP_COURSE_MAX_FRAME_BYTES",
    "tools": "MCP_COURSE_MAX_TOOLS",
    "description": "MCP_COURSE_MAX_DESCRIPTION",
    "pages": "MCP_COURSE_MAX_LIST_PAGES",
}


@dataclass(frozen=True)
class Limits:
    """Sizes a server's answers may reach. Each error or warning names the limit that cut.

    Going over ``frame`` fails that server (its stream cannot be trusted after a cut
    frame); going over ``pages`` fails its listing. Going over ``tools`` or
    ``description`` keeps the server and cuts, with a warning naming what was cut.
    """

    # One JSON-RPC message in bytes: a stdio line, an HTTP body, an SSE event. Tool
    # results carry images as base64; 16 MiB holds several, and parsing one that big
    # stalls the event loop (every other server) for well under a second.
    frame: int = 16 * MIB
    tools: int = 1000  # tools kept per server, in the server's order; no model reads more
    description: int = 2048  # characters of a tool's description (Claude Code's cap)
    pages: int = 100  # tools/list pages in one listing; a paginating server sends tens at most
    # Where each limit can be changed, as a message should say it. Not compared.
    settings: Mapping[str, str] = field(default_factory=lambda: FrozenMap({name: f"the environment variable {variable}" for name, variable in LIMIT_VARIABLES.items()}), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", FrozenMap(self.settings))
        for name in LIMIT_VARIABLES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"limit '{name}': expected a whole number of at least 1, got {value!r}")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Limits:
        """The defaults, with each ``MCP_COURSE_MAX_*`` variable that is set in ``environ``."""
        values = {}
        for name, variable in LIMIT_VARIABLES.items():
            raw = environ.get(variable, "").strip()
            if not raw:
                continue
            if not raw.isdigit() or int(raw) < 1:
                raise ConfigError(f"environment variable {variable}: expected a whole number of at least 1, got '{raw[:40]}'")
            values[name] = int(raw)
        return cls(**values)

    def explain(self, name: str) -> str:
        """``frame limit``, and where to change it: what a message says after the limit."""
        where = self.settings.get(name)
        label = "list pages" if name == "pages" else name
        return f"{label} limit; change it with {where}" if where else f"{label} limit"


def size(count: int) -> str:
    """Bytes as messages print them: ``16 MiB``, ``64 KiB``, ``1000 bytes``."""
    for unit, name in ((MIB, "MiB"), (1024, "KiB")):
        if count >= unit and count % unit == 0:
            return f"{count // unit} {name}"
    return f"{count} bytes"
