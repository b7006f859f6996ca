"""The redirect (s26): a loopback listener for the authorization answer, and a browser for offline runs.

- ``Callback``: an HTTP listener on 127.0.0.1 for the redirect (code, state, iss). It
  reuses the port of the stored registration when it can: the authorization server
  compares redirect URIs exactly, so a new port means a new registration.
- ``auto_browser``: for offline runs and tests, "the user" GETs the authorization URL
  without following redirects, reads the Location and ``deliver`` s it to the callback.

Introduced by s26. Not handled here: opening a desktop browser for an authorization server
off this machine (``auto_browser`` visits 127.0.0.1 only; the user CLI injects its own
``Browser`` for ``--sign-in browser``), HTTPS on the loopback, checking the answer's state
and issuer (``harness.auth.provider`` and the SDK do).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl, urlsplit

import anyio
import anyio.abc

from harness.errors import ToolError

Browser = Callable[[str], Awaitable[None]]  # "open this authorization URL"

BROWSER_FETCH_TIMEOUT = 30.0  # seconds auto_browser waits for the authorization server's redirect
CALLBACK_PATH = "/callback"


class Callback:
    """An HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self) -> None:
        self.redirect_uri = ""
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, str]](4)

    async def serve(self, preferred_port: int, task_group: anyio.abc.TaskGroup) -> None:
        try:
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=preferred_port)
        except OSError:  # taken: any free port, and the caller re-registers
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"

        async def run() -> None:
            async with listener:  # closed when cancelled, so the next run can bind the same port
                await listener.serve(self._handle)

        task_group.start_soon(run)

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(10):
                try:
                    while b"\r\n\r\n" not in data and len(data) < 65536:
                        data += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return  # the browser went away before asking anything
            method, _, rest = data.decode("latin-1").partition(" ")
            target = urlsplit(rest.partition(" ")[0])
            if method != "GET" or target.path != CALLBACK_PATH:
                await stream.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            await self._send.send(dict(parse_qsl(target.query)))
            body = b"Authorization received. You can close this window."
            await stream.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))

    async def wait(self) -> dict[str, str]:
        """The query parameters of the next redirect (code, state, iss, or error); unbounded: the caller bounds it."""
        return await self._receive.receive()

    def forget_pending(self) -> None:
        """Drop redirects that arrived late for an earlier sign-in, so they cannot answer this one."""
        while True:
            try:
                self._receive.receive_nowait()
            except anyio.WouldBlock:
                return


async def auto_browser(url: str) -> None:
    """A user who consents at once: GET the URL, do not follow the redirect, deliver it to the callback."""
    status, headers = await _get(url)
    location = headers.get("location")
    if status not in (302, 303, 307) or not location:
        raise ToolError(f"authorization server answered {status} instead of a redirect")
    await deliver(location)


async def deliver(location: str) -> None:
    """The browser's last step: request the redirect URI on the loopback listener."""
    target = urlsplit(location)
    if target.hostname not in ("127.0.0.1", "localhost"):
        raise ToolError("redirect does not point at the loopback callback")
    await _get(location)


async def _get(url: str) -> tuple[int, dict[str, str]]:
    """A bare HTTP/1.1 GET on loopback: the status and headers, redirects not followed.

    Not httpx2 on purpose: an HTTP client logs the URLs and headers it handles, and these
    carry the authorization code. A browser keeps them to itself; so does this.
    """
    target = urlsplit(url)
    if target.scheme != "http" or target.hostname not in ("127.0.0.1", "localhost"):
        raise ToolError("the automatic browser only visits http://127.0.0.1")
    path = (target.path or "/") + (f"?{target.query}" if target.query else "")
    head = b""
    with anyio.move_on_after(BROWSER_FETCH_TIMEOUT) as waited:
        try:
            stream = await anyio.connect_tcp("127.0.0.1", target.port or 80)
        except OSError as exc:
            raise ToolError(f"cannot reach {target.hostname}:{target.port}: {exc.strerror or type(exc).__name__}") from None
        async with stream:
            await stream.send(f"GET {path} HTTP/1.1\r\nHost: {target.netloc}\r\nConnection: close\r\n\r\n".encode())
            try:
                while b"\r\n\r\n" not in head:
                    head += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                pass
    if waited.cancelled_caught:  # not a TimeoutError: that would read as the connect timeout
        raise ToolError(f"{target.hostname}:{target.port} did not answer within {BROWSER_FETCH_TIMEOUT:g} s")
    status_line, *lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    parts = status_line.split(" ")
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers
