"""One warm parent for the tests' stdio mock servers: the SDK imported once, a fork per server.

A stdio mock server spends about 0.7 s of CPU before its first answer, nearly all of it
importing the SDK (both eras' pydantic models). The suite starts a few hundred of them, so
that import was half of its CPU. Here each test process starts one parent that has
imported the server half of the SDK and every catalog server module; a server is then a
fork of it, and starts in milliseconds.

The harness still spawns a real process over real pipes, through its own stdio transport;
only the command changes. ``redirect`` turns ``python -m mock_servers.docs ...`` (or
``python .../mock_servers/docs.py ...``) into ``python -I -S tests/forkserver.py launch SOCKET
-m mock_servers.docs ...``: a stdlib-only launcher that hands its stdin, stdout and stderr to
the parent over a Unix socket (``SCM_RIGHTS``), with its argv, working directory and
environment. The parent forks; the child takes those three descriptors, that environment
and folder, and runs the module as ``__main__``, as ``python -m`` would. The launcher then
stands for the server to whoever spawned it:

- SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGUSR1/2 sent to it go on to the child;
- it exits as the child did: the same code, or killed by the same signal;
- a ``kill -9`` of the launcher ends the child too: the child holds the other end of the
  launcher's socket and kills itself when that end closes;
- and whatever happens, a child ends with the parent (``PR_SET_PDEATHSIG``), which ends with
  the test process, so even a server a broken test leaks is gone when the session is.

So a server's exit code, its stderr, its stop on end of input or SIGTERM, and a crash look
the same to the harness as with a spawned interpreter. What differs: the child is the
parent's child, not the launcher's (the leak check counts the parent's children as ours:
``leaks.ours``), and its ``/proc/PID/environ`` is the parent's, so the harness's
marker scan for ``setsid`` helpers does not see it (catalog servers start none; the
hostile servers, which do, are never redirected).

Only what the parent has loaded is redirected: the catalog modules of this checkout, run
by this interpreter with no interpreter flags, from this checkout's folder, with no
``PYTHONPATH`` but this checkout; as ``-m``, as the module's file, or as a ``-c`` program
that runs one with ``runpy.run_module`` (the tests' servers that first check their
environment or write down that they started). An exercise's edited copy of ``mock_servers``, a test's own
server script, ``hostile.py`` and the HTTP servers still start as interpreters of their
own. Test files run lessons and the CLI as child processes where a signal, an exit code or
an orphan count needs a real process; those children spawn real interpreters too, since
the redirect lives only in the test process (``install``).

``MCP_COURSE_TEST_FORK=0`` turns it off: every server is a spawned interpreter again.
Linux only (``PR_SET_PDEATHSIG``, ``SCM_RIGHTS`` with ``socket.send_fds``).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ("mock_servers.docs", "mock_servers.deploy", "mock_servers.handbook", "mock_servers.desk",
           "mock_servers.media", "mock_servers.notes", "mock_servers.serve", "mock_servers.protected")
LIFELINE = "mock_servers.lifeline"  # how mock_servers.launch starts a network server: lifeline MODULE ARGS...
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
CONNECT_WITHIN = 60.0  # seconds a launcher waits for the parent's socket: its SDK import, on a busy machine
HEADER = struct.Struct("!I")


# --- the test process: start the parent, redirect the harness's spawns ---------------------------

_parent = None  # subprocess.Popen of the parent, in the process that started it
_socket_path: str | None = None
_paused = False  # inside ``paused``


def enabled() -> bool:
    return sys.platform == "linux" and os.environ.get("MCP_COURSE_TEST_FORK", "1") != "0"


def start(folder: str) -> None:
    """Start this process's parent (it listens on ``folder``/fork.sock once its imports are done)."""
    global _parent, _socket_path
    import subprocess

    _socket_path = os.path.join(folder, "fork.sock")
    _parent = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", _socket_path, str(os.getpid())],
                               cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)


def stop() -> None:
    """Stop the parent (SIGTERM, then SIGKILL), and reap it."""
    global _parent
    if _parent is None:
        return
    parent, _parent = _parent, None
    parent.terminate()
    try:
        parent.wait(10)
    except Exception:
        parent.kill()
        parent.wait()


