"""OAuth for remote MCP servers (s26): the SDK does the protocol, this package what it leaves to the host.

One module per part, in the order they build on each other:

    clock       ``SteppedClock`` ("an hour later"), and ``handshake``: the connect clock stopped while a person signs in
    store       ``TokenStore``: tokens and registration in one 0600 file per server (name and URL), ``default_store``
    redirect    ``Callback`` (the loopback listener), ``auto_browser`` and ``deliver`` for offline runs
    provider    ``Provider`` (the SDK's, on our clock, refreshing early and on a 401), ``Authorizer`` (one server's
                sign-in: store, callback, trace, redaction)
    needs_auth  ``NeedsAuth`` (the ``authenticate`` pseudo-tool) and ``connector``: the only module that knows the hub

The names below are importable from here (``auth.Authorizer``, ``auth.connector``); the
modules import each other directly.

Introduced by s26. Not handled here: revocation (RFC 7009), a cross-process refresh lock
(two runs refreshing one stored token at once: the second presents a rotated token, and a
careful server revokes both), client credentials (``harness.conformance`` shows those),
keychains. A step-up (403) during a tool call happens inside that call, so the call
timeout bounds its browser step, not the auth timeout: the connection's call clock has no
pause (``harness.connection``).
"""

from harness.auth.clock import Clock, SteppedClock, handshake
from harness.auth.needs_auth import AUTHENTICATE, NeedsAuth, Opener, connector
from harness.auth.provider import DEFAULT_TIMEOUTS, REFRESH_MARGIN, Authorizer, Provider, refresh_margin
from harness.auth.redirect import BROWSER_FETCH_TIMEOUT, CALLBACK_PATH, Browser, Callback, auto_browser, deliver
from harness.auth.store import TokenStore, default_store, identity, temporary_store

__all__ = ["AUTHENTICATE", "BROWSER_FETCH_TIMEOUT", "CALLBACK_PATH", "DEFAULT_TIMEOUTS", "REFRESH_MARGIN", "Authorizer",
           "Browser", "Callback", "Clock", "NeedsAuth", "Opener", "Provider", "SteppedClock", "TokenStore", "auto_browser",
           "connector", "default_store", "deliver", "handshake", "identity", "refresh_margin", "temporary_store"]
