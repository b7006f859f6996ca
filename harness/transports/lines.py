"""lines: a byte stream cut into lines in linear time, each line at most a named size.

The stdio transport reads a server's stdout through ``lines``: one JSON-RPC message per
line, each at most ``Limits.frame`` bytes. A longer line raises ``FrameTooLarge`` as soon
as it passes the limit, without waiting for its end, so memory stays bounded even for a
line that never ends.

Why not ``buffer + chunk`` and ``split``: each chunk then copies the whole buffer and
splits it again, so a 40 MB line arriving in 64 KB chunks costs about 600 copies of up to
40 MB (quadratic: 11 s here, with the event loop, and every other server, stalled). Here
each byte is searched once, in its own chunk, and joined once, when its line ends.

Introduced by the hardening of s23's transport (issue 8). Not handled here: decoding (a
line is bytes; UTF-8 is the caller's business), a last line with no newline before end of
input (dropped, as a frame cut off by the server's exit).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from harness.spec import size


class FrameTooLarge(Exception):
    """A line grew past the frame limit; the stream cannot be read on from the middle of it."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a frame over {size(limit)}")
        self.limit = limit


class Lines:
    """The cutter itself, fed one chunk at a time: what ``lines`` iterates with, and stdio's reader keeps.

    ``feed(chunk)`` hands it the next chunk; ``next()`` returns the next line that chunk ends
    (without its ``\\n``), or None once the chunk is used up, its tail kept for the next one;
    ``FrameTooLarge`` once a line passes ``limit`` bytes. Nothing here awaits, so a reader
    cancelled while it waits for a chunk loses no byte.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pieces: list[bytes] = []  # the line so far: joined once, when it ends
        self._held = 0  # bytes in _pieces
        self._chunk = b""
        self._start = 0  # where the unread part of _chunk begins

    @property
    def pending(self) -> bool:
        """Whether the last chunk has bytes ``next()`` has not looked at yet (maybe more lines)."""
        return self._start < len(self._chunk)

    def feed(self, chunk: bytes) -> None:
        self._chunk, self._start = chunk, 0

    def next(self) -> bytes | None:
        chunk, start = self._chunk, self._start
        if (end := chunk.find(b"\n", start)) != -1:
            if self._held + end - start > self.limit:
                raise FrameTooLarge(self.limit)
            self._start = end + 1
            if not self._pieces:
                return chunk[start:end]
            self._pieces.append(chunk[start:end])
            line = b"".join(self._pieces)
            self._pieces, self._held = [], 0
            return line
        if start < len(chunk):
            self._held += len(chunk) - start
            if self._held > self.limit:
                raise FrameTooLarge(self.limit)
            self._pieces.append(chunk[start:] if start else chunk)
        self._chunk, self._start = b"", 0
        return None


async def lines(chunks: AsyncIterable[bytes], limit: int) -> AsyncIterator[bytes]:
    """Each line of ``chunks`` without its ``\\n``; ``FrameTooLarge`` once one passes ``limit`` bytes."""
    cutter = Lines(limit)
    async for chunk in chunks:
        cutter.feed(chunk)
        while (line := cutter.next()) is not None:
            yield line
