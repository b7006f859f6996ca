"""Hot reload (s29): watch the settings file and apply each edit to the running hub.

Three parts, each usable alone:

``diff(old, new)`` compares two readings of the config, server by server, into a ``Plan``:

    add        a name that is new
    remove     a name that is gone
    restart    a connection-relevant field changed: transport, command, args, env, cwd,
               url, headers, or disabled/blocked/broken. The server is stopped and started.
    unchanged  nothing connection-relevant changed. ``autoApprove`` and timeouts are
               patched in place; the server keeps running. Moving a server to another
               scope, or editing another server, is no reason to restart it.

What counts is ``fingerprint(server)``: a hash of the connection-relevant fields as
written (variables unexpanded, so a secret in the environment never enters it).

``Watcher`` polls the file (every 100 ms, no dependency) and reads it only once it has
stopped changing for 100 ms, so an editor's partial write or a burst of saves is read
once. It skips the content the harness wrote itself (``write``), the fingerprint guard
that keeps the hub's own edits, such as remembering an "always allow", from ever
reconnecting anything. A file that is not valid JSON keeps every server as it is and says
where the error is; the next good save applies.

``Reloader`` joins them to a hub: it owns the current reading, prints the plan as one
line, and asks the hub to remove, replace and connect. Servers not in the plan are not
touched.

Cline watches its file the same way (100 ms stability); older versions guarded their own
writes with a 300 ms flag, which could lose an edit made inside that window, and newer
ones fingerprint as here. Claude Code has no watcher: it compares config hashes when a
session reloads.

Introduced by s29. Not handled here: several processes editing one file at once (no lock
file), watching more than one file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from harness import config
from harness.config import ServerConfig
from harness.config.files import read_config
from harness.errors import ConfigError
from harness.hub import Hub
from harness.jsonvalue import JSONObject
from harness.spec import State
from harness.transcript import Transcript

POLL = 0.1  # seconds between looks at the file
STABLE = 0.1  # a change is read once the file has looked the same for this long (Cline: 100 ms)


def fingerprint(server: ServerConfig) -> str:
    """A short hash of what the connection depends on. ``autoApprove``, timeouts, scope and source are left out."""
    spec = server.spec
    relevant: JSONObject = {"state": server.state.value, "reason": server.reason}
    if spec is not None:
        relevant.update(transport=spec.transport, command=spec.command, args=list(spec.args), env=dict(spec.env),
                        cwd=spec.cwd, url=spec.url, headers=dict(spec.headers))
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Plan:
    """What one edit changes, server by server, in the order of the new file."""

    add: tuple[ServerConfig, ...] = ()
    remove: tuple[str, ...] = ()
    restart: tuple[ServerConfig, ...] = ()
    unchanged: tuple[ServerConfig, ...] = ()
    patched: Mapping[str, str] = field(default_factory=dict)  # server -> what was patched in place

    def __bool__(self) -> bool:
        return bool(self.add or self.remove or self.restart or self.patched)

    def summary(self) -> str:
        parts = [f"add {s.name}" for s in self.add] + [f"remove {n}" for n in self.remove]
        parts += [f"restart {s.name}" for s in self.restart]
        parts += [f"patch {n} ({what})" for n, what in self.patched.items()]
        unchanged = [s.name for s in self.unchanged if s.name not in self.patched]
        if unchanged:
            parts.append("unchanged " + ", ".join(unchanged))
        return "; ".join(parts) or "nothing to do"


def diff(old: Iterable[ServerConfig], new: Iterable[ServerConfig]) -> Plan:
    """Compare two readings by server name (see the module docstring)."""
    before = {s.name: s for s in old}
    after = {s.name: s for s in new}
    add, restart, unchanged, patched = [], [], [], {}
    for name, server in after.items():
        was = before.get(name)
        if was is None:
            add.append(server)
        elif fingerprint(was) != fingerprint(server):
            restart.append(server)
        else:
            unchanged.append(server)
            what = _patches(was, server)
            if what:
                patched[name] = what
    remove = tuple(name for name in before if name not in after)
    return Plan(tuple(add), remove, tuple(restart), tuple(unchanged), patched)


def _patches(was: ServerConfig, now: ServerConfig) -> str:
    what = []
    if was.raw.get("autoApprove") != now.raw.get("autoApprove"):
        what.append("autoApprove")
    for name in config.TIMEOUT_NAMES:
        if getattr(was.timeouts, name) != getattr(now.timeouts, name):
            what.append(f"{name} timeout {getattr(was.timeouts, name):g} s -> {getattr(now.timeouts, name):g} s")
    return ", ".join(what)


def write(path: Path, text: str) -> str:
    """Replace ``path`` atomically (a temp file in the same folder, then rename); returns the content's digest."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return _digest(text.encode("utf-8"))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Watcher:
    """Polls one file; hands each settled new content to ``changed`` (text, or None if the file is gone)."""

    def __init__(self, path: Path, changed: Callable[[str | None], Awaitable[None]], *,
                 poll: float = POLL, stable: float = STABLE, sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
                 on_skip: Callable[[str], None] | None = None) -> None:
        self.path = path
        self._changed, self._poll, self._stable, self._sleep, self._on_skip = changed, poll, stable, sleep, on_skip
        self._seen = self._stat()
        self._known = self._read_digest()  # the content last handed on, or written by us
        self._lock = anyio.Lock()

    async def run(self) -> None:
        """Watch until cancelled."""
        while True:
            await self._sleep(self._poll)
            await self.check()

    async def check(self) -> None:
        """Look now; if the file changed, wait until it is stable and hand it on. ``await`` it to be settled."""
        async with self._lock:
            now = self._stat()
            if now == self._seen:
                return
            while True:  # debounce: read only once the file has stopped changing
                await self._sleep(self._stable)
                later = self._stat()
                if later == now:
                    break
                now = later
            self._seen = now
            data = self._read()
            digest = _digest(data) if data is not None else None
            if digest == self._known:
                if self._on_skip is not None:
                    self._on_skip("the content is what the harness wrote (or read) last: nothing to do")
                return
            self._known = digest
            await self._changed(data.decode("utf-8", errors="replace") if data is not None else None)

    def write(self, text: str) -> None:
        """The harness's own edit: written atomically and remembered, so the watcher skips it."""
        self._known = write(self.path, text)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _read(self) -> bytes | None:
        try:
            return read_config(self.path)  # a regular file only, bounded, never a wait (a FIFO, /dev/zero)
        except ConfigError:
            return b""  # a change all the same: reading it for the reload says why it is refused

    def _read_digest(self) -> str | None:
        data = self._read()
        return _digest(data) if data is not None else None


