"""Time from start to tools listed, per transport; and each lesson's whole offline run.

    python bench/transport_startup.py [repeats]

stdio: spawn -> initialize -> tools/list (the child's `import mcp` dominates).
sse/http: READY from serve_http (server start), then connect -> tools/list.
"""

import io
import statistics
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.connection import Connections  # noqa: E402
from harness.spec import ServerSpec  # noqa: E402
from mock_servers.launch import serve_http  # noqa: E402


async def stdio_once() -> float:
    spec = ServerSpec("docs", "stdio", sys.executable, ("-m", "mock_servers.docs", "--transport", "stdio"), cwd=str(ROOT))
    start = time.perf_counter()
    async with Connections() as conns:
        await conns.open(spec)
        return time.perf_counter() - start


async def http_once(transport: str) -> tuple[float, float]:
    start = time.perf_counter()
    async with serve_http("docs", transport) as url:
        ready = time.perf_counter()
        async with Connections() as conns:
            await conns.open(ServerSpec("docs", transport, url=url))
            return ready - start, time.perf_counter() - ready


def lesson_once(lesson: str) -> float:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"lesson_{lesson}", ROOT / "lessons" / lesson / "code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    start = time.perf_counter()
    assert module.main([], io.StringIO()) == 0
    return time.perf_counter() - start


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    med = statistics.median
    print(f"stdio  spawn -> tools listed: {med(anyio.run(stdio_once) for _ in range(repeats)):.2f} s")
    for transport in ("sse", "http"):
        runs = [anyio.run(http_once, transport) for _ in range(repeats)]
        print(f"{transport:5}  server start -> READY: {med(r[0] for r in runs):.2f} s; connect -> tools listed: {med(r[1] for r in runs):.3f} s")
    for lesson in ("s23", "s24", "s25"):
        print(f"{lesson} offline run: {med(lesson_once(lesson) for _ in range(repeats)):.2f} s")


if __name__ == "__main__":
    main()
