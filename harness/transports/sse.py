"""sse: the legacy HTTP+SSE transport (protocol 2024-11-05), through the SDK's ``sse_client``.

The client opens one long ``GET /sse`` event stream; the server's first event names a
POST endpoint (``/messages/?session_id=...``); every frame the client sends is a POST
there, and every answer comes back on the event stream. The session id in that endpoint
lets anyone who holds it post into the session, so it is named as a secret at once.

Introduced by s24. Not handled here: a server that accepts the GET but never sends its
endpoint event is bounded only by the SDK's 300 s stream read timeout, not by
``Timeouts.connect``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.client.sse import sse_client

from harness.spec import ServerSpec
from harness.transports import Context, Streams, register


@asynccontextmanager
async def open_sse(spec: ServerSpec, context: Context) -> AsyncIterator[Streams]:
    def session_created(session_id: str) -> None:
        context.label(session_id, "sse-session")

    async with sse_client(spec.url or "", headers=dict(spec.headers), timeout=context.timeouts.connect, auth=context.auth,
                          on_session_created=session_created) as streams:
        yield streams


register("sse", open_sse)