class Reloader:
    """Applies each new reading of one settings file to ``hub``, printing the plan.

    ``load`` reads the config again (``config.load`` with the same paths, so the policy
    applies to every edit); ``servers`` is the reading the hub was built from.
    """

    def __init__(self, hub: Hub, path: Path, load: Callable[[], list[ServerConfig]], servers: Iterable[ServerConfig],
                 connector: Callable[[ServerConfig], Any], transcript: Transcript | None = None, *,
                 shown: str | None = None) -> None:
        self.hub, self.path, self._load, self._connector, self._transcript = hub, path, load, connector, transcript
        self.servers: dict[str, ServerConfig] = {s.name: s for s in servers}
        self._shown = shown or path.name
        self.watcher = Watcher(path, self._apply_text, on_skip=lambda why: self._say(f"{self._shown} changed: {why}"))

    async def run(self) -> None:
        await self.watcher.run()

    async def settled(self) -> None:
        """Apply any edit made so far (waiting out the stability window); the next turn then sees it."""
        await self.watcher.check()

    async def _apply_text(self, text: str | None) -> None:
        if text is None:
            self._say(f"{self._shown} is gone: keeping the running servers")
            return
        try:
            new = self._load()
        except ConfigError as exc:  # not JSON, not an object, a bad policy file: nothing changes
            self._say(f"{exc}; keeping the running servers")
            return
        await self.apply(diff(self.servers.values(), new))
        self.servers = {s.name: s for s in new}

    async def apply(self, plan: Plan) -> None:
        """Remove, restart, add; patch the unchanged in place. Only the servers in the plan are touched."""
        self._say(f"reload {self._shown}: {plan.summary()}")
        for name in plan.remove:
            await self.hub.remove(name, "removed from the config")
        for server in plan.restart:
            await self.hub.replace(server.name, **config.entry(server, self._connector), reason="config changed: restarting")
        for server in plan.add:
            self.hub.add(server.name, **config.entry(server, self._connector))
        for server in plan.unchanged:
            if server.name in plan.patched:
                self.hub.retime(server.name, server.timeouts)  # the next call uses them
        starting = [s.name for s in (*plan.restart, *plan.add) if s.state is State.PENDING and s.spec is not None]
        if starting:
            await self.hub.connect_all(starting)

    def _say(self, text: str) -> None:
        if self._transcript is not None:
            self._transcript.post("note", text=text)

