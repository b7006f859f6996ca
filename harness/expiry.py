"""Streamable HTTP session expiry (s25): re-initialize, then retry the call once.

The http transport's session watch (``harness.transports.http.SessionWatch``) notices a
404 to our session id (or a 400 whose body names the session as invalid or unknown, as
the reference servers send). The call that got it fails with an MCP error;
``around_send`` takes that error as this mechanism's, and ``around_call`` then says so, asks the connection for
a fresh session (``renew``: once per expired session, however many calls saw it), and
makes the call again, once. The request that got the 404 was never run by the server, so
retrying it cannot run a tool twice. A failed re-initialize leaves the connection
``failed``, never ``connected``, and the call's error says why.

In 2026-07-28 (s34) there is no session to expire: no ``Mcp-Session-Id`` is handed out,
so the watch never sees one, and this mechanism never claims an error.

Plugs into the connection's ``around_send`` and ``around_call`` hooks (``harness.hooks``).
Introduced by s25. Not handled here: a session the server ends with DELETE (the
transport's), resuming a stream after a dropped connection (``Last-Event-ID``).
"""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError

from harness.client import Host
from harness.hooks import Call, Mechanism, Proceed, Send
from harness.jsonvalue import JSON
from harness.errors import ToolError
from harness.results import ToolResult


class Expired(Exception):
    """A call hit HTTP 404 (or a 400 naming the session) with our session id: the server forgot the session."""


class SessionExpiry(Mechanism):
    """Re-initialize an expired Streamable HTTP session, then retry the call once."""

    order = 20

    def bind(self, host: Host) -> None:
        self._conn = host

    async def around_send(self, call: Call, proceed: Send) -> Any:
        try:
            return await proceed(call)
        except MCPError:
            watch = self._conn.context.watch if self._conn.context else None
            if call.method == "tools/call" and watch is not None and watch.expired:  # a read fails as it is: not retried
                raise Expired() from None
            raise

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        conn = self._conn
        generation = conn.generation
        try:
            return await proceed()
        except Expired:
            pass
        watch = conn.context.watch if conn.context else None
        status = watch.status if watch is not None else 404
        session = watch.session_id if watch is not None and watch.session_id else "?"
        conn.say("warning", f"{conn.name}: HTTP {status} for session {session}: the server forgot it; re-initializing, then retrying '{tool}' once")
        if not await conn.renew(generation):
            raise ToolError(f"server '{conn.name}': tool '{tool}': session expired and re-initializing failed: {conn.reason}")
        try:
            return await proceed()
        except Expired:
            raise ToolError(f"server '{conn.name}': tool '{tool}': the new session expired too; not retrying again") from None

