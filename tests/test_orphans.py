"""No orphans, whatever ends a lesson: SIGINT, SIGTERM or SIGKILL, while its servers start,
mid-call, or while it shuts down. Everything it started is gone soon after: 0 processes.

Each case runs one lesson as a user does (``tests/test_exits.py``'s ``Lesson``), sends one
signal at one moment, waits for the lesson to end, then counts what is left of everything
it started. So that nothing escapes the count, the test process is a child subreaper
(``tests/leaks.py``): an orphan of the lesson is reparented to the test, not to PID 1, and
counted as its child whatever its command line.

Every case here runs a lesson or a server as a child process: a signal, an exit code and
an orphan count need one. So the whole file is ``slow``.

The moments:

    start     the first server process exists: it is still starting, before it could set
              up its own watch on its parent (the race the parent-death signal leaves)
    call      a call is under way: s23-s25 a tool call that never returns
              (``--fault docs:--hang-on=search``), s26 the OAuth sign-in (all three of its
              listeners up)
    shutdown  the run's last line is out: the lesson is stopping its servers

s23's stdio servers all run with ``--ignore-eof``: a server that never notices its client
left, so that only the harness's own measures can stop it (the group SIGTERM on a normal
or signalled exit, the parent-death signal after ``kill -9``).

SIGKILL is tried at every moment of every lesson; SIGINT and SIGTERM each at every moment,
spread over the lessons, and SIGHUP (a closed terminal) twice (``tests/test_exits.py``
checks their exit codes and last lines). After those the temporary workspace is gone as
well (TMPDIR is the case's own folder); after SIGKILL it stays, as nothing can catch it.

Also here: a normal close stops a stdio server's whole process group, a helper the server
left running included; the stdio death-signal launcher reports a failed exec as a direct
spawn would; the network servers' lifeline refuses to run without its pipe.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from leaks import Proc, adopting, children, descendants, kill_tree, no_process_left, processes, settle  # noqa: F401  (no_process_left: the fixture)
from limits import RUN
from test_exits import STOP_TIMEOUT, Lesson, kill_strays, lesson_env  # noqa: F401  (kill_strays: the fixture)

from harness.connection import connect
from harness.errors import ServerError
from harness.model import Scenario
from harness.spec import ServerSpec, Timeouts

pytestmark = [pytest.mark.usefixtures("kill_strays", "no_process_left"), pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = RUN  # seconds for a lesson to reach its moment (tests/limits.py)
POLL = 0.005  # seconds between looks at /proc while waiting for the first server process
CARELESS = ("--fault", "docs:--ignore-eof", "--fault", "deploy:--ignore-eof")  # s23: servers that ignore end of input
HANG = ("--fault", "docs:--hang-on=search")

def last_words(lesson: str) -> str:
    """The first line of the scenario's last turn: the transcript's last assistant line, after which the lesson shuts down."""
    return "assistant> " + Scenario.load(ROOT / "lessons" / lesson / "scenario.yaml").turns[-1].text.splitlines()[0]


MOMENTS = {  # lesson -> moment -> (extra arguments, the stdout text that marks the moment; None: the first server process)
    "s23": {"start": (CARELESS, None), "call": (CARELESS + HANG, "-> mcp__docs__search"), "shutdown": (CARELESS, last_words("s23"))},
    "s24": {"start": ((), None), "call": (HANG, "-> mcp__docs__search"), "shutdown": ((), last_words("s24"))},
    "s25": {"start": ((), None), "call": (HANG, "-> mcp__docs__search"), "shutdown": ((), last_words("s25"))},
    "s26": {"start": ((), None), "call": ((), "-> mcp__docs__authenticate"), "shutdown": ((), last_words("s26"))},
}
CASES = [
    *[(lesson, signal.SIGKILL, moment) for lesson in MOMENTS for moment in MOMENTS[lesson]],
    ("s23", signal.SIGINT, "start"), ("s24", signal.SIGINT, "call"), ("s25", signal.SIGINT, "shutdown"), ("s26", signal.SIGINT, "call"),
    ("s23", signal.SIGTERM, "call"), ("s24", signal.SIGTERM, "shutdown"), ("s25", signal.SIGTERM, "start"), ("s26", signal.SIGTERM, "start"),
    ("s24", signal.SIGHUP, "call"), ("s26", signal.SIGHUP, "shutdown"),  # the terminal closed
]


def first_server(lesson: Lesson) -> Proc:
    """The first process below the lesson that is a mock server (or the launcher about to become one)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if lesson.process.poll() is not None:
            break
        found = [p for p in descendants(lesson.process.pid) if "mock_servers" in p.cmdline]
        if found:
            return found[0]
        time.sleep(POLL)  # polling /proc under a deadline: a process start sends no event
    raise AssertionError(f"expected a server process below the lesson within {START_TIMEOUT:g} s\n{lesson.result()}")


