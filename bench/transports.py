"""Spawn-to-listed time and call round trip per transport: the plain SDK vs harness.connection.

    .venv/bin/python bench/transports.py [--calls 200] [--rounds 1]

For stdio, sse and http it starts the ``docs`` mock server, measures the time from spawn
to ``tools/list`` answered, then makes N sequential ``search`` calls and reports the median
and 90th percentile round trip, once through a plain SDK ``ClientSession`` and once
through ``harness.connection.connect``, side by side in one run (the machine is shared
and noisy, so only ratios within a run mean much). Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.connection import connect  # noqa: E402
from harness.spec import ServerSpec  # noqa: E402
from mock_servers.launch import serve_http  # noqa: E402

ARGS = {"query": "mcp"}
STDIO_ARGS = ("-m", "mock_servers.docs", "--transport", "stdio")


async def _timed_calls(call: Callable[[], Awaitable[object]], n: int) -> list[float]:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return times


async def sdk(transport: str, n: int) -> tuple[float, list[float]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async def session_run(streams_cm, start: float) -> tuple[float, list[float]]:
        async with streams_cm as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            listed = time.perf_counter() - start
            return listed, await _timed_calls(lambda: session.call_tool("search", ARGS), n)

    start = time.perf_counter()
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=list(STDIO_ARGS), cwd=str(ROOT))
        with open("/dev/null", "w") as errlog:
            return await session_run(stdio_client(params, errlog=errlog), start)
    async with serve_http("docs", transport) as url:
        return await session_run(sse_client(url) if transport == "sse" else streamable_http_client(url), start)


async def harness(transport: str, n: int) -> tuple[float, list[float]]:
    async def conn_run(spec: ServerSpec, start: float) -> tuple[float, list[float]]:
        conn = await connect(spec)  # initialize + tools/list done
        try:
            listed = time.perf_counter() - start
            return listed, await _timed_calls(lambda: conn.call_tool("search", ARGS), n)
        finally:
            await conn.aclose()

    start = time.perf_counter()
    if transport == "stdio":
        return await conn_run(ServerSpec("docs", "stdio", command=sys.executable, args=STDIO_ARGS, cwd=str(ROOT)), start)
    async with serve_http("docs", transport) as url:
        return await conn_run(ServerSpec("docs", transport, url=url), start)


async def main(calls: int, rounds: int) -> None:
    rows = []
    for transport in ("stdio", "sse", "http"):
        for label, client in (("sdk", sdk), ("harness", harness)):
            for _ in range(rounds):
                listed, times = await client(transport, calls)
                ms = sorted(t * 1000 for t in times)
                rows.append((transport, label, listed * 1000, statistics.median(ms), ms[int(len(ms) * 0.9)], len(ms) / sum(ms) * 1000))
    print(f"{'transport':<10}{'client':<9}{'spawn->listed':>15}{'call median':>13}{'call p90':>10}{'calls/s':>9}")
    for transport, label, listed, median, p90, rate in rows:
        print(f"{transport:<10}{label:<9}{listed:>12.0f} ms{median:>10.2f} ms{p90:>7.2f} ms{rate:>9.0f}")
    print(f"({calls} sequential docs.search calls per row; spawn->listed includes the server's start and, for sse/http, READY)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1)
    ns = parser.parse_args()
    anyio.run(main, ns.calls, ns.rounds)
