"""http-or-sse: Streamable HTTP, or legacy SSE when the server answers as an SSE-only server does.

A config entry that gives a bare URL without saying which transport (Cursor's ``url``,
VS Code's ``type: http``, Windsurf's ``serverUrl``, Continue's ``url`` with no ``type``)
means "Streamable HTTP, with SSE for an old server". The MCP transports spec says how a
client tells them apart (2025-03-26, "Backwards Compatibility"): POST the ``initialize``
request to the URL; if that fails with an HTTP 4xx status, the server is the old kind,
and a GET to the same URL opens its event stream.

So before the session starts, this transport POSTs one ``initialize`` (with the entry's
headers, without auth) and looks only at the status:

    2xx, 401, 403, no answer   Streamable HTTP (``harness.transports.http``): an auth
                               challenge or an error is that transport's to report
    any other 4xx              SSE (``harness.transports.sse``) on the same URL

A Streamable HTTP server that gave the probe a session id gets a DELETE for it at once;
then the chosen transport opens its own session as usual. With ``Context.trace`` set, the
choice is told.

Not handled here: remembering the choice between runs (each open
probes again, one extra request); a server that never answers costs the connect timeout
twice (the probe's, then the chosen transport's).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
import httpx2

from harness.spec import ServerSpec
from harness.transports.context import Context, Streams
from harness.transports.http import open_http
from harness.transports.sse import open_sse

PROBE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "mcp-course-probe", "version": "0"}}}
NOT_A_FALLBACK = (401, 403)  # an auth challenge is answered by the auth flow, not by another transport


async def choose(spec: ServerSpec, context: Context) -> str:
    """``sse`` if the server refuses a POST of initialize with a 4xx (not an auth one); else ``http``."""
    headers = {**dict(spec.headers), "accept": "application/json, text/event-stream", "content-type": "application/json"}
    status, session = 0, None
    with anyio.move_on_after(context.timeouts.connect):
        try:
            async with httpx2.AsyncClient(timeout=context.timeouts.connect) as http:
                async with http.stream("POST", spec.url or "", json=PROBE, headers=headers) as response:
                    status, session = response.status_code, response.headers.get("mcp-session-id")
                if session:
                    context.label(session, "session id")
                    with suppress(httpx2.HTTPError):
                        await http.delete(spec.url or "", headers={**dict(spec.headers), "mcp-session-id": session})
        except httpx2.HTTPError:
            status = 0  # unreachable: Streamable HTTP says so in its own words
    return "sse" if 400 <= status < 500 and status not in NOT_A_FALLBACK else "http"


@asynccontextmanager
async def open_http_or_sse(spec: ServerSpec, context: Context) -> AsyncIterator[Streams]:
    kind = await choose(spec, context)
    if context.trace is not None:
        context.trace(f"POST initialize: {'a 4xx: the server speaks SSE' if kind == 'sse' else 'Streamable HTTP'}")
    opener = open_sse if kind == "sse" else open_http
    async with opener(spec, context) as streams:
        yield streams
