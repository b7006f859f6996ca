"""The benchmark: the harness beside the plain SDK (and peers, when installed), in one run.

    .venv/bin/python bench/run.py [--rounds 3] [--calls 500] [--json bench/results.json] [--only call,connect,...]
    .venv/bin/python bench/run.py --quick        (every goal's figure, one round: under 2 minutes idle;
                                                  connect without the two one-at-a-time contenders)

What it measures, each section side by side in the same run:

    call      sequential tools/call round trips over stdio and Streamable HTTP: the SDK's
              ClientSession (the baseline) and Client, the harness with the wire tap off and on,
              the harness with s34's era negotiation (2026-07-28 here; its ratio is to the SDK's
              Client, the same era), and the peers when installed; latency, and the client's CPU per call (the
              benchmark process's CPU time over each slice of calls: servers run elsewhere)
    memory    the harness process's RSS after 1,000 and after 10,000 calls with the tap on
    connect   N = 1, 5, 20 stdio servers until every one has listed its tools: one after
              another, all at once, an SDK gather (bench/gather_sdk.py's way, in process),
              the SDK's ClientSessionGroup, and Hub.connect_all; the floor is the servers'
              own start-up CPU (from /proc) spread over the cores
    close     20 connected stdio servers stopped, and how many processes are left 1 s later
    cli       the user CLI's `servers` on a config of 20 stdio servers, from a cold
              interpreter, beside a plain asyncio.gather of SDK sessions on the same file
              (bench/gather_sdk.py); and the servers left running after each exits
    pool      one turn's pool for 50 servers x 40 tools (2,000 tools)
    turn      a turn of the whole stack with tool search (screen, pool, permissions, search index;
              bench/toolsearch_turns.py) at 2,000 and 10,000 tools: nothing changed, and one
              server listed anew with one tool changed (list_changed) or reconnected; goals 0.1 ms,
              1 ms and 2 ms (2,000, one listed anew)
    lessons   each lesson's wall time from a cold interpreter beside its own floor: the
              harness's import (a cold `python -c "import ..."` of what such a lesson loads)
              plus the CPU of the servers it started (bench/lesson_cpu.py) over the cores;
              the ratio is to that floor. Also a usage error's start-up (s26
              --token-lifetime 0) and `python -c "import mcp"` for reference

Method: contenders take turns, in an order that rotates from round to round (calls: all
connected at once, taking turns every 50 calls); each is warmed up first (calls: 50
untimed calls on the same connection; connect: one untimed server; lessons: one untimed
run); a
figure is the median of the rounds' medians, with its ratio to the section's baseline.
The load average is recorded. Absolute figures vary by machine: the ratios are the claim.

Peers (fastmcp, openai-agents) are measured when installed and skipped when not; they are
never a dependency (bench/requirements-peers.txt installs them into a separate venv).
Not a test: nothing is asserted, and the suite never runs this.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.connection import Connections, connect  # noqa: E402
from harness.hub import Hub  # noqa: E402
from harness.spec import ServerSpec, Timeouts  # noqa: E402
from harness.transcript import Transcript  # noqa: E402
from harness.wire import WireTap  # noqa: E402
from mock_servers.launch import serve_http  # noqa: E402

ARGS = {"query": "mcp"}
SERVER_ARGS = ("-m", "mock_servers.docs", "--transport", "stdio")
TICK = os.sysconf("SC_CLK_TCK")
SECTIONS = ("call", "memory", "connect", "close", "cli", "pool", "turn", "lessons")


def stdio_spec(name: str = "docs") -> ServerSpec:
    return ServerSpec(name, "stdio", command=sys.executable, args=SERVER_ARGS, cwd=str(ROOT))


def rotated(items: list[Any], round_: int) -> list[Any]:
    shift = round_ % len(items)
    return items[shift:] + items[:shift]


def median_of_medians(rounds: list[float]) -> float:
    return statistics.median(rounds)


# --- per call -------------------------------------------------------------------------------


Call = Callable[[], Awaitable[object]]
SLICE = 50  # calls a contender makes before the next one takes its turn
NEGOTIATED = "harness, era negotiated: 2026-07-28 (ratio to sdk Client)"
SAME_ERA = {NEGOTIATED: "sdk Client (2026-07-28 era)"}  # set beside the SDK in its own era; the rest beside ClientSession


@asynccontextmanager
async def sdk_session(transport: str, url: str | None) -> AsyncIterator[Call]:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        if transport == "stdio":
            params = StdioServerParameters(command=sys.executable, args=list(SERVER_ARGS), cwd=str(ROOT))
            errlog = stack.enter_context(open(os.devnull, "w"))
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        else:
            read, write, *_ = await stack.enter_async_context(streamable_http_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        yield lambda: session.call_tool("search", ARGS)


@asynccontextmanager
async def sdk_client(transport: str, url: str | None) -> AsyncIterator[Call]:
    from mcp import StdioServerParameters
    from mcp.client import Client

    server = StdioServerParameters(command=sys.executable, args=list(SERVER_ARGS), cwd=str(ROOT)) if transport == "stdio" else url
    async with Client(server) as client:
        yield lambda: client.call_tool("search", ARGS)


@asynccontextmanager
async def fastmcp_client(transport: str, url: str | None) -> AsyncIterator[Call]:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    target = StdioTransport(command=sys.executable, args=list(SERVER_ARGS), cwd=str(ROOT)) if transport == "stdio" else url
    async with Client(target) as client:
        yield lambda: client.call_tool("search", ARGS)


@asynccontextmanager
async def agents_server(transport: str, url: str | None) -> AsyncIterator[Call]:
    from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

    if transport == "stdio":
        server = MCPServerStdio(params={"command": sys.executable, "args": list(SERVER_ARGS), "cwd": str(ROOT)})
    else:
        server = MCPServerStreamableHttp(params={"url": url})
    async with server:
        yield lambda: server.call_tool("search", ARGS)


PEERS = {"fastmcp": ("fastmcp", "fastmcp Client", fastmcp_client), "openai-agents": ("agents", "openai-agents MCPServer", agents_server)}


def installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def harness(tap: bool, negotiated: bool = False) -> Callable[[str, str | None], Any]:
    """``connect()`` as s23 to s33 do (``initialize``: the 2025-11-25 era), or, ``negotiated``, with
    s34's era negotiation (``harness.era``, as the stack's ``eras`` part plugs it): the docs server
    offers 2026-07-28, so that is the era it runs in, to be set beside the SDK's ``Client``."""

    @asynccontextmanager
    async def opened(transport: str, url: str | None) -> AsyncIterator[Call]:
        spec = stdio_spec() if transport == "stdio" else ServerSpec("docs", "http", url=url)
        from harness import stack

        # The mechanisms every connection of the stack has, and s34's for the negotiated era.
        options: dict[str, Any] = {"mechanisms": stack.mechanisms(eras=negotiated)}
        if negotiated:
            from harness import era

            options["handshake"] = era.handshake(era.AUTO)
        with open(os.devnull, "w") as sink:
            conn = await connect(spec, tap=WireTap(Transcript(), show=False, file=sink) if tap else None, **options)
            if negotiated and conn.protocol != "2026-07-28":
                raise SystemExit(f"bench call: the negotiated harness runs in {conn.protocol}, not 2026-07-28")
            try:
                yield lambda: conn.call_tool("search", ARGS)
            finally:
                await conn.aclose()

    return opened


