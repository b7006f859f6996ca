"""Configured servers into the hub: a connector each, or the state the config gave them (s27).

- ``add_to(hub, servers, connector)`` makes every server known to the hub: a pending one
  with its connector, a disabled, blocked or broken one with its state and reason, so it
  is listed and never started; ``entry`` is what ``hub.add`` (or ``hub.replace``, s29)
  takes for one server.
- ``connector(server, conns)`` expands the spec's variables each time it connects (a
  reconnect or a respawn too), then opens it with a ``Connections`` and the mechanisms
  ``mechanisms()`` builds for it; a missing variable fails that server alone. A server
  whose config filters its tools gets the filter (``harness.config.toolfilter``) as one
  more mechanism, the last.
- ``rows`` is the CLI's ``servers`` listing: name, scope, transport, state, error, tools.

Introduced by s27. Not handled here: what a server may do once connected (permissions, s31), reconnecting
(s28's supervisor, one of the mechanisms).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

from harness.config import toolfilter
from harness.config.formats import ServerConfig
from harness.config.variables import expand
from harness.errors import ConfigError, ServerError
from harness.jsonvalue import JSONObject
from harness.spec import ServerSpec, State

if TYPE_CHECKING:
    import httpx2

    from harness.connection import Connections, MCPConnection
    from harness.hub import Hub
    from harness.parts import Connector
    from harness.hooks import Mechanism
    from harness.opening import Handshake
    from harness.redact import Redactor
    from harness.wire import WireTap


def add_to(hub: Hub, servers: Iterable[ServerConfig], connector: Callable[[ServerConfig], Connector]) -> None:
    """Make every configured server known to ``hub``: pending ones with ``connector(server)``, the rest with their reason."""
    for server in servers:
        hub.add(server.name, **entry(server, connector))


# lesson: s29
def entry(server: ServerConfig, connector: Callable[[ServerConfig], Connector]) -> dict[str, object]:
    """What ``hub.add`` (or ``hub.replace``) takes for ``server``: a connector if it may start, else its state and reason."""
    if server.state is State.PENDING:
        return {"connector": connector(server), "spec": server.spec}
    return {"connector": _never, "spec": server.spec, "state": server.state, "error": ConfigError(server.reason)}


async def _never() -> NoReturn:
    raise AssertionError("the hub never starts a disabled, blocked or broken server")


def connector(server: ServerConfig, conns: Connections, environ: Mapping[str, str] = os.environ, *,
              tap: WireTap | None = None, handshake: Handshake | None = None, auth: httpx2.Auth | None = None,
              mechanisms: Callable[[], Sequence[Mechanism]] = tuple,
              redactor: Redactor | None = None) -> Callable[[], Awaitable[MCPConnection]]:
    """A hub connector that expands the spec's variables each time, then opens it with ``conns``.

    The secret values are registered with ``redactor``, or else with the transcript's."""
    redact = redactor if redactor is not None else conns.transcript.redact if conns.transcript is not None else None

    def expanded() -> ServerSpec:
        spec = expand(server.spec, environ, server.inputs)  # type: ignore[arg-type]  (pending servers have a spec)
        if redact is not None:  # the values are secrets from here on, in every output that redacts
            for value, name in spec.secrets:
                redact.add(value, f"${{{name}}}")
        return spec

    async def connect() -> MCPConnection:
        try:
            spec = expanded()
        except ConfigError as exc:
            raise ServerError(str(exc)) from None  # that server fails; the others go on
        plugged = list(mechanisms())
        if (kept := toolfilter.of(server)) is not None:
            plugged.append(kept)
        more = {"handshake": handshake} if handshake is not None else {}
        # Each new session of this connection (a reconnect, a respawn) expands the variables again.
        return await conns.open(spec, timeouts=server.timeouts, respec=expanded, tap=tap, auth=auth, mechanisms=plugged, **more)

    return connect


def rows(hub: Hub, servers: Iterable[ServerConfig]) -> list[JSONObject]:
    """One row per server, as ``servers --json`` prints them: name, scope, transport, state, error, tools."""
    table = []
    for server in servers:
        known = hub.entries[server.name]
        table.append({"name": server.name, "scope": server.scope, "transport": server.spec.transport if server.spec else None,
                      "state": known.state.value, "error": str(known.error) if known.error else None,
                      "tools": [t["name"] for t in known.tools]})
    return table
