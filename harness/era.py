"""Two protocol eras side by side, negotiated per server: the handshake era and 2026-07-28.

A server of the handshake era (protocol 2025-11-25 and before) opens with ``initialize``
and keeps a session: over Streamable HTTP an ``Mcp-Session-Id``, and a back channel for
the server's own requests. A 2026-07-28 server has no handshake and no session: the client
asks ``server/discover`` once for the server's versions and capabilities, then every
request carries the protocol version, the client's info and capabilities in its ``_meta``
(and over HTTP the ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers).
Many servers, the SDK's own among them, speak both.

``handshake(protocol)`` is the connection's ``handshake=`` (``harness.opening.Handshake``)
for one of three choices, which a config entry pins with ``"protocol"``:

    auto        (the default) probe ``server/discover``; a server that answers with a
                2026-07-28 version is reached that way, any other answer falls back to
                ``initialize``, as the SDK's ``Client(mode="auto")`` does:
                  an error (-32601 from an older server, anything but the case below)  -> initialize
                  -32022 naming a newer version we also speak                           -> discover again at it
                  -32022 naming only versions newer than ours, no handshake-era one      -> the error
                  no answer within the connect timeout                                    -> initialize
                  a result without a 2026-07-28 version in it (a legacy advertisement)    -> initialize
                  -32022 to that initialize (the slow probe locked the server modern)     -> discover again
    2026-07-28  ``server/discover`` only (a -32022 naming a version we speak: once more at it)
    2025-11-25  ``initialize`` only: the handshake era, as s23 to s33 connect

One connect timeout covers the whole negotiation, not each step of it, and not the SDK's
fixed 10 s for a probe: an automatic probe may spend half of it, and every later step what
is left, on the clock that stops while a person signs in (``harness.auth.clock.connect_clock``), so
OAuth works the same in either era: the request that got 401 is sent again after the
sign-in, with its protocol header. A failure names the step that ran (``server/discover``
or ``initialize``). An automatic negotiation says in the transcript what it found
(``note: docs: protocol 2026-07-28 (server/discover)``); a pinned one says nothing, since
the config said it. A 2026-07-28 session up again after a loss says "reconnected
(server/discover)" in its state line: there is no session to establish. ``of(client)`` is
the era a connected client speaks, for ``servers``.

``protocol(server)`` reads the field from the entry as written (``ServerConfig.raw``); a
value that is not one of the three is a ``ConfigError`` naming the server and the field,
and only that server fails.

A session opened in 2026-07-28 needs more than its opening: ``harness.modern``'s mechanisms
hear its list changes (``subscriptions/listen``) and ask for its log messages; pass them
beside ``handshake=``, as the stack's ``Eras`` part does.

Introduced by s34. Not handled here: an older modern revision (the SDK knows only
2026-07-28), remembering a server's era between runs (every connect probes again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness import sdk_compat
from harness.client import Speaks
from harness.echo import line
from harness.errors import ConfigError
from harness.jsonvalue import JSONMapping, JSONObject

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from harness.config.formats import ServerConfig
    from harness.opening import Handshake, Opening
    from harness.spec import Timeouts

# The SDK is imported by the handshake only, inside the functions below: ``protocol`` and
# ``check`` run whenever a config file is read (harness.config.fields), where nothing connects.

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
AUTO = "auto"
CHOICES = (MODERN, HANDSHAKE, AUTO)
FIELD = "protocol"
UP_AGAIN = "reconnected (server/discover)"  # a 2026-07-28 session's state line: there is no session to establish


def protocol(server: ServerConfig) -> str:
    """The era a configured server (``harness.config.ServerConfig``) pins: its ``protocol`` field, default ``auto``."""
    raw: JSONMapping = server.raw
    value = raw.get(FIELD, AUTO)
    if value not in CHOICES:
        kinds = {bool: "true or false", int: "a number", float: "a number", list: "a list", dict: "an object", type(None): "null"}
        shown = line(repr(value), 60) if isinstance(value, str) else kinds.get(type(value), type(value).__name__)
        raise ConfigError(f"server '{server.name}': field '{FIELD}': expected \"2026-07-28\", \"2025-11-25\" or \"auto\", "
                          f"not {shown}")
    return value


def check(servers: list[ServerConfig]) -> None:
    """Each server's ``protocol`` field, as ``harness.config.fields`` checks it when the file is read."""
    for server in servers:
        protocol(server)


def handshake(choice: str = AUTO) -> Handshake:
    """The ``handshake=`` for ``choice`` (one of ``CHOICES``)."""
    if choice not in CHOICES:
        raise ValueError(f"no era {choice!r} (eras: {', '.join(CHOICES)})")

    # The SDK, once a connection is set up: config reading imports this module (check) and must not load it.
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from harness.opening import Opening

    async def negotiated(session: ClientSession, timeouts: Timeouts) -> Opening:
        note = await negotiate(session, timeouts, choice)
        return Opening(note=note, state=UP_AGAIN if session.protocol_version in MODERN_PROTOCOL_VERSIONS else None)

    return negotiated


def of(client: object) -> str | None:
    """The protocol version a connected client speaks (None: not an MCP connection, or not connected yet)."""
    return client.protocol if isinstance(client, Speaks) else None