def parent_pid() -> int | None:
    return _parent.pid if _parent is not None else None


def redirect(argv: list[str], cwd: str | None, env: dict[str, str] | None) -> list[str]:
    """``argv``, or the launcher's command for it when it runs a catalog server the parent has loaded.

    Three shapes are taken: ``python -m mock_servers.NAME ...`` (or the module's file);
    ``python -m mock_servers.lifeline mock_servers.NAME ...`` (a network server of
    ``mock_servers.launch``); and ``python -c CODE ...`` whose code ends in ``runpy.run_module``
    of such a module (the tests' servers that first check their environment or log their start).
    """
    if _socket_path is None or _paused or len(argv) < 3 or argv[0] != sys.executable:
        return argv
    if os.path.abspath(cwd or os.getcwd()) != ROOT or (env or {}).get("PYTHONPATH", ROOT) != ROOT:
        return argv
    flag, rest = argv[1], argv[2:]
    if flag == "-m" and (rest[0] in MODULES or rest[0] == LIFELINE and rest[1:2] and rest[1] in MODULES):
        return _launcher("-m", *rest)
    if flag == "-c" and "runpy.run_module(" in rest[0] and any(module in " ".join(rest) for module in MODULES):
        return _launcher("-c", *rest)
    here = os.path.abspath(flag)
    module = "mock_servers." + os.path.basename(here).removesuffix(".py")
    if here.endswith(".py") and os.path.dirname(here) == os.path.join(ROOT, "mock_servers") and module in MODULES:
        return _launcher("-m", module, *rest)
    return argv


def _launcher(flag: str, *rest: str) -> list[str]:
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "launch", str(_socket_path), flag, *rest]


def install() -> None:
    """Route the harness's stdio spawns, and ``mock_servers.launch``'s network servers, in this process through ``redirect``."""
    from harness.transports import stdio
    from mock_servers import launch

    command = launch.command
    launch.command = lambda *args, **options: redirect(command(*args, **options), None, {"PYTHONPATH": ROOT})

    spawn = stdio._spawn

    async def redirected(argv, **options):
        return await spawn(redirect(list(argv), options.get("cwd"), options.get("env")), **options)

    stdio._spawn = redirected


@contextmanager
def paused() -> Iterator[None]:
    """No redirect inside: the servers started here are interpreters of their own (conftest's ``spawned``)."""
    global _paused
    _paused = True
    try:
        yield
    finally:
        _paused = False


# --- the launcher: python -I -S forkserver.py launch SOCKET -m MODULE ARGS... (or -c CODE ARGS...) ----------------------


