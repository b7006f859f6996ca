"""web: what the two HTTP transports (sse, http) share: bounded bodies, and HTTP errors shown.

``Bounded`` is the httpx2 transport under both of them, around the real one. For each
response it:

- reads the body of an error (status 400 and up) at once, at most ``ERROR_BODY`` bytes and
  within the connect timeout, and hands the rest of httpx2 a copy in memory: the SDK, the
  session watch and a message can each read it, and a slow or endless error body holds
  nothing up;
- notes ``HTTP 500: <excerpt of the body>`` in ``Context.errors`` under the JSON-RPC id
  the POST carried, so the error of that one call says what the server said (the SDK
  alone says "Server returned an error response");
- caps every other body that is not an event stream at ``Limits.frame`` bytes: past it,
  reading raises ``BodyTooLarge`` at once. An event stream is capped per event instead,
  by httpx2's ``EventSource(max_event_size=...)``, which both transports set.
- decodes a compressed body itself, before any of that: each request asks for
  ``gzip, deflate`` only (``client`` makes it the client's default), and a body in
  either is inflated a piece at a time (at most ``PIECE`` bytes from one step), so every
  limit counts decoded bytes. A body of 200 KB that inflates to 200 MB fails at the frame
  limit with a few megabytes in memory, never after it was inflated. A body in an
  encoding we did not ask for fails that request.

``shown`` is how a message shows an HTTP error: status, then the first ``EXCERPT``
characters of the body, escaped by ``harness.echo``, so a server's text cannot move the
cursor of a terminal or pose as another line.

Not handled here: retries; encodings besides gzip and deflate (never asked for).
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

import anyio
import httpx2

from harness import echo
from harness.spec import size
from harness.transports.context import Context

ERROR_BODY = 64 * 1024  # bytes of an error body kept; a JSON-RPC error or an error page fits
EXCERPT = 200  # characters of it that a message shows
NOTED = 64  # errors kept per session for calls to pick up; a call picks its own up at once
PIECE = 256 * 1024  # decoded bytes one inflate step may produce: the memory a compressed body costs at once
ENCODINGS = "gzip, deflate"  # what each request accepts; we decode these ourselves


class BodyTooLarge(httpx2.StreamError):
    """A response body passed the frame limit. An httpx2 ``StreamError``: the SDK answers
    the one request that was waiting for it with an error, and the session goes on."""


def shown(status: int, body: bytes) -> str:
    """``HTTP 404: Session not found``: the status and the start of the body, printable."""
    text = " ".join(body.decode("utf-8", errors="replace").split())
    if not text:
        return f"HTTP {status} with an empty body"
    return f"HTTP {status}: {echo.line(text, EXCERPT)}"


def request_id(request: httpx2.Request) -> Any:
    """The JSON-RPC id of the request a POST carried; None for a notification, an answer, or no JSON."""
    try:
        message = json.loads(request.content)
    except (httpx2.RequestNotRead, ValueError):
        return None
    return message.get("id") if isinstance(message, dict) and "method" in message else None


OnResponse = Callable[[httpx2.Response], Awaitable[None]]  # told of each response, an error's body in memory


def client(headers: Mapping[str, str], context: Context, timeout: httpx2.Timeout, on_response: OnResponse | None = None) -> httpx2.AsyncClient:
    """The httpx2 client of one session (sse or http): over ``Bounded``, asking for ``ENCODINGS`` only.

    Accept-Encoding is a default of the client, so every request it builds (the SDK's, the
    auth flow's) carries it, and a server's own ``headers`` cannot ask for more.
    """
    asked = httpx2.Headers(headers)
    asked["accept-encoding"] = ENCODINGS
    return httpx2.AsyncClient(headers=asked, auth=context.auth, timeout=timeout, transport=Bounded(context, on_response))


class Bounded(httpx2.AsyncBaseTransport):
    """An httpx2 transport that bounds bodies and notes HTTP errors (see the module docstring)."""

    def __init__(self, context: Context, on_response: OnResponse | None = None, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._frame, self._within, self._errors = context.limits.frame, context.timeouts.connect, context.errors
        self._too_large = f"a frame over {size(self._frame)} ({context.limits.explain('frame')})"
        self._on_response = on_response  # http's session watch
        self._inner = inner or httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        headers = response.headers
        if headers.get("content-encoding") is not None:
            # Decoded here, so the caps below count what the body inflates to; httpx2 sees plain bytes.
            codings = [c.strip().lower() for c in headers.get_list("content-encoding", split_commas=True)]
            del headers["content-encoding"]
            response.stream = _Decoded(response.stream, [c for c in codings if c != "identity"], self._too_large)
        if response.status_code >= 400:
            body = await self._error_body(response)
            response.stream = httpx2.ByteStream(body)
            if (key := request_id(request)) is not None:
                self._note(key, shown(response.status_code, body))
        elif not headers.get("content-type", "").lower().startswith("text/event-stream"):
            response.stream = _Capped(response.stream, self._frame, self._too_large)
        if self._on_response is not None:
            response.request = request
            await self._on_response(response)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def _error_body(self, response: httpx2.Response) -> bytes:
        body = bytearray()
        stream: Any = response.stream
        try:
            with anyio.move_on_after(self._within):
                async for chunk in stream:
                    body += chunk[:ERROR_BODY - len(body)]
                    if len(body) >= ERROR_BODY:
                        break
        except httpx2.HTTPError:
            pass  # what arrived is what a message shows
        finally:
            await stream.aclose()
        return bytes(body)

    def _note(self, key: Any, text: str) -> None:
        self._errors.pop(key, None)
        self._errors[key] = text
        while len(self._errors) > NOTED:
            del self._errors[next(iter(self._errors))]


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int, text: str) -> None:
        self._inner, self._limit, self._text = inner, limit, text

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise BodyTooLarge(self._text)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Decoded(httpx2.AsyncByteStream):
    """A gzip or deflate body, inflated at most ``PIECE`` bytes a step; the caps downstream count these bytes."""

    def __init__(self, inner: Any, codings: list[str], too_large: str) -> None:
        self._inner, self._codings, self._too_large = inner, codings, too_large

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for coding in self._codings:
            if coding not in ("gzip", "x-gzip", "deflate"):
                raise httpx2.DecodingError(f"the server sent a body in Content-Encoding '{coding[:40]}', which was not asked for")
        layers = [_Inflater(coding) for coding in reversed(self._codings)]  # the last applied comes off first
        async for chunk in self._inner:
            pieces: Iterator[bytes] = iter((chunk,))
            for layer in layers:
                pieces = layer.inflate(pieces)
            for piece in pieces:  # lazily: a cap downstream stops the inflating at the piece that passes it
                yield piece
        rest: Iterator[bytes] = iter(())
        for layer in layers:
            rest = layer.finish(rest)
        for piece in rest:
            yield piece

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Inflater:
    """One layer of gzip or deflate. HTTP's "deflate" is zlib-wrapped, though some servers send it raw."""

    def __init__(self, coding: str) -> None:
        self._may_be_raw = coding == "deflate"
        self._z = zlib.decompressobj(zlib.MAX_WBITS if coding == "deflate" else 16 + zlib.MAX_WBITS)

    def inflate(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for data in chunks:
            while data and not self._z.eof:
                try:
                    piece = self._z.decompress(data, PIECE)
                except zlib.error as exc:
                    if self._may_be_raw:  # raw deflate, with no zlib header: start again as that
                        self._may_be_raw, self._z = False, zlib.decompressobj(-zlib.MAX_WBITS)
                        continue
                    raise httpx2.DecodingError(f"the body is not valid compressed data: {exc}") from None
                self._may_be_raw = False
                data = self._z.unconsumed_tail
                if piece:
                    yield piece

    def finish(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """The last pieces: what ``chunks`` give, then what zlib still holds (less than its window)."""
        yield from self.inflate(chunks)
        if tail := self._z.flush():
            yield tail


class _QuietParseErrors(logging.Filter):
    """Drops the SDK's log record, with a traceback on stderr, of a JSON answer it could not
    read (a body we cut at the frame limit, or one that is not JSON-RPC): the SDK answers
    that call with a parse error that says why, and that is what the user sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        cut = bool(record.exc_info and isinstance(record.exc_info[1], BodyTooLarge))
        return not (cut or record.getMessage() == "Error parsing JSON response")


def quiet_sdk(logger: str) -> None:
    """Install ``_QuietParseErrors`` on one SDK logger, once per process."""
    sdk = logging.getLogger(logger)
    if not any(isinstance(f, _QuietParseErrors) for f in sdk.filters):
        sdk.addFilter(_QuietParseErrors())