async def negotiate(session: ClientSession, timeouts: Timeouts, choice: str = AUTO) -> str | None:
    """Open ``session`` in the era ``choice`` says; what the transcript is told (None for a pinned era)."""
    import mcp_types as types  # the SDK: only when a session opens, not when a config is checked
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION, MODERN_PROTOCOL_VERSIONS
    from pydantic import ValidationError

    from harness.auth.clock import connect_clock
    from harness.opening import InPhase
    from harness.sessions import Pinned

    left = [timeouts.connect]  # seconds of connect time the rest of the negotiation may spend

    async def initialize(after: str) -> str | None:
        try:
            with connect_clock(left[0]) as clock:
                result = await session.initialize()
            left[0] = clock.remaining()
        except Exception as exc:
            phase = f"initialize (server/discover {after} first)" if after else "initialize"
            if choice == HANDSHAKE and isinstance(exc, MCPError) and exc.code == types.UNSUPPORTED_PROTOCOL_VERSION:
                speaks = ", ".join(mutual(exc)[1] or []) or "another version"
                raise InPhase(phase, Pinned(f"the server speaks only {speaks}; \"protocol\": \"{HANDSHAKE}\" pins the handshake "
                                            f"era: set \"protocol\" to \"{MODERN}\" or \"{AUTO}\"")) from None
            raise InPhase(phase, exc) from None
        return None if choice != AUTO else f"protocol {result.protocol_version} (initialize, after server/discover {after})"

    def mutual(error: MCPError) -> tuple[list[str], list[str] | None]:
        """The modern versions both speak, and every version the server named (None: it named none)."""
        try:
            supported = types.UnsupportedProtocolVersionErrorData.model_validate(error.error.data).supported
        except ValidationError:
            return [], None
        return [v for v in MODERN_PROTOCOL_VERSIONS if v in supported], supported

    if choice == HANDSHAKE:
        return await initialize("")
    version, retried = LATEST_MODERN_VERSION, False
    while True:
        after = None  # why this is not a 2026-07-28 server, when the probe says it is not
        probe = left[0] / 2 if choice == AUTO else left[0]  # an automatic probe leaves half for initialize
        clock = None
        try:
            with connect_clock(probe) as clock:
                raw = await _discover(session, version)
        except MCPError as exc:
            both, named = mutual(exc) if exc.code == types.UNSUPPORTED_PROTOCOL_VERSION else ([], None)
            if both and not retried:
                version, retried = both[-1], True
                continue
            modern_only = named is not None and not any(v in HANDSHAKE_PROTOCOL_VERSIONS for v in named)
            if choice == MODERN and (exc.code == types.METHOD_NOT_FOUND or (named and not modern_only)):
                speaks = ", ".join(named) if named else "the handshake era (it does not know server/discover)"
                raise InPhase("server/discover", Pinned(f"the server speaks {speaks}; \"protocol\": \"{MODERN}\" pins the "
                                                        f"other era: set \"protocol\" to \"{HANDSHAKE}\" or \"{AUTO}\"")) from None
            if choice == MODERN or modern_only:
                raise InPhase("server/discover", exc) from None
            after = f"answered error {exc.code}: {line(exc.message, 80)}"
        except TimeoutError as exc:
            if choice == MODERN:
                raise InPhase("server/discover", exc) from None
            after = f"went unanswered for {probe:g} s (half the connect timeout)"
        except Exception as exc:  # the transport failed (cannot reach, closed): no era verdict, the error
            raise InPhase("server/discover", exc) from None
        finally:
            if clock is not None:
                left[0] -= probe - clock.remaining()
        if after is None:
            try:
                result = types.DiscoverResult.model_validate(raw)
            except ValidationError as exc:
                if choice == MODERN:
                    raise InPhase("server/discover", exc) from None
                after = "answered a result that is not a discover result"
            else:
                if any(v in result.supported_versions for v in MODERN_PROTOCOL_VERSIONS):
                    session.adopt(result)
                    return None if choice != AUTO else f"protocol {session.protocol_version} (server/discover)"
                named_only = ", ".join(result.supported_versions) or "no version"
                if choice == MODERN:
                    raise InPhase("server/discover", Pinned(f"the server speaks {named_only}; \"protocol\": \"{MODERN}\" pins "
                                                            f"the other era: set \"protocol\" to \"{HANDSHAKE}\" or \"{AUTO}\""))
                after = f"named only {named_only}"
        try:
            return await initialize(after)
        except InPhase as failed:
            error = failed.error
            if not (isinstance(error, MCPError) and error.code == types.UNSUPPORTED_PROTOCOL_VERSION) or retried:
                raise
            # -32022 to initialize is modern evidence: a probe that timed out here reached the
            # server, which now speaks 2026-07-28. Once more, at a version it names.
            both, _ = mutual(error)
            if not both:
                raise
            version, retried = both[-1], True


async def _discover(session: ClientSession, version: str) -> JSONObject:
    """One ``server/discover`` at ``version``: the raw result, or the error (``MCPError``).

    As the SDK's ``ClientSession.send_discover`` builds it (the ``_meta`` envelope, the
    ``MCP-Protocol-Version`` and ``Mcp-Method`` headers), but with no timeout of its own:
    the SDK's is a fixed 10 s; ours is the connect clock around this call. The SDK's public
    ``send_discover`` cannot take another timeout, so this goes through ``harness.sdk_compat``.
    """
    import mcp_types as types  # the SDK: only when a session opens
    from mcp.client.session import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER
    from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

    capabilities = sdk_compat.capabilities_at(session, version)
    client_info = sdk_compat.client_info(session)
    request = types.DiscoverRequest(params=types.RequestParams(_meta={
        PROTOCOL_VERSION_META_KEY: version, CLIENT_INFO_META_KEY: client_info, CLIENT_CAPABILITIES_META_KEY: capabilities}))
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    options = {"cancel_on_abandon": False,  # the spec forbids cancelling a negotiation request
               "headers": {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: data["method"]}}
    raw = await sdk_compat.send_raw(session, data["method"], data.get("params"), options)
    if isinstance(ttl := raw.get("ttlMs"), int | float) and not isinstance(ttl, bool) and ttl < 0:
        raw["ttlMs"] = 0  # a negative cache hint is read as "do not cache", not as a result to refuse
    return raw