async def bench_calls(rounds: int, calls: int) -> list[dict[str, Any]]:
    """All contenders connected at once; they take turns in slices of SLICE calls, so a machine
    whose speed drifts during the run (a shared host does) slows every contender alike."""
    contenders = {"sdk ClientSession": sdk_session, "sdk Client (2026-07-28 era)": sdk_client,
                  "harness": harness(tap=False), "harness + tap": harness(tap=True),
                  NEGOTIATED: harness(tap=False, negotiated=True)}
    contenders.update({label: opened for module, label, opened in PEERS.values() if installed(module)})
    rows = []
    for transport in ("stdio", "http"):
        async with AsyncExitStack() as stack:
            url = await stack.enter_async_context(serve_http("docs", "http")) if transport == "http" else None
            call = {name: await stack.enter_async_context(open_(transport, url)) for name, open_ in contenders.items()}
            for name in contenders:  # warm-up
                for _ in range(SLICE):
                    await call[name]()
            per_round: dict[str, list[float]] = {name: [] for name in contenders}
            cpu_round: dict[str, list[float]] = {name: [] for name in contenders}
            for r in range(rounds):
                times: dict[str, list[float]] = {name: [] for name in contenders}
                cpu: dict[str, list[float]] = {name: [] for name in contenders}
                for turn in range(max(1, calls // SLICE)):
                    for name in rotated(list(contenders), r + turn):
                        cpu_start = time.process_time()  # this process only: the client's CPU
                        for _ in range(SLICE):
                            start = time.perf_counter()
                            await call[name]()
                            times[name].append(time.perf_counter() - start)
                        cpu[name].append((time.process_time() - cpu_start) / SLICE)
                for name in contenders:
                    per_round[name].append(statistics.median(times[name]) * 1000)
                    cpu_round[name].append(statistics.median(cpu[name]) * 1e6)
        for name, values in per_round.items():
            baseline = SAME_ERA.get(name, "sdk ClientSession")
            base, cpu_base = median_of_medians(per_round[baseline]), median_of_medians(cpu_round[baseline])
            ms, us = median_of_medians(values), median_of_medians(cpu_round[name])
            rows.append({"section": "call", "case": f"{transport}, {calls} calls a round", "contender": name,
                         "value": round(ms, 3), "unit": "ms/call", "ratio": round(ms / base, 2),
                         "cpu": round(us), "cpu unit": "us/call", "cpu ratio": round(us / cpu_base, 2)})
    return rows


async def bench_memory() -> list[dict[str, Any]]:
    def rss_kb() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    with open(os.devnull, "w") as sink:
        conn = await connect(stdio_spec(), tap=WireTap(Transcript(), show=False, file=sink))
        try:
            for _ in range(1000):
                await conn.call_tool("search", ARGS)
            after_1k = rss_kb()
            for _ in range(9000):
                await conn.call_tool("search", ARGS)
            after_10k = rss_kb()
        finally:
            await conn.aclose()
    return [{"section": "memory", "case": "stdio, tap on", "contender": "harness + tap", "value": round((after_10k - after_1k) / 9, 1),
             "unit": "KB per 1,000 calls (RSS, calls 1,000 to 10,000)", "ratio": None}]


# --- connect and close ------------------------------------------------------------------------


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / TICK


def server_pids() -> list[int]:
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmd = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if fields[1] == me and b"mock_servers" in cmd:
            found.append(int(stat.parent.name))
    return found


async def connect_hub(n: int) -> tuple[float, float]:
    start = time.perf_counter()
    async with Connections(timeouts=Timeouts(connect=120)) as conns, Hub() as hub:
        for i in range(n):
            spec = stdio_spec(f"docs{i}")
            hub.add(spec.name, conns.connector(spec), spec)
        await hub.connect_all()
        took = time.perf_counter() - start
        return took, cpu_seconds(server_pids())


async def connect_sequential(n: int) -> tuple[float, float]:
    start = time.perf_counter()
    async with Connections(timeouts=Timeouts(connect=120)) as conns:
        for i in range(n):
            await conns.open(stdio_spec(f"docs{i}"))
        took = time.perf_counter() - start
        return took, cpu_seconds(server_pids())


async def connect_gather(n: int) -> tuple[float, float]:
    start = time.perf_counter()
    async with Connections(timeouts=Timeouts(connect=120)) as conns:
        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(conns.open, stdio_spec(f"docs{i}"))
        took = time.perf_counter() - start
        return took, cpu_seconds(server_pids())


async def connect_sdk_gather(n: int) -> tuple[float, float]:
    """bench/gather_sdk.py in this process: every server's SDK session opened at once, each task closing its own."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=list(SERVER_ARGS), cwd=str(ROOT))
    ready, done, took, cpu = anyio.Event(), anyio.Event(), [0.0], [0.0]
    listed = [0]
    start = time.perf_counter()

    async def one() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                listed[0] += 1
                if listed[0] == n:
                    took[0], cpu[0] = time.perf_counter() - start, cpu_seconds(server_pids())
                    ready.set()
                await done.wait()

    async with anyio.create_task_group() as tg:
        for _ in range(n):
            tg.start_soon(one)
        await ready.wait()
        done.set()
    return took[0], cpu[0]


async def connect_sdk_group(n: int) -> tuple[float, float]:
    from mcp import StdioServerParameters
    from mcp.client.session_group import ClientSessionGroup

    logging.getLogger().setLevel(logging.ERROR)  # the group warns that the mock servers have no prompts or resources
    unique = itertools.count()  # every server here is "docs": tell their tools apart, or the group refuses them
    start = time.perf_counter()
    async with ClientSessionGroup(component_name_hook=lambda name, info: f"{next(unique)}.{name}") as group:
        for _ in range(n):
            await group.connect_to_server(StdioServerParameters(command=sys.executable, args=list(SERVER_ARGS), cwd=str(ROOT)))
        took = time.perf_counter() - start
        return took, cpu_seconds(server_pids())


async def bench_connect(rounds: int, sizes: tuple[int, ...], quick: bool = False) -> list[dict[str, Any]]:
    contenders = {"one after another": connect_sequential, "all at once": connect_gather, "sdk gather (gather_sdk.py in process)": connect_sdk_gather,
                  "sdk ClientSessionGroup": connect_sdk_group, "Hub.connect_all": connect_hub}
    if quick:  # the two that open one server after another take N times a server's start-up
        del contenders["one after another"], contenders["sdk ClientSessionGroup"]
    rows = []
    cores = os.cpu_count() or 1
    for contender in contenders.values():  # warm-up: the page cache, the first spawn's imports
        await contender(1)
    for n in sizes:
        results: dict[str, list[float]] = {name: [] for name in contenders}
        floors: list[float] = []
        for r in range(rounds):
            for name in rotated(list(contenders), r):
                took, cpu = await contenders[name](n)
                results[name].append(took)
                if name == "Hub.connect_all":
                    floors.append(cpu / min(cores, n))
        floor = statistics.median(floors)
        rows.append({"section": "connect", "case": f"{n} stdio servers", "contender": "floor (servers' CPU / cores)",
                     "value": round(floor, 2), "unit": "s", "ratio": 1.0})
        for name, values in results.items():
            s = median_of_medians(values)
            rows.append({"section": "connect", "case": f"{n} stdio servers", "contender": name,
                         "value": round(s, 2), "unit": "s", "ratio": round(s / floor, 2)})
    return rows


async def bench_close(rounds: int, n: int = 20) -> list[dict[str, Any]]:
    rows = []
    for label, grace in (("harness (exit_grace 0.25 s)", Timeouts.exit_grace), ("SDK's 2 s end-of-input grace", 2.0)):
        times, left = [], []
        for _ in range(rounds):
            async with Connections(timeouts=Timeouts(connect=120, exit_grace=grace)) as conns, Hub() as hub:
                for i in range(n):
                    spec = stdio_spec(f"docs{i}")
                    hub.add(spec.name, conns.connector(spec), spec)
                await hub.connect_all()
                start = time.perf_counter()
                await hub.aclose()
            times.append(time.perf_counter() - start)
            await anyio.sleep(1)
            left.append(len(server_pids()))
        rows.append({"section": "close", "case": f"{n} stdio servers", "contender": label,
                     "value": round(statistics.median(times), 2), "unit": f"s (left after 1 s: {max(left)})", "ratio": None})
    return rows


# --- pool and lessons -------------------------------------------------------------------------


def bench_pool(rounds: int) -> list[dict[str, Any]]:
    from harness import pool
    from harness.results import ToolResult
    from harness.tools import Workspace

    class Server:
        def __init__(self, i: int) -> None:
            self.name = f"server.{i}"
            self.tools = [{"name": f"tool {j}", "description": "d" * 80, "inputSchema": {"type": "object"},
                           "annotations": {"readOnlyHint": j % 3 == 0, "destructiveHint": j % 3 == 1}} for j in range(40)]

        async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
            return ToolResult()

    clients = {c.name: c for c in (Server(i) for i in range(50))}
    builtins = Workspace(ROOT).tools()
    medians_warm, medians_cold = [], []
    for _ in range(rounds):
        warm, cold = [], []
        source = pool.rebuilt("base", builtins, clients)
        source()
        for _ in range(200):
            start = time.perf_counter()
            source()
            warm.append(time.perf_counter() - start)
        for k in range(20):  # every tool of every server changed since the last turn (a new description each time)
            for c in clients.values():
                c.tools = [{**t, "description": "d" * 80 + str(k)} for t in c.tools]
            start = time.perf_counter()
            source()
            cold.append(time.perf_counter() - start)
        medians_warm.append(statistics.median(warm) * 1000)
        medians_cold.append(statistics.median(cold) * 1000)
    warm_ms, cold_ms = median_of_medians(medians_warm), median_of_medians(medians_cold)
    return [{"section": "pool", "case": "50 servers x 40 tools", "contender": "every server's tools changed", "value": round(cold_ms, 2), "unit": "ms/turn", "ratio": 1.0},
            {"section": "pool", "case": "50 servers x 40 tools", "contender": "nothing changed", "value": round(warm_ms, 2), "unit": "ms/turn", "ratio": round(warm_ms / cold_ms, 2)}]


def bench_turn(rounds: int) -> list[dict[str, Any]]:
    from bench.toolsearch_turns import measure

    rows = []
    for count, repeat in ((2000, 200), (10000, 50)):
        found = [anyio.run(measure, count, repeat) for _ in range(rounds)]
        unchanged = median_of_medians([f["stack_unchanged_ms"] for f in found])
        changed = median_of_medians([f["one_changed_ms"] for f in found])
        reconnected = median_of_medians([f["one_reconnected_ms"] for f in found])
        case = f"{found[0]['servers']} servers, {found[0]['tools']:,} tools"
        rows += [{"section": "turn", "case": case, "contender": "one server reconnected", "value": round(reconnected, 3), "unit": "ms/turn", "ratio": 1.0},
                 {"section": "turn", "case": case, "contender": "one server listed anew (list_changed)", "value": round(changed, 3), "unit": "ms/turn",
                  "ratio": round(changed / reconnected, 3)},
                 {"section": "turn", "case": case, "contender": "nothing changed", "value": round(unchanged, 4), "unit": "ms/turn",
                  "ratio": round(unchanged / reconnected, 4)}]
    return rows


def bench_cli(rounds: int, n: int = 20) -> list[dict[str, Any]]:
    import tempfile
    import uuid

    mark = uuid.uuid4().hex  # in every server's environment, to find any left behind
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    entry = {"command": sys.executable, "args": list(SERVER_ARGS), "cwd": str(ROOT), "env": {"BENCH_MARK": mark}}
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "claude_desktop_config.json"
        config.write_text(json.dumps({"mcpServers": {f"docs{i}": entry for i in range(n)}}), encoding="utf-8")
        commands = {
            "asyncio.gather of SDK sessions (baseline)": [sys.executable, "bench/gather_sdk.py", str(config)],
            "CLI `servers` (Hub.connect_all)": [sys.executable, "-m", "harness", "--config", str(config), "servers"],
        }

        def wall(argv: list[str]) -> float:
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
            took = time.perf_counter() - start
            if done.returncode != 0 or done.stdout.count("connected") != n:
                raise SystemExit(f"bench cli: {argv[1]} failed: {done.stderr[-500:]}")
            return took

        results: dict[str, list[float]] = {name: [] for name in commands}
        for r in range(rounds):
            for name in rotated(list(commands), r):
                results[name].append(wall(commands[name]))
        time.sleep(1)
        left = 0
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                left += mark.encode() in environ.read_bytes()
            except OSError:
                continue
    base = median_of_medians(next(iter(results.values())))
    rows = [{"section": "cli", "case": f"{n} stdio servers, cold interpreter", "contender": name,
             "value": round(median_of_medians(v), 2), "unit": "s", "ratio": round(median_of_medians(v) / base, 2)}
            for name, v in results.items()]
    rows.append({"section": "cli", "case": "servers left 1 s after every run", "contender": "both",
                 "value": left, "unit": "processes", "ratio": None})
    return rows


HARNESS_IMPORT = {  # what a lesson loads before its session does anything: the floor's import part
    "in process": "import harness.lesson, harness.hub, harness.mcp_client, harness.pool, mock_servers.catalog",
    "with servers": "from harness import sdk_half; sdk_half.load_only('client'); "  # as a lesson run as the program loads it
                    "import harness.lesson, harness.stack, harness.connection, harness.wire, mock_servers.launch",
}


# Lessons whose story makes them wait, or start their servers one after another, on purpose: the
# floor above assumes every server's start-up overlaps and nothing waits. For these the row also
# gives a floor by design: "serial" (the harness import plus every server's CPU in turn), or a
# number of seconds of designed wait added to the floor. The ratio to the plain floor stays beside it.
BY_DESIGN: dict[str, tuple[str | float, str]] = {
    "s26": ("serial", "its servers start one after another: the protected server, then deploy at the model's connect_mcp"),
    "s28": (1.0, "the search server's 1 s connect timeout runs out on purpose"),
}


def bench_lessons(rounds: int, warm: bool = True) -> list[dict[str, Any]]:
    import tempfile

    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    # The warm-up writes the bytecode caches, as a user's first run does: with PYTHONDONTWRITEBYTECODE
    # inherited (some shells and containers set it), every round compiled the harness from source,
    # and s19 to s22 counted 709M to 743M instructions instead of 569M to 584M (callgrind).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cores = os.cpu_count() or 1

    def wall(argv: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=300)
        return time.perf_counter() - start

    lessons = sorted(p.name for p in (ROOT / "lessons").iterdir() if (p / "code.py").is_file())
    commands = {"python -c 'import mcp' (reference)": [sys.executable, "-c", "import mcp"],
                "s26 usage error (--token-lifetime 0)": [sys.executable, "lessons/s26/code.py", "--token-lifetime", "0"]}
    commands.update({f"import: {kind}": [sys.executable, "-c", modules] for kind, modules in HARNESS_IMPORT.items()})
    with tempfile.TemporaryDirectory() as folder:
        cpu_file = Path(folder) / "cpu.json"
        for lesson in lessons:
            commands[lesson] = [sys.executable, "bench/lesson_cpu.py", str(cpu_file) + "." + lesson, f"lessons/{lesson}/code.py", "--deterministic"]
        if warm:
            for argv in commands.values():
                wall(argv)  # warm the page cache
        results: dict[str, list[float]] = {name: [] for name in commands}
        servers: dict[str, list[float]] = {name: [] for name in lessons}
        for r in range(rounds):
            for name in rotated(list(commands), r):
                results[name].append(wall(commands[name]))
                if name in servers:
                    servers[name].append(json.loads(Path(str(cpu_file) + "." + name).read_text())["servers"])
    med = {name: median_of_medians(v) for name, v in results.items()}
    rows = [{"section": "lessons", "case": "cold interpreter", "contender": name, "value": round(med[name], 2), "unit": "s", "ratio": None}
            for name in commands if name not in servers]
    for lesson in lessons:
        server_cpu = statistics.median(servers[lesson])
        imported = med["import: with servers" if server_cpu > 0.05 else "import: in process"]
        floor = imported + server_cpu / cores
        row = {"section": "lessons", "case": "cold interpreter", "contender": lesson, "value": round(med[lesson], 2), "unit": "s",
               "ratio": round(med[lesson] / floor, 2), "floor": round(floor, 2), "server cpu": round(server_cpu, 2)}
        if lesson in BY_DESIGN:
            how, why = BY_DESIGN[lesson]
            designed = imported + server_cpu if how == "serial" else floor + float(how)
            row.update({"designed floor": round(designed, 2), "designed ratio": round(med[lesson] / designed, 2), "by design": why})
        rows.append(row)
    return rows


# --- the report -------------------------------------------------------------------------------


def peers() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    notes = []
    for name, (module, _, _) in PEERS.items():
        try:
            notes.append(f"{name} {version(name)}: measured (section call)" if installed(module) else f"{name}: not installed, skipped")
        except PackageNotFoundError:
            notes.append(f"{name}: importable as {module}, version unknown: measured (section call)")
    return notes


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| section | case | contender | value | unit | ratio | client CPU | CPU ratio | floor |", "|---|---|---|---:|---|---:|---:|---:|---:|"]
    for row in rows:
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
        cpu = f"{row['cpu']} {row['cpu unit']}" if "cpu" in row else ""
        cpu_ratio = f"{row['cpu ratio']:.2f}" if "cpu ratio" in row else ""
        floor = f"{row['floor']} s (servers' CPU {row['server cpu']} s)" if "floor" in row else ""
        if "designed floor" in row:
            floor += f"; by design {row['designed floor']} s, ratio {row['designed ratio']:.2f}: {row['by design']}"
        lines.append(f"| {row['section']} | {row['case']} | {row['contender']} | {row['value']} | {row['unit']} | {ratio} | {cpu} | {cpu_ratio} | {floor} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--sizes", default="1,5,20", help="connect: how many servers (comma-separated)")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"sections to run, of {', '.join(SECTIONS)}")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument("--quick", action="store_true", help="one round of every goal's figure (calls, connect 20, cli, pool, turn, "
                        "lessons), 100 calls, no lesson warm-up: under 2 minutes on an idle machine")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.calls, args.sizes = 1, 100, "20"
        if args.only == ",".join(SECTIONS):
            args.only = "call,connect,cli,pool,turn,lessons"
    only = set(args.only.split(","))
    rows: list[dict[str, Any]] = []
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    started = time.perf_counter()
    if "call" in only:
        rows += anyio.run(bench_calls, args.rounds, args.calls)
    if "memory" in only:
        rows += anyio.run(bench_memory)
    if "connect" in only:
        rows += anyio.run(bench_connect, args.rounds, tuple(int(n) for n in args.sizes.split(",")), args.quick)
    if "close" in only:
        rows += anyio.run(bench_close, args.rounds)
    if "cli" in only:
        rows += bench_cli(args.rounds)
    if "pool" in only:
        rows += bench_pool(args.rounds)
    if "turn" in only:
        rows += bench_turn(args.rounds)
    if "lessons" in only:
        rows += bench_lessons(args.rounds, warm=not args.quick)
    report = {"rows": rows, "rounds": args.rounds, "cores": os.cpu_count(), "python": sys.version.split()[0],
              "load average before": load_before, "load average after": Path("/proc/loadavg").read_text().split()[:3],
              "seconds": round(time.perf_counter() - started, 1), "peers": peers()}
    print(table(rows))
    print(f"\n{os.cpu_count()} cores; load average {' '.join(load_before)} before, {' '.join(report['load average after'])} after; "
          f"{args.rounds} rounds; {report['seconds']} s. " + "; ".join(report["peers"]) + ".")
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