def launch(path: str, flag: str, args: list[str]) -> None:
    """Hand stdin/stdout/stderr to the parent, then stand for the child until it ends."""
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # until the child's pid is known
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + CONNECT_WITHIN
    while True:
        try:
            conn.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                os.write(2, f"forkserver: no parent listening on {path}\n".encode())
                os._exit(70)
            time.sleep(0.01)
    header = json.dumps({"flag": flag, "args": args, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(conn, [HEADER.pack(len(header)) + header], [0, 1, 2])
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the child has them now: holding them here would delay the end of output
        os.dup2(quiet, fd)
    lines = conn.makefile("r")
    pid = int(lines.readline() or 0)
    if not pid:
        os._exit(70)
    def forward(number: int, frame: object) -> None:
        try:
            os.kill(pid, number)
        except ProcessLookupError:  # the child ended, and was reaped, before the signal came: its status is on its way
            pass

    for sig in FORWARDED:
        signal.signal(sig, forward)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    how, _, value = lines.readline().partition(" ")
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    if how == "signal":
        number = int(value)
        signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(int(value) if how == "exit" else 70)


# --- the parent: python forkserver.py serve SOCKET TEST-PID ----------------------------------------


def serve(path: str, test_pid: int) -> None:
    """Import the servers, then fork one per launcher that connects; tell each launcher its pid and end."""
    import importlib
    import threading

    _end_with_parent()  # the test process
    if os.getppid() != test_pid:
        os._exit(0)
    sys.path.insert(0, ROOT)
    from mock_servers.serve import server_side_sdk

    server_side_sdk()
    for module in (*MODULES, LIFELINE):
        importlib.import_module(module)
    import uvicorn  # noqa: F401  (what a network server imports once it runs)
    from mcp.server import sse, streamable_http_manager, transport_security  # noqa: F401
    from sse_starlette import sse as sse_events  # noqa: F401
    from starlette import applications, routing  # noqa: F401

    for module in (*MODULES, LIFELINE):  # what they import stays; each child runs its own module afresh, as __main__
        del sys.modules[module]
    import mcp.server.runner  # noqa: F401  (what a stdio server imports once it runs)
    import mcp.server.stdio  # noqa: F401

    assert threading.active_count() == 1, "the parent must fork with one thread"
    wake_read, wake_write = socket.socketpair()
    wake_write.setblocking(False)
    signal.set_wakeup_fd(wake_write.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    os.rename(path + ".new", path)  # launchers see the socket only once it listens
    listener.listen(64)
    waiting: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is wake_read:
                wake_read.recv(4096)
                _reap(waiting)
                continue
            conn, _ = listener.accept()
            conn.settimeout(5)  # a launcher sends its request at once; one that does not is dropped
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError):
                conn.close()
                continue
            conn.settimeout(None)
            pid = os.fork()
            if pid == 0:
                listener.close()
                wake_read.close()
                wake_write.close()
                for other in waiting.values():
                    other.close()
                _child(conn, request, fds)
            for fd in fds:
                os.close(fd)
            waiting[pid] = conn
            try:
                conn.sendall(f"{pid}\n".encode())
            except OSError:
                pass  # the launcher is gone; the child sees its end closed and ends
        _reap(waiting)


def _end_with_parent() -> None:
    """``PR_SET_PDEATHSIG``: the kernel sends SIGKILL when the parent dies (as ``mock_servers.lifeline``, without its thread)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3 or len(data) < HEADER.size:
        for fd in fds:
            os.close(fd)
        raise ValueError("not a launcher's request")
    (size,) = HEADER.unpack_from(data)
    while len(data) < HEADER.size + size:
        more = conn.recv(1 << 16)
        if not more:
            raise ValueError("the launcher left")
        data += more
    return json.loads(data[HEADER.size:HEADER.size + size]), fds


def _reap(waiting: dict[int, socket.socket]) -> None:
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is None:
            continue
        said = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.waitstatus_to_exitcode(status)}"
        try:
            conn.sendall(f"{said}\n".encode())
        except OSError:
            pass  # the launcher is gone
        conn.close()


def _child(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the fork: become ``python -m MODULE ARGS`` with the launcher's descriptors, folder and environment."""
    import runpy
    import threading

    from harness.exits import exit_now

    _end_with_parent()  # this parent: a leaked child still ends with it
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    _new_stdio()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])

    def watch() -> None:  # the launcher's end closes only when it dies: a kill -9 of the server
        conn.recv(1)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()
    code = 0
    try:
        if request["flag"] == "-m":  # as python -m: the folder first on the path, argv[0] the module's file
            sys.path[:2] = [request["cwd"]]
            sys.argv = ["-m", *request["args"][1:]]
            runpy.run_module(request["args"][0], run_name="__main__", alter_sys=True)
        else:  # as python -c: "" first on the path, argv[0] "-c"
            sys.path[:2] = [""]
            sys.argv = ["-c", *request["args"][1:]]
            exec(compile(request["args"][0], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            print(stop.code, file=sys.stderr)
    except KeyboardInterrupt:  # as an interpreter ends on an unhandled Ctrl-C: its traceback, then killed by SIGINT
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    exit_now(code)


def _new_stdio() -> None:
    """sys.stdin/stdout/stderr made afresh on the new descriptors, as an interpreter makes them at start.

    The parent's were made for /dev/null, which can seek; a pipe cannot, and a wrapper
    that believes it can fails on its first ``tell``.
    """
    import io

    for fd, name, mode in ((0, "stdin", "rb"), (1, "stdout", "wb"), (2, "stderr", "wb")):
        old = getattr(sys, name)
        raw = io.open(fd, mode, closefd=False)
        stream = io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, newline="\n",
                                  line_buffering=fd == 2 or os.isatty(fd), write_through=fd == 2)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        launch(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
