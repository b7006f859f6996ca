"""The hub: the one owner of the servers. Name -> entry (spec, state, client, error, tools).

Every other module reads the hub or asks it to act; none writes the map of servers. The
agent's ``connect_mcp`` tool asks it to connect, the pool reads ``hub.clients`` every
turn, s26's ``authenticate`` pseudo-tool asks it to promote a ``needs-auth`` server, and
leaving ``async with Hub(...)`` closes every server it holds.

States are ``harness.spec.State``. Every transition is a ``Change``, recorded in the
transcript as a ``state`` event and handed to ``on_change`` (s28 prints them)::

    hub.add("docs", connector)   ->  pending
    await hub.connect("docs")    ->  connected | failed | needs-auth
    await hub.promote("docs", c) ->  connected (after signing in)
    a connection that dies       ->  failed (the connection reports it)
    await hub.aclose()           ->  closed

A connector is ``async () -> Client``: a mock server in process (s19-s22) or a real
connection (s23 on); the hub cannot tell them apart and imports no SDK. It raises
``ServerError`` when the server cannot be reached, or ``AuthRequired`` carrying a
stand-in client when the server wants a sign-in first.

``accept`` is asked before a server joins, with the clients that would then be live; it
raises a ``HarnessError`` to refuse (s21's name checker refuses a server whose tools
would collide with a connected server's). A refused server is closed and ``failed``, a
warning names it and why, and the run goes on: collisions cannot end a run.

``connect_all`` opens several at once, with a limit, and joins them in the
order asked, with at most ``local_limit()`` local and 20 remote servers opening at once (s28). ``reconnect``
connects a server again by hand. Not handled here: config files (s27), reload (s29).
"""

from __future__ import annotations

import math
import os
from collections.abc import Awaitable, Callable, ItemsView, Iterable, Iterator, Mapping, ValuesView
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from harness import echo, transports
from harness.errors import AuthRequired, ConfigError, HarnessError, ServerError
from harness.client import Client, Closes, Observed, Renews, Retimed
from harness.jsonvalue import JSONObject
from harness.spec import ServerSpec, State, Timeouts
from harness.transcript import Transcript, grouped

if TYPE_CHECKING:
    import anyio

Connector = Callable[[], Awaitable[Client]]
Accept = Callable[[Mapping[str, Client]], None]
LIVE = (State.CONNECTED, State.NEEDS_AUTH)  # states whose client offers tools to the model
OFF = (State.DISABLED, State.BLOCKED)  # states the config or a policy chose: never started
# How many servers connect_all opens at once, per kind, from a floor model rather than a
# guess. A local server's start-up is CPU (an interpreter importing its SDK: about 0.75 s
# of CPU for a mock server) with short waits between (spawn, page cache, the handshake's
# round trips): WAIT_PER_CPU, their ratio (a mock server's start-up alone, fastest runs:
# 0.67 s of wall for 0.58 s of CPU, 0.15; the client's handshake adds its round trips). N servers cannot finish before
# N x CPU / cores, the floor (bench/run.py, section connect). To stay at it, every core
# must be busy through those waits, which takes cores x (1 + WAIT_PER_CPU) at once; on a
# machine that runs other work too, the scheduler shares each core among runnable
# processes, so the batch also gets one more slot per process of that work (the 1-minute
# load average, read when connect_all starts) to keep its share, up to LOCAL_CAP (each
# server holds about 50 MiB). Claude Code, for comparison, opens a fixed 3 local servers
# at once (MCP_SERVER_CONNECTION_BATCH_SIZE) and 20 remote ones; the model gives 3 on an
# idle 2-core machine and more when cores or other work are added, and never fewer than
# Claude Code's 3 (one slow server then never makes a small config wait in line). A remote server's
# connect is mostly waiting on the network, not on our cores: 20, as Claude Code.
# lesson: s28
WAIT_PER_CPU = 0.25
CLAUDE_CODE_LOCAL = 3
LOCAL_CAP = 32
LIMITS: Mapping[str, int] = MappingProxyType({"local": max(CLAUDE_CODE_LOCAL, math.ceil((os.cpu_count() or 1) * (1 + WAIT_PER_CPU))), "remote": 20})


