"""http: Streamable HTTP (protocol 2025-03-26 on), through the SDK's ``streamable_http_client``.

Every frame is a POST to one URL; answers come back in the POST's response (JSON or an
SSE stream), and a GET stream carries what the server sends on its own. The answer to
``initialize`` carries an ``Mcp-Session-Id`` header that every later request sends back.

Sessions can end on the server's side. A 404 on a request that carried *our* session id
means the server forgot it: ``SessionWatch`` sees that at the HTTP layer (an httpx2
response hook), whatever JSON-RPC error the body holds, and the connection re-initializes
and retries the call once. A 404 to a request without our id (a wrong URL, another
session) is just a 404. On close the session is ended with DELETE, unless the server
already forgot it (that DELETE could only 404).

Introduced by s25. Not handled here: resuming a broken GET stream with Last-Event-ID.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from harness.spec import ServerSpec
from harness.transports import Context, Streams, register

STREAM_READ_TIMEOUT = 300.0  # reads wait on event streams; each call has its own timeout


class SessionWatch:
    """Which Mcp-Session-Id we hold, and whether the server answered 404 to it."""

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.expired = False

    async def on_response(self, response: httpx2.Response) -> None:
        sent = response.request.headers.get("mcp-session-id")
        if response.status_code == 404 and sent is not None and sent == self.session_id:
            self.expired = True  # any request, any body: the spec's rule, not a JSON-RPC code
        elif self.session_id is None and (given := response.headers.get("mcp-session-id")):
            self.session_id = given

    async def terminate(self, http: httpx2.AsyncClient, url: str, within: float) -> None:
        """DELETE the session, unless the server already forgot it."""
        if self.session_id is None or self.expired:
            return
        with anyio.move_on_after(within), suppress(httpx2.HTTPError):
            await http.delete(url, headers={"mcp-session-id": self.session_id})


@asynccontextmanager
async def open_http(spec: ServerSpec, context: Context) -> AsyncIterator[Streams]:
    watch = context.watch = SessionWatch()
    timeout = httpx2.Timeout(context.timeouts.connect, read=STREAM_READ_TIMEOUT)
    async with httpx2.AsyncClient(headers=dict(spec.headers), auth=context.auth, timeout=timeout,
                                  event_hooks={"response": [watch.on_response]}) as http:
        # terminate_on_close=False: we DELETE ourselves, and skip it for a forgotten session.
        async with streamable_http_client(spec.url or "", http_client=http, terminate_on_close=False) as streams:
            yield streams
        await watch.terminate(http, spec.url or "", context.timeouts.connect)


register("http", open_http)
