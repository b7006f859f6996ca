"""What a server is, before anything connects to it: ``ServerSpec``, ``Timeouts``, ``State``.

These are plain values with no SDK import, so config code and the CLI can load them in a
few milliseconds. ``ServerSpec`` is immutable all the way down (its ``env`` and
``headers`` are frozen mappings, its ``args`` a tuple), so two specs compare and hash by
value: reload (s29) diffs and fingerprints them.

``State`` is the one spelling of where a server is in its life, owned by the hub
(``harness.hub``)::

    pending ──> connected ──> closed
       │  └───> needs-auth ──> connected
       └──────> failed            disabled (configured off), blocked (a policy's no): never started

Introduced by the hub spine, used from s19 on. Not handled here: reading config files
(s27), expanding ``${VAR}`` (s27).
"""

from __future__ import annotations

import enum
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from harness.errors import ConfigError

# The transports harness.transports can open. A URL transport needs `url`; stdio needs `command`.
TRANSPORTS = ("stdio", "sse", "http")


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
    """Where one server is: a command to spawn (stdio) or a URL (sse, http). Hashable."""

    name: str
    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=FrozenMap)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        # Lists and dicts are accepted for convenience and frozen here, so no caller can
        # change a spec after the hub has compared or fingerprinted it.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", FrozenMap(self.env))
        object.__setattr__(self, "headers", FrozenMap(self.headers))
        if self.transport not in TRANSPORTS:
            raise ConfigError(f"server '{self.name}': field 'transport': expected one of {', '.join(TRANSPORTS)}")
        needed = "command" if self.transport == "stdio" else "url"
        if not getattr(self, needed):
            raise ConfigError(f"server '{self.name}': field '{needed}': required for transport '{self.transport}'")

    def where(self) -> str:
        """The command line or URL, as messages print it."""
        return shlex.join([self.command or "", *self.args]) if self.transport == "stdio" else self.url or ""


@dataclass(frozen=True)
class Timeouts:
    """Seconds. Each failure message names the timeout that fired."""

    connect: float = 30.0  # spawn or reach the server, and its answer to initialize (Claude Code: 30 s)
    list: float = 30.0  # each tools/list page
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

