"""stdio: the server is a child process; JSON-RPC is one message per line on stdin/stdout.

The harness spawns the process itself rather than through the SDK's ``stdio_client``,
because it needs the process: its exit code for error messages, and a shutdown it can
see. Stderr goes to a file the connection keeps, so its last lines can explain a crash.

The shutdown is the spec's order, bounded at every step and shielded from cancellation,
so a Ctrl-C cannot leak a child: close stdin, wait ``exit_grace``; SIGTERM the process
group, wait ``kill_grace``; SIGKILL. The child runs in its own process group (a
terminal's Ctrl-C reaches only us, and we stop the whole group) and inherits only the
SDK's safe environment (HOME, PATH, ...) plus ``spec.env``, like Cline, unless the spec
says ``inherit_env`` (a Claude Code file: Claude Code passes its whole environment). The group is signalled even when its leader, the server,
exited on end of input: a helper it started in its group would outlive it otherwise.

A server may also start a helper in a session of its own (``setsid``), out of reach of
the group. So each server's environment carries a marker (``MCP_COURSE_STDIO``, a value
new for every spawn) that its descendants inherit, and on Linux the stop ends, last, every
process that still carries it: SIGTERM, ``kill_grace``, SIGKILL. A descendant that drops
the marker from its environment before it starts its own children, or that runs as
another user, is out of reach; the README's Limits says so.

A ``kill -9`` of the harness runs none of that. A well-behaved server then sees end of
input and exits; for the others, on Linux, the server is started through a few lines of
Python that ask the kernel to SIGKILL it when the harness dies (``PR_SET_PDEATHSIG``),
then ``exec`` the server itself: same pid, same process group, and every stdio server
gets it, ours or a third party's.

The session's two streams are the pipes themselves: a message is written to stdin by the
task that sends it, and stdout is read and parsed by the task that receives (the SDK's
reader). No pump task and no memory stream sit between, so a call costs no extra hop of
the event loop each way (the SDK's own ``stdio_client`` has a task each way, issue 23).

A server that floods stdout (megabytes of log lines, empty lines) must not starve the
others: handing out lines the reader already holds awaits nothing, so the reader lets the
event loop run others every ``SLICE`` while it has lines waiting, and never otherwise (an
answer per read, the common case, costs no extra step of the loop). While the server is
stopped, its stdout is read and dropped: a server blocked writing into a full pipe nobody
reads would never see its end of input, and would be SIGTERMed after ``exit_grace``.

With ``Context.trace`` set (s23's default run), the spawn is told as a note. The stop is
not: servers stop in parallel, and whether one exits on end of input within
``exit_grace`` or needs the SIGTERM depends on the machine's load.

Introduced by s23. Not handled here: Windows process trees; after a ``kill -9`` of the
harness, a process the server started that ignores end of input (the death signal
reaches the server, not its children); a set-user-ID server (exec clears the setting).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import sys
import time
from pathlib import Path
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import mcp_types as types
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from harness.errors import ServerError
from harness.spec import ServerSpec, Timeouts
from harness.transports.context import Context, Streams
from harness.transports.lines import FrameTooLarge, Lines
from harness.wire import InvalidFrame, ReadWrapper, StreamWrapper


def _resolve(spec: ServerSpec, env: Mapping[str, str]) -> str:
    """The executable to run; a clear error instead of the bare ENOENT of a failed spawn."""
    if spec.cwd is not None and not os.path.isdir(spec.cwd):
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: working directory does not exist")
    found = shutil.which(spec.command or "", path=env.get("PATH"))
    if found is None:
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: command not found")
    return found


# Run as ``python -I -S -c _DIE_WITH_US <our pid> <status fd> <executable> <args...>``.
# -I -S: the launcher imports only the standard library, whatever the server's cwd holds
# (a ctypes.py there) or its env sets (PYTHONPATH is meant for the server, which keeps it).
# PR_SET_PDEATHSIG (1) takes hold only from the prctl on: a harness that died before it is
# caught by comparing getppid() with the pid it passed. The signal is sent when the *thread*
# that started the child exits; the harness starts servers from its event loop's thread,
# whose end comes after every server is stopped. The status fd is close-on-exec, so a
# successful exec closes it silently and a failed one writes the reason there.
_DIE_WITH_US = """\
import ctypes, os, sys
ctypes.CDLL(None, use_errno=True).prctl(1, 9)
if os.getppid() != int(sys.argv[1]):
    os._exit(137)
