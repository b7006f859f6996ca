"""Start a mock server on SSE or Streamable HTTP for the length of an ``async with``.

    async with serve_http("docs", "http", "--forget-sessions-after", "2") as url:
        ...   # url is e.g. http://127.0.0.1:41234/mcp

Used by the lessons that connect over a network transport (s24, s25, s26) and by the
tests. The child is ``python -m mock_servers.lifeline mock_servers.serve NAME --transport T
[flags]``; its ``READY <url>`` line on stdout says it is listening. Its stderr is drained
the whole time (a noisy server must never block on a full pipe) and the last lines are
kept for error messages.

The child dies with us, however we end (``kill -9`` included): its stdin is a pipe we
hold open and never write to, and ``mock_servers.lifeline`` exits the server when that
pipe ends; on Linux the kernel's parent-death signal kills it at once as well. It runs in
its own session, as the harness's stdio servers do, so a terminal's Ctrl-C or hangup
reaches only us, and we stop it in order.

Stopping is bounded and always reaps: SIGTERM, wait up to ``STOP_GRACE`` seconds, then
SIGKILL and wait. A server that exits before READY, or is not ready by the deadline, raises
``ServerError`` with the exit code and the tail of its stderr.

Not handled: stdio servers (the client spawns those itself), servers outside the catalog.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from harness.errors import ServerError
from mock_servers import serve

READY_TIMEOUT = 20.0  # seconds; a cold SDK import alone takes 1-2 s on a busy 2-core machine
STOP_GRACE = 2.0  # seconds between SIGTERM and SIGKILL; the servers exit on SIGTERM within ~1 s
STDERR_TAIL = 20  # lines kept for the error message
_ROOT = Path(__file__).resolve().parent.parent


def fault_option(parser: Any, example: str, servers: tuple[str, ...], transport: str) -> None:
    """``--fault SERVER:FLAG`` (repeatable): start one server with one of serve.py's fault switches.

    Each value is checked when the command line is parsed, by the server's own parser, so a
    typo is a usage error (exit 2) naming the value, not a fault silently left out. The
    transport and port are the lesson's to choose: a flag that changes them (``--port=1``,
    or ``--tr=http``, which argparse reads as ``--transport``) is refused, and so is
    ``--help``, which is no fault either.
    """

    def fault(value: str) -> str:
        server, colon, flag = value.partition(":")
        if not colon or not flag:
            raise argparse.ArgumentTypeError(f"'{value}': expected SERVER:FLAG, e.g. {example}")
        if server not in servers:
            raise argparse.ArgumentTypeError(f"'{value}': unknown server '{server}' (this lesson has {', '.join(servers)})")
        complaint = io.StringIO()
        try:
            with redirect_stderr(complaint), redirect_stdout(io.StringIO()):  # --help would print its usage
                _, options = serve.parse(["--transport", transport, flag], server)
        except SystemExit as exit:
            lines = complaint.getvalue().strip().splitlines()
            reason = lines[-1].partition("error: ")[2] if lines and exit.code else f"{flag} is not a fault flag"
            raise argparse.ArgumentTypeError(f"'{value}': {reason}") from None
        if options.transport != transport or options.port != 0:
            raise argparse.ArgumentTypeError(f"'{value}': the lesson sets the transport and port, not a fault flag")
        return value

    parser.add_argument("--fault", action="append", default=[], metavar="SERVER:FLAG", type=fault,
                        help=f"start SERVER with a fault flag, e.g. {example} (repeatable)")


def fault_flags(name: str, faults: list[str]) -> list[str]:
    """The flags that ``--fault`` values give server ``name``: ``docs:--hang-on=search`` -> ``--hang-on=search``."""
    return [flag for server, _, flag in (f.partition(":") for f in faults) if server == name]


def command(name: str, transport: str, *flags: str, module: str | None = None) -> list[str]:
    if module is not None:  # a server with its own entry point (s26: mock_servers.protected), same READY contract
        target = [module, *flags]
    else:
        target = ["mock_servers.serve", name, "--transport", transport, *flags]
    return [sys.executable, "-m", "mock_servers.lifeline", *target]


@asynccontextmanager
async def serve_http(name: str, transport: str, *flags: str, ready_timeout: float = READY_TIMEOUT, module: str | None = None) -> AsyncIterator[str]:
    """Run mock server ``name`` over ``transport`` ("sse" or "http"); yields its URL once it is ready."""
    if transport not in ("sse", "http"):
        raise ValueError(f"serve_http: transport must be 'sse' or 'http', not {transport!r}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))}
    # stdin=PIPE is the lifeline: we keep its write end open, unwritten, until the process is gone.
    process = await anyio.open_process(command(name, transport, *flags, module=module), stdin=subprocess.PIPE, env=env,
                                       start_new_session=True)
    tail: deque[str] = deque(maxlen=STDERR_TAIL)
    ready, stderr_done = anyio.Event(), anyio.Event()
    url: list[str] = []

    def failure(reason: str) -> ServerError:
        lines = "\n".join(f"  {line}" for line in tail)
        return ServerError(f"server '{name}': {reason}" + (f"; stderr:\n{lines}" if lines else "; no stderr"))

    async def read_stdout() -> None:
        buffer = b""
        async for chunk in process.stdout:
            buffer += chunk
            while b"\n" in buffer and not ready.is_set():
                line, buffer = buffer.split(b"\n", 1)
                if line.startswith(b"READY "):
                    url.append(line[len(b"READY "):].decode().strip())
                    ready.set()
            if ready.is_set():
                buffer = b""  # the contract says nothing follows READY; drain whatever does
        ready.set()  # stdout closed: the server is gone, url stays empty

    async def read_stderr() -> None:
        buffer = b""
        async for chunk in process.stderr:
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            tail.extend(line.decode(errors="replace") for line in lines)
        if buffer:
            tail.append(buffer.decode(errors="replace"))
        stderr_done.set()

    error: ServerError | None = None
    body_error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            with anyio.move_on_after(ready_timeout):
                await ready.wait()
            if url:
                try:
                    yield url[0]
                except BaseException as exc:  # re-raised below, bare: not wrapped in the task group's ExceptionGroup
                    body_error = exc
                finally:
                    await _stop(process)  # ends the readers (EOF), so the task group can finish
            else:
                exited = ready.is_set()  # stdout closed before READY
                if exited:
                    # Reap it ourselves before _stop: signalling an exited child makes Popen.poll()
                    # reap it behind asyncio's child watcher, and the exit code is lost (reported as 255).
                    with anyio.move_on_after(STOP_GRACE):
                        await process.wait()
                await _stop(process)
                with anyio.move_on_after(STOP_GRACE):  # the last stderr lines are the useful ones
                    await stderr_done.wait()
                reason = f"exited with code {process.returncode}" if exited else f"not ready after {ready_timeout:g} s"
                error = failure(reason + (" before it was ready" if exited else ""))
    finally:
        await _stop(process)  # a no-op unless the task group itself failed
        with anyio.CancelScope(shield=True):
            await process.aclose()
    if body_error is not None:
        raise body_error
    if error is not None:
        raise error  # raised outside the task group so callers get it bare, not in an ExceptionGroup


async def serve_all(stack: AsyncExitStack, transport: str, flags: dict[str, list[str]]) -> dict[str, str | ServerError]:
    """Start each named server on ``stack``, all at once; a server that does not start is its
    ``ServerError``, not the end of the run. The URLs come in the order of ``flags``.

    Each server runs in a task of its own (its ``serve_http`` is entered and left in that
    task), not one after another: a server's start-up is about a second of CPU. Leaving
    ``stack`` stops them all, after whatever was entered on it later.
    """
    started: dict[str, str | ServerError] = {}
    up, leave = anyio.Event(), anyio.Event()

    async def serve(name: str) -> None:
        try:
            async with serve_http(name, transport, *flags[name]) as url:
                started[name] = url
                if len(started) == len(flags):
                    up.set()
                await leave.wait()
        except ServerError as exc:  # that server is down; the others are not
            started[name] = exc
            if len(started) == len(flags):
                up.set()

    group = await stack.enter_async_context(anyio.create_task_group())
    stack.callback(leave.set)  # runs before the group is left: each task ends, stopping its server
    for name in flags:
        group.start_soon(serve, name)
    if flags:
        await up.wait()
    return {name: started[name] for name in flags}


async def _stop(process: Process) -> None:
    """SIGTERM, a bounded wait, SIGKILL, reap (the readers then see EOF). Shielded: cancelling the caller must not leak the child."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            try:
                process.terminate()
            except ProcessLookupError:
                pass
            with anyio.move_on_after(STOP_GRACE):
                await process.wait()
            if process.returncode is None:
                try:
                    process.kill()
                except ProcessLookupError:
                    pass
        await process.wait()
