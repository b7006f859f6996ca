"""http: Streamable HTTP (protocol 2025-03-26 on), through the SDK's ``streamable_http_client``.

Every frame is a POST to one URL; answers come back in the POST's response (JSON or an
SSE stream), and a GET stream carries what the server sends on its own. The answer to
``initialize`` carries an ``Mcp-Session-Id`` header that every later request sends back.

Sessions can end on the server's side. A 404 on a request that carried *our* session id
means the server forgot it: ``SessionWatch`` sees that at the HTTP layer (``web.Bounded``
tells it of each response), whatever JSON-RPC error the body holds, and the connection
re-initializes and retries the call once. Real servers also say it with a 400 whose body names the
session (the reference server-everything: ``-32000 Bad Request: No valid session ID
provided``, with no id): a 400 to our id whose body names an invalid, unknown, expired or
missing session counts too. A 404 to a request without our id (a wrong URL, another
session) is just a 404, and so is any other 400. On close the session is ended with
DELETE, unless the server already forgot it (that DELETE could only fail).

Bodies are bounded by ``harness.transports.web``: a JSON answer at ``Limits.frame`` bytes
(past it, that call fails and the session goes on), each event of an event stream too,
and an error's body is kept (64 KiB at most) so the call's error can show it.

Introduced by s25. Not handled here: resuming a broken GET stream with Last-Event-ID.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from harness.spec import ServerSpec
from harness.transports import web
from harness.transports.context import Context, Streams

STREAM_READ_TIMEOUT = 300.0  # reads wait on event streams; each call has its own timeout
# What a 400's body says when the server forgot the session: "No valid session ID provided"
# (server-everything), "Invalid session", "Unknown session id", "Session not found"...
_LOST_SESSION = re.compile(r"\b(no valid|invalid|unknown|expired|missing)\b.{0,30}\bsession|\bsession\b.{0,30}\b(not found|invalid|unknown|expired)\b",
                           re.IGNORECASE | re.DOTALL)


class SessionWatch:
    """Which Mcp-Session-Id we hold, and whether the server said it forgot it (``status``: how)."""

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.expired = False
        self.status = 0  # the HTTP status that said so: 404, or a 400 naming the session

    async def on_response(self, response: httpx2.Response) -> None:
        """Told of every response (by ``web.Bounded``). Only a 400 or 404 has its request looked at."""
        if (response.status_code in (400, 404) and self.session_id is not None
                and response.request.headers.get("mcp-session-id") == self.session_id and await self._forgot(response)):
            self.expired, self.status = True, response.status_code
        elif self.session_id is None and (given := response.headers.get("mcp-session-id")):
            self.session_id = given

    @staticmethod
    async def _forgot(response: httpx2.Response) -> bool:
        if response.status_code == 404:
            return True  # any request, any body: the spec's rule, not a JSON-RPC code
        if response.status_code != 400:
            return False
        body = await response.aread()  # already in memory, and short: web.Bounded read it
        return bool(_LOST_SESSION.search(body[:web.ERROR_BODY].decode("utf-8", errors="replace")))

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
    web.quiet_sdk("mcp.client.streamable_http")
    async with web.client(spec.headers, context, timeout, watch.on_response) as http:
        # terminate_on_close=False: we DELETE ourselves, and skip it for a forgotten session.
        async with streamable_http_client(spec.url or "", http_client=http, terminate_on_close=False,
                                          max_sse_event_size=context.limits.frame) as streams:
            yield streams
        await watch.terminate(http, spec.url or "", context.timeouts.connect)