def local_limit(cores: int | None = None, load: float | None = None) -> int:
    """The floor model's local limit: cores x (1 + WAIT_PER_CPU), plus the machine's other runnable work; from 3 to LOCAL_CAP."""
    cores = cores or os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this platform: an idle machine
            load = 0.0
    return max(CLAUDE_CODE_LOCAL, min(LOCAL_CAP, math.ceil(cores * (1 + WAIT_PER_CPU) + load)))


# lesson: s20
@dataclass(frozen=True)
class Entry:
    """One server as the hub holds it. Replaced, never changed, on every transition."""

    name: str
    state: State
    connector: Connector = field(compare=False, repr=False)
    spec: ServerSpec | None = None
    client: Client | None = field(default=None, compare=False, repr=False)
    error: HarnessError | None = None  # why it failed, as raised

    @property
    def tools(self) -> list[JSONObject]:
        """The tools the server listed (empty unless it has a client)."""
        return list(self.client.tools) if self.client is not None else []


@dataclass(frozen=True)
class Change:
    """One state transition: the event every display of the hub is built from."""

    server: str
    old: State | None  # None: the server was just added
    new: State
    reason: str = ""


def offered(entry: Entry) -> bool:
    """Whether the model is offered this server's tools: it is live, or between reconnect attempts.

    A server waiting to reconnect keeps its tools, so the model can still call one, and
    that call reconnects at once (reconnect on next use, s28). One that gave up does not.
    """
    return entry.client is not None and (entry.state in LIVE or entry.state is State.PENDING)


class _Entries(dict[str, Entry]):
    """The hub's map of servers, counting its writes: ``version`` moves on with every entry set or deleted, never
    otherwise, so a cache of what the map says is keyed on it (the hub writes the map only by ``[name] =`` and ``del``)."""

    version = 0

    def __setitem__(self, name: str, entry: Entry) -> None:
        super().__setitem__(name, entry)
        self.version += 1

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        self.version += 1


# lesson: s20
class _Live(Mapping[str, Client]):
    """``hub.clients``: the clients of the servers whose tools are offered, as the hub's map is now.

    Which servers are offered depends only on their entries, and every write to the map of entries
    moves its ``version`` on (``_Entries``); the view is worked out again on the first access after
    a move, and is the same dict until the next one.
    """

    def __init__(self, entries: _Entries) -> None:
        self._entries = entries
        self._seen: tuple[int, dict[str, Client]] | None = None  # (the version it was read at, the live clients)

    def _live(self) -> dict[str, Client]:
        seen, now = self._seen, self._entries.version
        if seen is None or seen[0] != now:
            seen = self._seen = (now, {n: e.client for n, e in self._entries.items() if offered(e)})  # type: ignore[misc]
        return seen[1]

    def __getitem__(self, name: str) -> Client:
        return self._live()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._live())

    def __len__(self) -> int:
        return len(self._live())

    def __contains__(self, name: object) -> bool:
        return name in self._live()

    def items(self) -> ItemsView[str, Client]:  # type: ignore[override]
        return self._live().items()

    def values(self) -> ValuesView[Client]:  # type: ignore[override]
        return self._live().values()


