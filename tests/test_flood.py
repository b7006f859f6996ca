"""A server that floods its stdout: the others keep their share of the event loop, and the stop is quick.

The flooding server is ``mock_servers.hostile --flood BYTES`` (a child process, as every
stdio server is): right after its first ``echo`` answer it writes about BYTES of lines in
one go, log notifications or empty lines, then reads on. Meanwhile the test's loop runs
a lag probe (a task that sleeps 1 ms at a time and records the longest gap) and calls the
healthy ``docs`` server again and again; the flood is over when the second ``echo``
answer, written after it, arrives.

Each gap and each call is measured twice: in wall time, under a generous bound scaled for
a busy machine (``limits.scaled``), and in the CPU time of the loop's thread
(``time.thread_time``): what the loop did meanwhile, which another process taking the core
does not stretch. The CPU bounds are the ones asked for (a gap under 20 ms, a call under
50 ms more than alone); before the stdio reader shared the loop, the flood held it 40 to
110 ms at a stretch here (as much as the pipe's reader had buffered), and a stop waited its
whole exit_grace, then SIGTERMed a server blocked in a write nobody read. Python's own
collector pauses every task whatever the transport does (a full collection here: 30 to 50
ms), so the measured window runs with it off: what is measured is the transport.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable

import anyio
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import STEP, TIMEOUTS, scaled

from harness.connection import Connections
from harness.spec import ServerSpec
from harness.transcript import Transcript

pytestmark = [pytest.mark.usefixtures("no_process_left"), pytest.mark.slow]
DOCS = ServerSpec("docs", "stdio", command=sys.executable, args=("-m", "mock_servers.docs", "--transport", "stdio"),
                  env={"PYTHONHASHSEED": "0"}, cwd=str(ROOT))
MIB = 1 << 20


def flooding(size: int, kind: str) -> ServerSpec:
    args = ("-m", "mock_servers.hostile", "--transport", "stdio", "--flood", str(size), "--flood-kind", kind)
    return ServerSpec("flood", "stdio", command=sys.executable, args=args, cwd=str(ROOT))


class Probe:
    """The longest the loop went without running this task (it asks for 1 ms at a time): wall and CPU time."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.done = anyio.Event()

    async def run(self) -> None:
        wall, cpu = time.monotonic(), time.thread_time()
        while not self.done.is_set():
            await anyio.sleep(0.001)
            now, used = time.monotonic(), time.thread_time()
            self.wall, self.cpu = max(self.wall, now - wall), max(self.cpu, used - cpu)
            wall, cpu = now, used


async def calls_while(more: Callable[[], bool], docs, calls: list[tuple[float, float]]) -> None:
    """Call docs again and again while ``more()``; each call's (wall, CPU) time goes into ``calls``."""
    while more():
        wall, cpu = time.monotonic(), time.thread_time()
        await docs.call_tool("get_version", {})
        calls.append((time.monotonic() - wall, time.thread_time() - cpu))


def slowest(calls: list[tuple[float, float]]) -> tuple[float, float]:
    return max(wall for wall, _ in calls), max(cpu for _, cpu in calls)


@pytest.mark.parametrize(("size", "kind"), [(MIB, "log"), (6000 * 107, "log"), (4 * MIB, "blank")],
                         ids=["1MiB_of_log_lines", "6000_log_messages", "4MiB_of_empty_lines"])
def test_a_flood_leaves_the_loop_and_the_other_servers_their_share(size, kind):
    async def main():
        async with Connections(Transcript(), timeouts=TIMEOUTS) as conns:
            docs = await conns.open(DOCS)
            alone: list[tuple[float, float]] = []
            await calls_while(lambda: len(alone) < 10, docs, alone)
            flood = await conns.open(flooding(size, kind))
            probe, during = Probe(), []
            gc.disable()
            try:
                with anyio.fail_after(STEP):
                    async with anyio.create_task_group() as tasks:
                        tasks.start_soon(probe.run)
                        await flood.call_tool("echo", {"text": "go"})  # the flood follows its answer
                        tasks.start_soon(calls_while, lambda: not probe.done.is_set(), docs, during)
                        await flood.call_tool("echo", {"text": "after"})  # answered after the flood, in order
                        probe.done.set()
            finally:
                gc.enable()
            await flood.aclose()
        assert during, "expected docs to be called while the flood was read"
        (alone_wall, alone_cpu), (wall, cpu) = slowest(alone), slowest(during)
        assert probe.cpu < 0.02, f"expected the loop never held over 20 ms of CPU; held {probe.cpu * 1000:.0f} ms"
        assert probe.wall < scaled(0.02), f"expected the loop never held over {scaled(0.02):.2f} s; held {probe.wall:.3f} s"
        assert cpu - alone_cpu < 0.05, (f"expected docs's slowest call during the flood within 50 ms of CPU of its slowest alone "
                                        f"({alone_cpu * 1000:.0f} ms); it took {cpu * 1000:.0f} ms")
        assert wall - alone_wall < scaled(0.05), (f"expected docs's slowest call during the flood within {scaled(0.05):.2f} s of "
                                                  f"its slowest alone ({alone_wall:.3f} s); it took {wall:.3f} s")

    anyio.run(main)


@pytest.mark.parametrize("kind", ["log", "blank"])
def test_closing_during_a_flood_is_quick_and_the_server_ends_on_its_input(kind):
    async def main():
        async with Connections(Transcript(), timeouts=TIMEOUTS) as conns:
            flood = await conns.open(flooding(4 * MIB, kind))
            await flood.call_tool("echo", {"text": "go"})  # the flood is under way: 4 MiB, far past the pipe's 64 KiB
            process = flood.context.process.popen
            started = time.monotonic()
            with anyio.fail_after(STEP):
                await flood.aclose()
            took = time.monotonic() - started
        assert process.returncode == 0, f"expected the server to exit 0 on its end of input; exit code {process.returncode}"
        assert took < scaled(0.2), f"expected the close within {scaled(0.2):.1f} s; it took {took:.2f} s"

    anyio.run(main)
