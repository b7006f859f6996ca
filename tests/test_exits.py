"""Every bad path of every lesson ends in one line, with the promised exit code, and cleanly.

The promise this file checks:

    exit  meaning                                 what the user sees
    0     the run finished                        the transcript
    1     the run stopped on a harness error      the last stdout line is ``error: <message>``
    2     bad usage                               nothing on stdout; one ``error: ...`` line on
                                                  stderr (argparse's own errors: its usage
                                                  block, then one ``code.py: error: ...`` line)
    130   interrupted (SIGINT, Ctrl-C)            the last stdout line is ``error: interrupted``
    143   terminated (SIGTERM)
    129   hung up (SIGHUP: the terminal closed)

and, whatever the path: no ``Traceback`` on stdout or stderr, and no process left behind
(tests/leaks.py): not the lesson, not its stdio servers, not its HTTP servers. Bad usage
is found before anything starts. The paths: bad option values, a missing scenario,
workspace or frames folder, bad ``--fault`` values, a script that calls a tool the pool
does not have, a bad API key, a reader that closes the pipe (``| head -3``), Ctrl-C and
SIGTERM in the middle of a run, an unusable token store.

Most cases run the lesson in this process, through ``main(argv, out)`` (``in_process``):
the exit code is what ``main`` returns or argparse's ``SystemExit`` carries, stdout is
``out``, stderr is what reached this process's stderr. These run as a user runs them,
``python lessons/sNN/code.py [flags]`` in a child process from the repository root with
PYTHONHASHSEED=0 PYTHONUTF8=1 and no Anthropic settings (``Lesson``), because only a
child process can show it:
- a signal (SIGINT, SIGTERM, SIGHUP) sent to the lesson, and the exit code it dies with
  (mid-call: s24's SIGINT and SIGHUP and s23's SIGTERM are checked in tests/test_orphans.py,
  in the runs that count its orphans; the other lessons and signals here);
- a reader that closes the pipe (``| head -3``);
- one bad usage and one harness error, to check that ``sys.exit(main())`` gives the
  process the exit code and the streams that ``main`` gave in process.

Everything is offline: servers and the "API" are on 127.0.0.1; the anthropic client has no
retries (``no_api_retries``). Waits are deadlines on process exit or on a line of output
(``tests/limits.py``), never sleeps.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from cases import LESSONS
from conftest import call_main, load_lesson
from leaks import Proc, kill_tree, no_process_left, processes  # noqa: F401  (no_process_left: the fixture)
from limits import RUN, STOP

ROOT = Path(__file__).resolve().parent.parent
FRAMES_LESSONS = ("s23", "s24", "s25", "s26", "s27")  # the lessons with --frames FILE
FAULT_LESSONS = ("s23", "s24", "s25")  # the lessons with --fault SERVER:FLAG
# Bounds that catch a hang, not a measure of speed (bench/ measures; tests/limits.py scales them).
RUN_TIMEOUT = RUN  # seconds for a whole run, or for a given line of its output
STOP_TIMEOUT = STOP  # seconds from SIGINT or SIGTERM to exit: every server stop is bounded well under this
# Every process a lesson here starts inherits this (the stdio servers do not: the SDK gives
# them a clean environment, but they exit when the lesson's pipe closes). After the leak
# check has reported them, ``kill_strays`` stops the ones a failing lesson left behind.
MARK = f"MCP_COURSE_TEST_EXITS={os.getpid()}-{uuid.uuid4().hex}"


def _marked() -> list[Proc]:
    found = []
    for proc in processes():
        try:
            environ = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue  # gone, or not ours to read
        if MARK.encode() in environ:
            found.append(proc)
    return found


@pytest.fixture
def kill_strays():
    """Stops what a failing lesson left running. Set up before the leak check, so torn down after it."""
    yield
    for proc in _marked():
        try:
            os.kill(int(proc.pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


pytestmark = pytest.mark.usefixtures("kill_strays", "no_process_left")


# --- running a lesson ----------------------------------------------------------------------


def lesson_env(**extra: str) -> dict[str, str]:
    """This environment without Anthropic settings, pinned for determinism, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    name, _, value = MARK.partition("=")
    return {**env, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1", name: value, **extra}


@dataclass(frozen=True)
class Result:
    command: str
    code: int
    stdout: str
    stderr: str
    seconds: float  # from start, or from the signal when one was sent

    @property
    def last_line(self) -> str:
        lines = self.stdout.splitlines()
        return lines[-1] if lines else ""

    def __str__(self) -> str:
        def tail(text: str) -> str:
            return "\n".join(f"    {line}" for line in text.splitlines()[-12:]) or "    (empty)"

        return (f"`{self.command}` exited with {self.code} after {self.seconds:.1f} s\n"
                f"  stdout (last lines):\n{tail(self.stdout)}\n  stderr (last lines):\n{tail(self.stderr)}")


class Lesson:
    """One lesson process. Two threads collect its stdout lines and its stderr, so every wait has a deadline.

    ``head=N`` reads N lines of stdout, then closes the read end, as ``code.py | head -N`` does.
    """

    def __init__(self, lesson: str, *args: str, env: dict[str, str] | None = None, head: int | None = None) -> None:
        self.command = " ".join(["python", f"lessons/{lesson}/code.py", *args])
        self.process = subprocess.Popen(
            [sys.executable, f"lessons/{lesson}/code.py", *args], cwd=ROOT, env=env or lesson_env(),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace")
        self.clock = time.monotonic()
        self._lines: list[str] = []
        self._stderr: list[str] = []
        self._changed = threading.Condition()
        self._stdout_done = False
        self._readers = [threading.Thread(target=self._read_stdout, args=(head,), daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_stdout(self, head: int | None) -> None:
        try:
            with self.process.stdout as stream:  # leaving the block closes our read end
                for line in stream:
                    with self._changed:
                        self._lines.append(line)
                        self._changed.notify_all()
                    if head is not None and len(self._lines) >= head:
                        return
        finally:
            with self._changed:
                self._stdout_done = True
                self._changed.notify_all()

    def _read_stderr(self) -> None:
        with self.process.stderr as stream:
            for line in stream:
                self._stderr.append(line)

    def wait_for_line(self, text: str, timeout: float = RUN_TIMEOUT) -> str:
        """The first stdout line containing ``text``; fails if none comes within ``timeout`` s."""
        def found() -> str | None:
            return next((line for line in self._lines if text in line), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or self._stdout_done, timeout)
            line = found()
        if line is None:
            raise AssertionError(f"expected a line containing {text!r} within {timeout:g} s\n{self.result()}")
        return line

    def send(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the lesson alone (not its servers); later timings count from here."""
        assert self.process.poll() is None, f"expected the run to still be going when {sig.name} is sent\n{self.result()}"
        self.process.send_signal(sig)
        self.clock = time.monotonic()

    def finish(self, timeout: float = RUN_TIMEOUT, after: str = "") -> Result:
        """Wait for the exit; fails (and kills it) if it takes longer than ``timeout`` s."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"expected an exit within {timeout:g} s{after}; it was killed\n{self.result()}") from None
        for reader in self._readers:  # EOF follows the exit unless something the lesson started holds the pipe
            reader.join(5)
        return self.result()

    def result(self) -> Result:
        with self._changed:
            stdout = "".join(self._lines)
        code = self.process.returncode if self.process.returncode is not None else -999
        return Result(self.command, code, stdout, "".join(self._stderr), time.monotonic() - self.clock)

    def stop(self) -> None:
        if self.process.poll() is None:
            kill_tree(self.process.pid)
            self.process.wait()

    def __enter__(self) -> Lesson:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def run(lesson: str, *args: str, env: dict[str, str] | None = None, timeout: float = RUN_TIMEOUT) -> Result:
    """Run one lesson to the end."""
    with Lesson(lesson, *args, env=env) as running:
        return running.finish(timeout)


PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def in_process(capfd, monkeypatch, no_api_retries):
    """``run`` in this process: ``main(argv, out)`` from the repository root, with the child's environment."""
    for name in [k for k in os.environ if k.startswith("ANTHROPIC_") or k in PROXIES]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(ROOT)

    def run_here(lesson: str, *args: str, env: dict[str, str] | None = None) -> Result:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        capfd.readouterr()
        started = time.monotonic()  # for the message only
        code, stdout = call_main(load_lesson(lesson).main, list(args))
        return Result(" ".join(["main", repr([*args]), f"of lessons/{lesson}/code.py"]), code, stdout, capfd.readouterr().err,
                      time.monotonic() - started)

    return run_here


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on: connections to it are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield port


@contextmanager
def silent_api() -> Iterator[str]:
    """A loopback URL that accepts connections and never answers: a model call that hangs."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)  # the kernel completes the handshakes; nobody ever reads the request
        yield f"http://127.0.0.1:{server.getsockname()[1]}"


# --- what each kind of ending looks like -----------------------------------------------------


def assert_no_traceback(result: Result) -> None:
    assert "Traceback" not in result.stdout + result.stderr, f"expected no Traceback anywhere\n{result}"


def assert_bad_usage(result: Result, *named: str) -> str:
    """Exit 2, nothing on stdout, one error line on stderr naming each of ``named``; returns that line."""
    assert result.code == 2, f"expected exit code 2 (bad usage)\n{result}"
    assert result.stdout == "", f"expected nothing on stdout for bad usage\n{result}"
    assert_no_traceback(result)
    lines = result.stderr.splitlines()
    if lines and lines[0].startswith("usage:"):  # argparse's own error: the usage block, then one error line
        *usage, line = lines
        assert all(u.startswith(("usage:", " ")) for u in usage) and re.match(r"^\S+: error: ", line), \
            f"expected argparse's usage block and one `code.py: error: ...` line on stderr\n{result}"
    else:
        assert len(lines) == 1 and lines[0].startswith("error: "), f"expected one `error: ...` line on stderr\n{result}"
        line = lines[0]
    for name in named:
        assert name in line, f"expected the error line to name {name!r}\n{result}"
    return line


def assert_harness_error(result: Result, *named: str) -> str:
    """Exit 1, the transcript's last line ``error: ...`` (its only one) naming each of ``named``."""
    assert result.code == 1, f"expected exit code 1 (a harness error)\n{result}"
    assert_no_traceback(result)
    line = result.last_line
    assert line.startswith("error: "), f"expected the last stdout line to be `error: <message>`\n{result}"
    errors = [x for x in result.stdout.splitlines() if x.startswith("error: ")]
    assert errors == [line], f"expected one `error: ` line, the last, got {errors}\n{result}"
    for name in named:
        assert name in line, f"expected the error line to name {name!r}\n{result}"
    return line


# --- bad usage: exit 2 before anything runs ----------------------------------------------------


@pytest.mark.parametrize("turns", ["0", "-1"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_max_turns_below_one_is_bad_usage(lesson, turns, in_process):
    assert_bad_usage(in_process(lesson, "--max-turns", turns), "--max-turns")


@pytest.mark.slow
def test_bad_usage_is_the_process_s_exit_code_and_stderr():
    """As ``main`` says in process, so says the process: ``sys.exit(main())`` loses nothing."""
    assert_bad_usage(run("s23", "--max-turns", "0"), "--max-turns")


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_missing_scenario_is_bad_usage_naming_its_full_path(lesson, in_process):
    assert_bad_usage(in_process(lesson, "--scenario", "/no/such/dir/x.yaml"), "/no/such/dir/x.yaml")


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_missing_workspace_is_bad_usage(lesson, in_process):
    assert_bad_usage(in_process(lesson, "--workspace", "/no/such/dir"), "/no/such/dir")


@pytest.mark.parametrize("lesson", FRAMES_LESSONS)
def test_frames_into_a_missing_folder_is_refused_before_the_run(lesson, in_process):
    result = in_process(lesson, "--frames", "/no/such/dir/f.jsonl")
    assert_bad_usage(result, "/no/such/dir/f.jsonl")
    assert result.stdout == "", f"expected the refusal before the run prints anything (no server started)\n{result}"


@pytest.mark.parametrize(("fault", "named"), [
    ("nocolon", "nocolon"),  # no SERVER: part
    ("jira:--hang-on=x", "jira"),  # a server the lesson does not have
    ("docs:--no-such-flag", "--no-such-flag"),  # a flag mock_servers/serve.py does not have
])
@pytest.mark.parametrize("lesson", FAULT_LESSONS)
def test_a_bad_fault_is_bad_usage_naming_the_value(lesson, fault, named, in_process):
    assert_bad_usage(in_process(lesson, "--fault", fault), named)


@pytest.mark.parametrize(("lesson", "fault", "named"), [
    ("s23", "docs:--help", "--help is not a fault flag"),  # was a traceback (argparse's help is no error line)
    ("s23", "docs:--slow-start=nan", "must be 0 or more seconds"),  # was a crash of the server at start
    ("s23", "docs:--exit-at-start=300", "must be from 0 to 255"),  # the exit code would wrap to 44
    ("s23", "docs:--hang-on=", "expected a tool name"),
    ("s23", "docs:--transport=http", "the lesson sets the transport and port"),  # was a stdio server speaking HTTP: a hang
    ("s25", "deploy:--tr=sse", "the lesson sets the transport and port"),  # argparse reads --tr as --transport
    ("s24", "docs:--port=1", "the lesson sets the transport and port"),
])
def test_a_fault_the_lesson_cannot_take_is_bad_usage(lesson, fault, named, in_process):
    assert_bad_usage(in_process(lesson, "--fault", fault), fault, named)


def test_a_token_store_that_is_a_file_is_bad_usage(tmp_path, in_process):
    store = tmp_path / "store"
    store.write_text("")
    assert_bad_usage(in_process("s26", "--token-store", str(store)), "--token-store")


# --- harness errors: exit 1, the last line says why ---------------------------------------------


def test_a_script_calling_a_tool_of_a_server_that_never_joined_is_a_harness_error(in_process):
    result = in_process("s23", "--fault", "docs:--exit-at-start=4", "--scenario", "lessons/s23/faults.yaml")
    assert_harness_error(result, "mcp__docs__search")


@pytest.mark.parametrize("lesson", FRAMES_LESSONS)
def test_a_script_calling_an_unknown_tool_is_a_harness_error(lesson, tmp_path, in_process):
    assert_harness_error(in_process(lesson, "--scenario", str(unknown_tool(tmp_path))), "no_such_tool")


def unknown_tool(folder: Path) -> Path:
    scenario = folder / "unknown_tool.yaml"
    scenario.write_text("prompt: hi\nturns:\n  - tool_calls:\n      - name: no_such_tool\n  - text: done\n")
    return scenario


@pytest.mark.slow
def test_a_harness_error_is_the_process_s_exit_code_and_last_line(tmp_path):
    """As ``main`` says in process, so says the process, its stdio servers stopped."""
    assert_harness_error(run("s23", "--scenario", str(unknown_tool(tmp_path))), "no_such_tool")


@pytest.mark.parametrize("lesson", ["s19", "s23", "s26"])
def test_a_bad_api_key_is_a_harness_error(lesson, in_process):
    with closed_port() as port:
        result = in_process(lesson, "--live", env={"ANTHROPIC_API_KEY": "sk-bad", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"})
    assert_harness_error(result, "Anthropic API")


def test_a_corrupt_token_store_is_a_harness_error_naming_the_file(tmp_path, in_process):
    store = tmp_path / "store"
    first = in_process("s26", "--token-store", str(store))
    assert first.code == 0, f"expected a clean first run to fill the token store\n{first}"
    files = sorted(store.glob("*.json"))
    assert files, f"expected the first run to leave a *.json file in {store}, found {list(store.iterdir())}"
    for file in files:
        file.write_text("{not json")
    second = in_process("s26", "--token-store", str(store))
    new = sorted(f.name for f in set(store.glob("*.json")) - set(files))
    assert not new, (f"expected the second run to read the first run's store file {[f.name for f in files]}, but it signed "
                     f"in afresh into {new}: the file name (the store's key) changes from one run to the next\n{second}")
    line = assert_harness_error(second)
    assert any(file.name in line for file in files), f"expected the error to name one of {[f.name for f in files]}: {line}"


# --- the reader leaves, the user interrupts, the system terminates --------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("lesson", ["s23", "s24", "s26"])
def test_a_reader_that_leaves_early_ends_the_run_quietly(lesson):
    """``code.py --wire | head -3``: the lesson's next write fails; it must stop, not crash or hang."""
    with Lesson(lesson, "--wire", head=3) as running:
        result = running.finish(after=" of its reader closing the pipe after 3 lines")
    assert result.stdout.count("\n") >= 3, f"expected 3 lines before the reader left\n{result}"
    assert "Traceback" not in result.stderr, f"expected no Traceback on stderr\n{result}"


ENDINGS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated"), signal.SIGHUP: (129, "hung up")}
# A signal mid-call in every lesson with --fault: SIGINT and SIGTERM in each, SIGHUP (the terminal closed) once. The
# runs that tests/test_orphans.py makes anyway (s24 SIGINT, s23 SIGTERM, s24 SIGHUP) check the ending there too.
MID_CALL = [("s23", signal.SIGINT), ("s24", signal.SIGTERM), ("s25", signal.SIGINT), ("s25", signal.SIGTERM)]


@pytest.mark.slow
@pytest.mark.parametrize(("lesson", "signum"), MID_CALL, ids=[f"{lesson}-{signum.name}" for lesson, signum in MID_CALL])
def test_a_signal_during_a_hung_call_stops_everything_with_its_code(lesson, signum):
    code, word = ENDINGS[signum]
    with Lesson(lesson, "--fault", "docs:--hang-on=search") as running:
        running.wait_for_line("-> mcp__docs__search")
        running.send(signum)
        result = running.finish(STOP_TIMEOUT, after=f" of {signum.name}")
    assert result.code == code, f"expected exit code {code} ({word}), not death by the signal\n{result}"
    assert result.last_line == f"error: {word}", f"expected the last stdout line `error: {word}`\n{result}"
    assert_no_traceback(result)


@pytest.mark.slow
def test_sigterm_during_an_oauth_run_exits_143():
    """s26 has no fault switch, so the model hangs instead: a loopback "API" that never answers.

    The run cannot end on its own, so the signal always lands mid-run, after the first
    `-> ` line (the protected server's 401) and with the OAuth server up.
    """
    with silent_api() as url:
        env = lesson_env(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=url)
        with Lesson("s26", "--live", env=env) as running:
            running.wait_for_line("-> ")
            running.send(signal.SIGTERM)
            result = running.finish(STOP_TIMEOUT, after=" of SIGTERM")
    assert result.code == 143, f"expected exit code 143 (terminated), not death by the signal\n{result}"
    assert_no_traceback(result)


@pytest.mark.parametrize("lesson", ["s24", "s25"])
def test_a_network_server_that_cannot_start_costs_only_itself(lesson, in_process):
    """As s23 does for stdio: deploy's HTTP server exits at start; docs still serves the run."""
    result = in_process(lesson, "--fault", "deploy:--exit-at-start=4", "--scenario", str(ROOT / "lessons/s23/faults.yaml"))
    assert result.code == 0, f"expected the run to go on with docs (exit 0)\n{result}"
    assert "deploy server did not start: server 'deploy': exited with code 4" in result.stdout, result
    assert "<! server 'deploy': exited with code 4" in result.stdout, f"expected connect_mcp to say why deploy is down\n{result}"
    assert "<- deploy: The deploy service promotes" in result.stdout, f"expected docs to answer\n{result}"
    assert_no_traceback(result)