def signalled(lesson: str, args: tuple[str, ...], env: dict[str, str], signum: signal.Signals, mark: str | None, moment: str):
    """Run ``lesson``, send ``signum`` at the moment ``mark`` names (None: the first server process), wait for the end.

    Returns whether it still ran when the signal went, its result, and what it left (every
    process it started, orphans included), after which that is killed and reaped.
    """
    before = {p.key for p in processes()}
    with adopting(), Lesson(lesson, *args, env=env) as running:
        try:
            if mark is None:
                first_server(running)
            else:
                running.wait_for_line(mark, START_TIMEOUT)
            ran_on = running.process.poll() is None
            running.process.send_signal(signum)
            result = running.finish(STOP_TIMEOUT, after=f" of {signum.name} ({moment})")
            left = settle(before)
        finally:
            for proc in children():
                if proc.key not in before:
                    kill_tree(int(proc.pid))
            settle(before)  # reaps what was just killed
    return ran_on, result, left


@pytest.mark.parametrize(("lesson", "signum", "moment"), CASES, ids=[f"{les}-{sig.name}-{mom}" for les, sig, mom in CASES])
def test_nothing_outlives_a_stopped_lesson(lesson, signum, moment, tmp_path):
    extra, mark = MOMENTS[lesson][moment]
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = lesson_env(TMPDIR=str(tmp), XDG_STATE_HOME=str(tmp_path / "state"))
    ran_on, result, left = signalled(lesson, extra, env, signum, mark, moment)
    assert ran_on, f"expected the lesson still running when {signum.name} was sent ({moment}), to test that moment\n{result}"
    assert not left, (f"expected 0 processes left after {signum.name} ({moment}) of {lesson}, found {len(left)}:\n"
                      + "\n".join(f"  {p}" for p in left) + f"\n{result}")
    if signum != signal.SIGKILL:
        assert sorted(os.listdir(tmp)) == [], f"expected the temporary workspace removed after {signum.name} ({moment})\n{result}"


def test_a_normal_close_stops_the_server_s_whole_process_group(tmp_path):
    """The server exits on end of input; a helper it started in its group, which ignores that, must not live on."""
    marker = f"helper-of-{tmp_path.name}"
    helper = f"{sys.executable} -c 'import time; time.sleep(60)' {marker}"
    server = f"{sys.executable} -m mock_servers.docs --transport stdio"
    spec = ServerSpec("docs", "stdio", command="sh", args=("-c", f"{helper} & exec {server}"), cwd=str(ROOT))

    async def connect_and_close() -> list[Proc]:
        # A long exit grace: the server surely exits on end of input within it, so only the group stop can reach the helper.
        connection = await connect(spec, timeouts=Timeouts(connect=START_TIMEOUT, exit_grace=START_TIMEOUT))
        try:
            return [p for p in processes() if marker in p.cmdline]
        finally:
            await connection.aclose()

    before = {p.key for p in processes()}
    with adopting():
        try:
            helpers = anyio.run(connect_and_close)
            left = settle(before)
        finally:
            for proc in children():
                if proc.key not in before:
                    kill_tree(int(proc.pid))
            settle(before)  # reaps what was just killed
    assert helpers, "expected the helper to be running while the server was connected"
    assert not left, "expected the helper stopped with its server's process group, found:\n" + "\n".join(f"  {p}" for p in left)


def test_a_server_that_cannot_be_executed_is_named_as_a_direct_spawn_would(tmp_path):
    """The death-signal launcher execs the server; an exec that fails is still `cannot start ...: <reason>`."""
    script = tmp_path / "no-shebang"
    script.write_text("echo hi\n")
    script.chmod(0o755)

    async def attempt() -> str:
        try:
            await connect(ServerSpec("odd", "stdio", command=str(script)), timeouts=Timeouts(connect=START_TIMEOUT))
        except ServerError as exc:
            return str(exc)
        return "connected"

    assert anyio.run(attempt) == f"server 'odd': cannot start `{script}`: Exec format error"


def test_the_lifeline_needs_a_pipe_on_stdin():
    """Run by hand from a terminal (or with stdin at /dev/null), a lifeline would end at once: it refuses instead."""
    result = subprocess.run([sys.executable, "-m", "mock_servers.lifeline", "mock_servers.serve", "docs", "--transport", "http"],
                            cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=START_TIMEOUT)
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", "mock_servers.lifeline: stdin must be a pipe from the parent (its end means the parent is gone)\n"), result