class Hub:
    """Owns the servers: their entries, every state change, and closing them."""

    def __init__(self, transcript: Transcript | None = None, *, accept: Accept | None = None,
                 on_change: Callable[[Change], None] | None = None) -> None:
        self._entries = _Entries()
        self._transcript = transcript  # every change is recorded there as a "state" event; warnings are printed
        self._accept = accept
        self._on_change = on_change
        self.entries: Mapping[str, Entry] = MappingProxyType(self._entries)  # read-only to everyone else
        self.clients: Mapping[str, Client] = _Live(self._entries)
        self._order = _InOrder()  # connects join in the order asked
        self._connecting: dict[str, anyio.Event] = {}  # name -> an anyio.Event set when its connect under way ends

    version = property(lambda self: self._entries.version, doc="Moves on with every change to the map of servers, only then.")

    async def __aenter__(self) -> Hub:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- the map: only these methods write it --

    # lesson: s20, s27
    def add(self, name: str, connector: Connector, spec: ServerSpec | None = None, *,
            state: State = State.PENDING, error: HarnessError | None = None) -> Entry:
        """Make a server known; nothing is started yet.

        ``pending`` servers can be connected. A server the config turned off (``disabled``),
        a policy refused (``blocked``) or whose entry is broken (``failed`` with its
        ``ConfigError``) is listed with its reason and never started.
        """
        if name in self._entries:
            raise HarnessError(f"server '{name}': already added")
        return self._set(Entry(name, state, connector, spec, error=error), str(error) if error else "added")

    # lesson: s20
    async def connect(self, name: str) -> Entry:
        """Connect a known server. Returns its entry: connected, needs-auth, or failed (never raises for the server).

        Connects may run at once (``connect_all``, or several ``connect_mcp`` calls in one
        turn). Each opens as soon as it is asked, but joins the hub only after every
        connect asked before it has joined, so which of two colliding servers wins, and
        the order of states and warnings, never depend on which server answered first.
        """
        import anyio  # for the turn-taking below; every connector is async anyway

        entry = self._entries[name]
        if entry.state in LIVE or entry.state in OFF or isinstance(entry.error, ConfigError):
            return entry  # live already, or never to be started (off, or a broken config entry)
        if entry.state is State.PENDING and isinstance(entry.client, Renews) and entry.client.renewable:
            return await self.reconnect(name)  # between reconnect attempts: try now, on the same connection
        if name in self._connecting:  # asked twice at once: one connection, and both get its outcome
            await self._connecting[name].wait()
            return self._entries[name]
        self._connecting[name] = anyio.Event()
        ticket = self._order.take()
        try:
            opened = await self._open(name)
            await self._order.wait(ticket)  # the connects asked before this one join first
            return await self._settle(name, opened)
        finally:
            await self._order.done(ticket)
            self._connecting.pop(name).set()

    # lesson: s28
    async def connect_all(self, names: Iterable[str] | None = None, *, limits: Mapping[str, int] | None = None) -> list[Entry]:
        """Connect several servers (default: every pending one), at most ``limits[kind]`` of a kind opening at once
        (``in_pools``); ``limits`` defaults to ``LIMITS`` with the local limit read now (``local_limit``).

        The kinds are ``local`` (a local transport, and servers in process) and ``remote``; the two pools fill at
        the same time. Each server's timeouts start when its own connect starts, not when the batch does, so a slow
        server holds one slot and delays no one else's timeout. Joins follow the order asked (``connect``).
        """
        if names is None:
            asked = [n for n, e in self._entries.items() if e.state is State.PENDING]
        else:
            asked = [n for n in names if self._entries[n].state not in LIVE]
        kinds = {name: kind_of(self._entries[name].spec) for name in asked}
        await in_pools(asked, kinds, limits if limits is not None else {**LIMITS, "local": local_limit()}, self.connect,
                       self._transcript)
        return [self._entries[name] for name in asked]

    async def _open(self, name: str) -> Client | ServerError:
        """Run the server's connector: its client, or the error it failed with."""
        entry = self._entries[name]
        if entry.client is not None:  # a connection that died still holds its process: stop it first
            await _close(entry.client)
            self._set(replace(entry, client=None), "old connection closed")
        try:
            return await self._entries[name].connector()
        except ServerError as exc:  # AuthRequired too: settled below
            return exc

    async def _settle(self, name: str, opened: Client | ServerError) -> Entry:
        entry = self._entries[name]
        if isinstance(opened, AuthRequired):
            return self._set(replace(entry, state=State.NEEDS_AUTH, client=opened.stand_in, error=None), str(opened))
        if isinstance(opened, ServerError):
            return self._set(replace(entry, state=State.FAILED, client=None, error=opened), str(opened))
        return await self._join(entry, opened)

    # lesson: s28
    async def reconnect(self, name: str) -> Entry:
        """Connect again now, by hand (a user's "reconnect", or the next use of a failed server).

        A connection that can renew its own session does (a stdio server is spawned again,
        its variables expanded again); a server that never connected, or whose connection
        ended, goes through its connector again. Servers turned off or broken in the config
        are left as they are.
        """
        entry = self._entries[name]
        if entry.state in OFF or isinstance(entry.error, ConfigError):
            return entry
        if isinstance(entry.client, Renews) and entry.client.renewable:  # a live connection object: it reports its own outcome
            await entry.client.reconnect()
            return self._entries[name]
        if entry.state in LIVE:  # a client that cannot renew itself (in process, a stand-in): connect afresh
            self._set(replace(self._entries[name], state=State.PENDING), "reconnecting: asked to")
        return await self.connect(name)

    # lesson: s29
    async def remove(self, name: str, reason: str = "removed") -> None:
        """Stop a server and forget it (s29: gone from the config). Its last change is ``closed``."""
        entry = self._entries[name]
        if entry.state is not State.CLOSED:
            self._set(replace(entry, state=State.CLOSED), reason)
        del self._entries[name]
        if entry.client is not None:
            await _close(entry.client)

    # lesson: s29
    async def replace(self, name: str, connector: Connector, spec: ServerSpec | None = None, *,
                      state: State = State.PENDING, error: HarnessError | None = None, reason: str = "replaced") -> Entry:
        """Stop a server and start over with a new connector and spec (s29: its config changed).

        Like ``add``: the new entry is ``pending`` (connect it next), or off or broken with
        its reason. The old connection is closed first, so a stdio server is never run twice.
        """
        old = self._entries[name]
        if old.state not in (State.CLOSED, *OFF):
            old = self._set(replace(old, state=State.CLOSED), reason)  # first, so the closing connection's own report is moot
        if old.client is not None:
            await _close(old.client)
        return self._set(Entry(name, state, connector, spec, error=error), str(error) if error else "started again")

    # lesson: s26
    async def promote(self, name: str, client: Client) -> Entry:
        """A ``needs-auth`` server signed in: its real client replaces the stand-in."""
        return await self._join(self._entries[name], client)

    def retime(self, name: str, timeouts: Timeouts) -> None:
        """New timeouts for a running server (s29: patched in place); its next request uses them."""
        client = self._entries[name].client
        if isinstance(client, Retimed):
            client.retime(timeouts)

    def report(self, name: str, client: Client, state: State, reason: str) -> None:
        """A connection's own news (it died, or came back). Ignored if that client is no longer the server's."""
        entry = self._entries.get(name)
        if entry is not None and entry.client is client and entry.state is not state:
            error = ServerError(f"server '{name}': {reason}") if state is State.FAILED else None
            self._set(replace(entry, state=state, error=error), reason)

    async def aclose(self) -> None:
        """Close every server the hub holds; each ends ``closed``. Safe to call twice."""
        held = list(self._entries.values())
        for entry in held:
            if entry.state not in (State.CLOSED, State.FAILED, *OFF):  # a failure, or a choice, stays on record
                self._set(replace(entry, state=State.CLOSED), "hub closed")
        await _close_all([e.client for e in held if isinstance(e.client, Closes)])  # a failed one may still hold a process

    # -- internals --

    # lesson: s21
    async def _join(self, entry: Entry, client: Client) -> Entry:
        if self._accept is not None:
            try:
                self._accept({**self.clients, entry.name: client})
            except HarnessError as exc:
                await _close(client)  # a refused client must not linger: from s23 on it is a live process
                if self._transcript is not None:
                    self._transcript.warning(f"server '{entry.name}' not connected: {exc}")
                return self._set(replace(entry, state=State.FAILED, client=None, error=exc), str(exc))
        if isinstance(client, Observed):  # a real connection tells the hub when it dies
            client.observe(lambda state, reason: self.report(entry.name, client, state, reason))
        names = echo.names([t["name"] for t in client.tools])  # server-given: escaped and cut before any output
        return self._set(replace(entry, state=State.CONNECTED, client=client, error=None), f"tools: {names}")

    def _set(self, entry: Entry, reason: str) -> Entry:
        old = self._entries.get(entry.name)
        self._entries[entry.name] = entry
        change = Change(entry.name, old.state if old else None, entry.state, reason)
        if self._transcript is not None:  # recorded, not printed: this may run in a connection's callback
            self._transcript.record("state", server=change.server, old=change.old.value if change.old else None,
                                    new=change.new.value, reason=change.reason)
        if self._on_change is not None:
            self._on_change(change)
        return entry


