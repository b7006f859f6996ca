"""``needs-auth`` as a state (s26): a server that wants a sign-in joins the hub with one tool, ``authenticate``.

The hub connector from ``connector`` connects with stored tokens if they work; otherwise
the hub lists the server as ``needs-auth`` with one tool, ``authenticate``
(``mcp__{server}__authenticate`` to the model). Calling it runs the browser flow,
connects, and asks the hub to promote the real connection under the same name, so the
next pool has the server's real tools instead (everything under the ``mcp__{server}__``
prefix changes).

The only module of ``harness.auth`` that knows the hub.

Introduced by s26. Not handled here: signing out (the store's file is deleted by hand), a
sign-in started by anything but a call of the ``authenticate`` tool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from harness.auth.clock import handshake
from harness.auth.provider import Authorizer
from harness.errors import AuthRequired, ServerError, ToolError
from harness.hub import Connector, Hub
from harness.jsonvalue import JSONObject
from harness.mcp_client import Client
from harness.results import ToolResult
from harness.spec import State

# Connect the server; called with the keywords ``auth`` (an httpx2.Auth) and ``handshake``
# (``auth.handshake``), both meant for ``Connections.open``.
Opener = Callable[..., Awaitable[Client]]
AUTHENTICATE = "authenticate"


class NeedsAuth:
    """A server that wants authorization, as a client with one tool: ``authenticate``."""

    def __init__(self, authorizer: Authorizer, opener: Opener, hub: Hub) -> None:
        self.name = authorizer.name
        self.authorizer, self.opener, self.hub = authorizer, opener, hub
        self.tools = [{
            "name": AUTHENTICATE,
            "description": f"The MCP server '{self.name}' needs authorization. Call this to sign in; its real tools replace this one.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        }]

    async def call_tool(self, tool: str, arguments: JSONObject) -> ToolResult:
        if tool != AUTHENTICATE:
            raise ToolError(f"server '{self.name}' needs authorization; call its authenticate tool first")
        self.authorizer.interactive, self.authorizer.failure = True, None
        try:
            client = await self.opener(auth=self.authorizer.auth, handshake=handshake)
        except ServerError as exc:
            raise ToolError(f"server '{self.name}': authorization failed: {self.authorizer.failure or exc}") from None
        entry = await self.hub.promote(self.name, client)  # the swap: every mcp__{name}__ tool is replaced next turn
        if entry.state is not State.CONNECTED:
            raise ToolError(f"server '{self.name}': authorized, but not connected: {entry.error}")
        names = [t["name"] for t in client.tools]
        return ToolResult.of(f"Authorized '{self.name}'. Its {len(names)} tools replace the authenticate tool: {', '.join(names)}")


def connector(authorizer: Authorizer, opener: Opener, hub: Hub) -> Connector:
    """A hub connector that uses what the store holds; a server answering 401 joins as ``needs-auth``."""

    async def connect() -> Client:
        try:
            client = await opener(auth=authorizer.auth, handshake=handshake)
        except ServerError as exc:
            if not authorizer.needs_authorization:
                raise
            raise AuthRequired(f"server '{authorizer.name}': needs authorization", NeedsAuth(authorizer, opener, hub)) from exc
        authorizer.interactive = True  # authorized before: a later step-up may use the browser
        return client

    return connect
