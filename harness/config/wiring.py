"""Configured servers into the hub: a connector each, or the state the config gave them (s27).

- ``add_to(hub, servers, connector)`` makes every server known to the hub: a pending one
  with its connector, a disabled, blocked or broken one with its state and reason, so it
  is listed and never started; ``entry`` is what ``hub.add`` (or ``hub.replace``, s29)
  takes for one server.
- ``connector(server, conns)`` expands the spec's variables each time it connects (a
  reconnect or a respawn too), then opens it with a ``Connections``; a missing variable
  fails that server alone. A server whose config filters its tools gets the filter
  (``harness.config.toolfilter``) as one more mechanism.
- ``rows`` is the CLI's ``servers`` listing: name, scope, transport, state, error, tools.

Introduced by s27. Not handled here: what a server may do once connected (permissions,
s31), reconnecting (s28's supervisor, passed in ``options``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from harness.config.formats import ServerConfig
from harness.config.variables import expand
from harness.errors import ConfigError, ServerError
from harness.spec import State


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


def connector(server: ServerConfig, conns: Any, environ: Mapping[str, str] = os.environ, redactor: Any = None,
              **options: Any) -> Any:
    """A hub connector that expands the spec's variables each time, then opens it with ``conns`` (a ``Connections``).

    The secret values are registered with ``redactor`` (a ``Redactor``), or else with the transcript's."""
    redact = redactor if redactor is not None else conns.transcript.redact if conns.transcript is not None else None

    def expanded() -> Any:
        spec = expand(server.spec, environ, server.inputs)  # type: ignore[arg-type]  (pending servers have a spec)
        if redact is not None:  # the values are secrets from here on, in every output that redacts
            for value, name in spec.secrets:
                redact.add(value, f"${{{name}}}")
        return spec

    async def connect() -> Any:
        try:
            spec = expanded()
        except ConfigError as exc:
            raise ServerError(str(exc)) from None  # that server fails; the others go on
        # Each new session of this connection (a reconnect, a respawn) expands the variables again.
        return await conns.open(spec, timeouts=server.timeouts, respec=expanded, **filtered, **options)

    from harness.config.toolfilter import PLUG  # the config's tool filters (issue 21), for a server that has one

    has_filter = server.include_tools is not None or bool(server.exclude_tools)
    filtered = {"mechanisms": (*conns.mechanisms, PLUG), "tool_filter": (server.include_tools, server.exclude_tools)} \
        if has_filter and "mechanisms" not in options else {}

    return connect


def rows(hub: Any, servers: Iterable[ServerConfig]) -> list[dict[str, Any]]:
    """One row per server, as ``servers --json`` prints them: name, scope, transport, state, error, tools."""
    table = []
    for server in servers:
        known = hub.entries[server.name]
        table.append({"name": server.name, "scope": server.scope, "transport": server.spec.transport if server.spec else None,
                      "state": known.state.value, "error": str(known.error) if known.error else None,
                      "tools": [t["name"] for t in known.tools]})
    return table