status = int(sys.argv[2])
os.set_inheritable(status, False)
try:
    os.execv(sys.argv[3], sys.argv[3:])
except OSError as exc:
    os.write(status, (exc.strerror or str(exc)).encode())
    os._exit(126)
"""


def _dies_with_us() -> bool:
    # Linux only (prctl). sys.executable is empty when Python is embedded: spawn directly then.
    return sys.platform == "linux" and bool(sys.executable)


async def _spawn(argv: list[str], **options: Any) -> Any:
    """``anyio.open_process``; on Linux through ``_DIE_WITH_US``. Raises OSError as a direct spawn would."""
    if not _dies_with_us():
        return await anyio.open_process(argv, **options)
    read_status, write_status = os.pipe()
    try:
        process = await anyio.open_process([sys.executable, "-I", "-S", "-c", _DIE_WITH_US, str(os.getpid()), str(write_status), *argv],
                                           pass_fds=(write_status,), **options)
    finally:
        os.close(write_status)  # ours; the child's copy is the only one left, so its exec gives EOF
    try:
        failure = await _read_to_end(read_status)
    except BaseException:  # cancelled in the few ms before the exec: no child left half-started
        with anyio.CancelScope(shield=True):
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.aclose()
        raise
    finally:
        os.close(read_status)
    if failure:
        with anyio.CancelScope(shield=True):
            await process.aclose()  # it exits right after writing the reason
        raise OSError(0, failure)
    return process


async def _read_to_end(fd: int) -> str:
    os.set_blocking(fd, False)
    data = b""
    while True:
        await anyio.wait_readable(fd)
        try:
            chunk = os.read(fd, 512)
        except BlockingIOError:
            continue
        if not chunk:
            return data.decode(errors="replace")
        data += chunk


def _parse(line: str) -> SessionMessage | Exception:
    # A bad line is passed along as a value (the session skips it; the tap records it).
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        return InvalidFrame(line)


@asynccontextmanager
async def open_stdio(spec: ServerSpec, context: Context) -> AsyncIterator[Streams]:
    """Spawn the server; yield (read, write) streams of JSON-RPC messages; always stop it."""
    marker = f"{os.getpid()}-{secrets.token_hex(8)}"  # inherited by everything the server starts
    env = {**(os.environ if spec.inherit_env else get_default_environment()), **spec.env, MARKER: marker}
    executable = _resolve(spec, env)
    timeouts = context.timeouts
    try:
        process = await _spawn([executable, *spec.args], env=env, cwd=spec.cwd, stderr=context.errlog, start_new_session=True)
    except OSError as exc:
        raise ServerError(f"server '{spec.name}': cannot start `{spec.where()}`: {exc.strerror}") from None
    context.process = Child(process, context.errlog)
    if context.trace is not None:  # s23's default run: the mechanism in words (no pid: it differs every run)
        context.trace(f"spawned `{spec.where()}` in a process group of its own; JSON-RPC lines on its stdin and stdout, "
                      "its stderr kept in a file for error messages")
    spoke = anyio.Event()  # the session's first message has gone (or failed to go) to the server
    from_server, to_server = _FromServer(process, context, spoke), _ToServer(process, spoke)
    try:
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):  # must finish even when we are being cancelled
                async with anyio.create_task_group() as draining:
                    # Nobody reads stdout any more: a server blocked writing into the full pipe
                    # (a flood) would never read its end of input, and be SIGTERMed after exit_grace.
                    draining.start_soon(_drain, process.stdout)
                    await stop(process, timeouts)
                    await stop_marked(marker, timeouts)
                    draining.cancel_scope.cancel()
    finally:  # on an error too: the process and its pipes are closed while the event loop still runs
        with anyio.move_on_after(timeouts.kill_grace, shield=True):
            await _drain(process.stdout)
            await process.aclose()


class _FromServer(ReadWrapper):
    """The session's read stream: the server's stdout, a line at a time, each parsed as a message.

    Read in the task that receives (the SDK's reader), with no pump task between: a frame
    reaches the session in the same step that reads it. A bad line is passed along as a
    value (the session skips it; the tap records it); bytes that are not UTF-8 are read as
    U+FFFD, and said once in a warning (``Context.warn``). The end of stdout, or a line over the
    frame limit (``Context.fault`` says so), ends it.

    The first read waits for the session's first message (``initialize``) to be written. A
    server says nothing before it, and a server that exits at start is then always told
    ``initialize`` before its end of output is read: otherwise the SDK, if its reader saw
    that end first, refused to send it, and whether the wire showed an ``initialize`` to a
    dead server depended on the machine's load.
    """

    def __init__(self, process: Any, context: Context, spoke: anyio.Event) -> None:
        super().__init__(process.stdout)
        self._lines = Lines(context.limits.frame)  # linear, each line capped
        self._context = context
        self._spoke = spoke
        self._mangled = False  # whether a line that is not UTF-8 has been said
        self._yielded = 0.0  # when this reader last let the event loop run others (time.monotonic)

    async def receive(self) -> SessionMessage | Exception:
        cutter, stdout = self._lines, self._inner
        if not self._spoke.is_set():
            await self._spoke.wait()
        if cutter.pending:  # lines already read: handing them out awaits nothing, so a flood would hold the loop
            await self._share()
        try:
            skipped = 0
            while True:
                if (line := cutter.next()) is None:
                    # A read returns at once while the pipe holds data: no yield there either.
                    cutter.feed(await stdout.receive())
                elif line.strip():
                    try:
                        return _parse(line.decode())
                    except UnicodeDecodeError:
                        return _parse(self._replaced(line))
                elif (skipped := skipped + 1) % SKIPPED == 0:  # a flood of empty lines returns nothing to the SDK
                    await self._share()
        except FrameTooLarge as exc:  # the rest of that line cannot be read as a frame: end here
            self._context.fault = f"sent {exc} ({self._context.limits.explain('frame')})"
            raise anyio.EndOfStream from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            raise anyio.EndOfStream from None

    def _replaced(self, line: bytes) -> str:
        """The line with each invalid UTF-8 sequence as U+FFFD; the first time, a warning naming the server says so."""
        if not self._mangled:
            self._mangled = True
            self._context.warn("sent bytes on stdout that are not UTF-8; each invalid sequence is read as U+FFFD "
                               "(said once per server process)")
        return line.decode(errors="replace")

    async def _share(self) -> None:
        """Let the event loop run others once ``SLICE`` has passed since this reader last did (a flood: every few ms)."""
        if time.monotonic() - self._yielded >= SLICE:
            await anyio.lowlevel.checkpoint()
            self._yielded = time.monotonic()

    async def aclose(self) -> None:
        pass  # the stop drains the pipe while the server ends, and closes it after it has gone

    def close(self) -> None:
        pass


# A reader handing out lines it already holds lets the loop run others every SLICE seconds:
# a server flooding stdout then costs the others a few ms at a time, never its whole flood.
# Only when lines are waiting: one answer per read, the common case, never yields more than it waits.
SLICE = 0.001
SKIPPED = 1024  # empty lines skipped between two looks at the clock


class _ToServer(StreamWrapper):
    """The session's write stream: each message one line on the server's stdin, written by the sender."""

    def __init__(self, process: Any, spoke: anyio.Event) -> None:
        super().__init__(process.stdin)
        self._spoke = spoke

    async def send(self, message: SessionMessage) -> None:
        line = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        try:
            await self._inner.send(line.encode())
        except OSError:  # the server stopped reading (EPIPE): the request fails as the connection lost
            raise anyio.BrokenResourceError from None
        finally:
            self._spoke.set()

    async def aclose(self) -> None:
        pass  # the stop closes stdin, in the spec's order

    def close(self) -> None:
        pass


async def _drain(stdout: Any) -> None:
    """Read what is left on the dead server's stdout to its end, and drop it.

    The pipe reader stops reading once its buffer is full (a flood nobody reads any more),
    so it would never see the end, asyncio would never count the process finished, and the
    transport would be closed by the garbage collector after the event loop: ``Exception
    ignored in BaseSubprocessTransport.__del__ ... Event loop is closed``.
    """
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        while await stdout.receive(1 << 16):
            pass


async def stop(process: Any, timeouts: Timeouts) -> None:
    """Close stdin, wait; SIGTERM what is left of the group, wait; SIGKILL. Every wait is bounded."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()  # a well-behaved server exits on end of input
    await exited(process, timeouts.exit_grace)
    # Even when the server exited: a process it started in its group (a helper that ignores
    # end of input) lives on, and killpg still reaches it by the leader's pid, since a pid
    # is not reused while its group exists. An empty group costs one ESRCH.
    await terminate_posix_process_tree(process, timeouts.kill_grace)  # the SDK's SIGTERM -> SIGKILL of the group
    await exited(process, timeouts.kill_grace)


MARKER = "MCP_COURSE_STDIO"


def marked(marker: str) -> list[int]:
    """The pids of the processes whose environment holds ``MCP_COURSE_STDIO=marker`` (Linux; else none)."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    with suppress(OSError):
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:  # gone, or another user's
                continue
            if needle in environ.split(b"\0"):
                found.append(int(entry.name))
    return found


async def stop_marked(marker: str, timeouts: Timeouts) -> None:
    """End what the server left running outside its group (a ``setsid`` helper): SIGTERM, wait, SIGKILL."""
    if not (pids := marked(marker)):
        return  # the common case: one scan of /proc, a few milliseconds
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        with anyio.move_on_after(timeouts.kill_grace):
            while pids := [pid for pid in pids if _running(pid)]:
                await anyio.sleep(0.01)
        if not pids:
            return


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie's parent, maybe PID 1, reaps it; it holds nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:][:1] != "Z"


async def exited(process: Any, within: float) -> bool:
    # Poll returncode, as the SDK does: asyncio's wait() also waits for the pipes to close.
    with anyio.move_on_after(within):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


# The line that says why, in what servers print as they die: "Error: ...", Node's
# "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod'", Python's "ModuleNotFoundError:
# ...", git's "fatal: ...". A stack trace after it would push it out of the tail.
WHY = re.compile(r"(?:^|\W)(?:[A-Za-z]*Error\b[^:]{0,40}:|Cannot find|fatal:)")
HEAD_BYTES, TAIL_BYTES = 65536, 16384


def tail(errlog: Any, lines: int) -> list[str]:
    """The last lines the child wrote to stderr, after its first line that says why (``WHY``) if the tail lacks
    it, and ``...``. ``pread`` leaves the shared offset alone."""
    fd = errlog.fileno()
    size = os.fstat(fd).st_size
    chunk = os.pread(fd, min(size, TAIL_BYTES), max(0, size - TAIL_BYTES)).decode("utf-8", errors="replace")
    last = [line.rstrip() for line in chunk.splitlines() if line.strip()][-lines:]
    head = os.pread(fd, min(size, HEAD_BYTES), 0).decode("utf-8", errors="replace").splitlines()
    why = next((line.rstrip() for line in head[:-1] if WHY.search(line)), None)  # the last line may be cut mid-way
    return [why, "...", *last] if why is not None and why not in last else last


class Child:
    """The server process of one session, as ``Context.process``: what an error message says about it."""

    def __init__(self, process: Any, errlog: Any) -> None:
        self.popen, self._errlog = process, errlog

    async def exit_code(self, within: float) -> int | None:
        """Its exit code, after waiting up to ``within`` s for it to exit; None if it runs on."""
        await exited(self.popen, within)
        return self.popen.returncode

    def stderr_tail(self, lines: int) -> list[str]:
        return tail(self._errlog, lines) if self._errlog is not None and not self._errlog.closed else []