class _InOrder:
    """Tickets that join in the order they were taken, whichever finishes its own work first."""

    def __init__(self) -> None:
        self._taken = self._joined = 0
        self._turn: anyio.Event | None = None  # set each time a ticket joins (made by the first ticket)

    def take(self) -> int:
        import anyio  # only connects that run at once need the turns

        ticket, self._taken = self._taken, self._taken + 1
        if self._turn is None:
            self._turn = anyio.Event()
        return ticket

    async def wait(self, ticket: int) -> None:
        while self._joined != ticket:
            await self._turn.wait()

    async def done(self, ticket: int) -> None:
        """``ticket``'s turn is over. Cancelled while waiting, it still takes its turn, or later tickets stall."""
        import anyio  # as in take(): only connects that run at once

        with anyio.CancelScope(shield=True):
            await self.wait(ticket)
        self._joined += 1
        self._turn.set()
        self._turn = anyio.Event()


async def in_pools(names: list[str], kinds: Mapping[str, str], limits: Mapping[str, int],
                   connect: Callable[[str], Awaitable[object]], transcript: Transcript | None) -> None:
    """``connect(name)`` for each of ``names`` at once, at most ``limits[kind]`` of a kind at a time; the transcript
    holds what each prints until it is that server's turn, so the output is in the order asked."""
    import anyio  # concurrency is only needed here, by real connections

    gates = {kind: anyio.Semaphore(n) for kind, n in limits.items()}  # FIFO: within a kind, starts follow the order asked

    async def connect_one(name: str) -> None:
        with grouped(f"hub:{name}"):  # what this connect prints waits for its turn (frames, notes)
            async with gates[kinds[name]]:
                await connect(name)

    with transcript.holding() if transcript is not None else nullcontext():
        async with anyio.create_task_group() as tg:
            for name in names:
                tg.start_soon(connect_one, name)
        for name in names:
            if transcript is not None:
                transcript.release(f"hub:{name}")


async def _close_all(clients: list[Client]) -> None:
    """Close them in parallel: each may wait out a grace."""
    if clients:
        import anyio  # only real connections need closing, and they run on anyio

        async with anyio.create_task_group() as tg:
            for client in clients:
                tg.start_soon(client.aclose)


def kind_of(spec: ServerSpec | None) -> str:
    """``local`` (a local transport, or a server in process) or ``remote``: which ``LIMITS`` pool it waits in."""
    return "local" if spec is None or transports.is_local(spec.transport) else "remote"


def unavailable(error: ServerError) -> Connector:
    """A connector for a server known to be down: connecting it fails with ``error``."""

    async def connect() -> Client:
        raise error

    return connect


async def _close(client: Client) -> None:
    if isinstance(client, Closes):
        await client.aclose()
