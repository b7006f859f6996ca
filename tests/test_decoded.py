"""Limits count decoded bytes: a compressed answer is inflated a piece at a time (issue 18, item 5).

``mock_servers.hostile --gzip-bomb BYTES`` answers a call with one JSON frame of BYTES
bytes, gzip-compressed (about a thousandth of that on the wire). The call fails at the
frame limit with its own error, the session goes on, and the client never holds the
inflated body: its peak memory grows by far less than the body's size.
"""

from __future__ import annotations

import resource
import zlib

import anyio
import httpx2
import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS as LIMITS

from harness.connection import Connections
from harness.errors import ToolError
from harness.spec import MIB, Limits, ServerSpec, State
from harness.transports.web import PIECE, _Decoded
from mock_servers.launch import serve_http

pytestmark = pytest.mark.usefixtures("no_process_left")
TIMEOUTS = LIMITS
BOMB = 300_000_000  # decoded bytes; about 300 KB on the wire


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def test_a_gzip_bomb_fails_that_call_at_the_frame_limit_and_is_never_inflated_whole(capfd):
    async def main():
        async with serve_http("hostile", "http", "--transport", "http", f"--gzip-bomb={BOMB}", module="mock_servers.hostile") as url, \
                Connections(timeouts=TIMEOUTS, limits=Limits(frame=16 * MIB)) as conns:
            server = await conns.open(ServerSpec("hostile", "http", url=url))
            before = peak_mib()
            with pytest.raises(ToolError) as caught:
                await server.call_tool("echo", {"text": "hi"})
            assert "a frame over 16 MiB (frame limit; change it with the environment variable MCP_COURSE_MAX_FRAME_BYTES)" in str(caught.value), caught.value
            grew = peak_mib() - before
            assert grew < 100, f"expected the client to hold at most the frame limit and a piece, its peak grew by {grew:.0f} MiB"
            assert server.state is State.CONNECTED, "one answer over the limit costs that call, not the session"

    anyio.run(main)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("wbits,coding", [(16 + zlib.MAX_WBITS, "gzip"), (zlib.MAX_WBITS, "deflate"), (-zlib.MAX_WBITS, "deflate")])
def test_gzip_and_both_kinds_of_deflate_are_decoded_in_pieces(wbits, coding):
    data = b'{"text": "' + b"abc" * 1_000_000 + b'"}'
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    packed = packer.compress(data) + packer.flush()

    async def main():
        pieces = [piece async for piece in _Decoded(httpx2.ByteStream(packed), [coding], "too large")]
        assert b"".join(pieces) == data
        assert max(map(len, pieces)) <= PIECE

    anyio.run(main)


def test_an_encoding_we_did_not_ask_for_fails_the_body():
    async def main():
        with pytest.raises(httpx2.DecodingError, match="Content-Encoding 'br', which was not asked for"):
            [piece async for piece in _Decoded(httpx2.ByteStream(b"\x00"), ["br"], "too large")]

    anyio.run(main)
