"""tests/leaks.py itself: it counts the processes of its own session, and only those.

A small test file runs in a child pytest (a session of its own, no xdist), beside a stray
"server" that the child did not start: an orphan named like ``mock_servers.docs``, as
another checkout's suite can leave on a shared machine. The child's leak check must ignore
the stray, and must still fail a test that orphans a process of its own. One child
process, because a session is what is being tested.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from leaks import PR_SET_CHILD_SUBREAPER, kill_tree, no_process_left, processes, subreaper  # noqa: F401  (the fixture)
from limits import RUN

pytestmark = pytest.mark.usefixtures("no_process_left")
TESTS = Path(__file__).resolve().parent
SLEEPER = "import sys, time; time.sleep(float(sys.argv[1]))"
NAMED = ("-m", "mock_servers.docs", "--transport", "stdio")  # what the stray's command line shows after the script

INNER_CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import leaks

def pytest_configure(config):
    problem = leaks.install()
    assert problem is None, problem
"""

INNER_TESTS = f"""
import os, signal, subprocess, sys
import pytest
from leaks import no_process_left

def test_a_stray_of_another_session_is_ignored(no_process_left):
    assert os.path.exists(f"/proc/{{os.environ['STRAY_PID']}}"), "the stray runs all through this test"

@pytest.fixture
def stop_the_leak():
    leaked = []
    yield leaked  # torn down after the leak check has looked
    for pid in leaked:
        os.kill(pid, signal.SIGKILL)

def test_an_orphan_of_ours_is_a_leak(stop_the_leak, no_process_left):
    # The shell starts a server in the background and exits: its orphan is adopted by this session.
    line = f"{{sys.executable}} -c {SLEEPER!r} 600 {' '.join(NAMED)} >/dev/null 2>&1 & echo $!"
    stop_the_leak.append(int(subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True).stdout))
"""


@contextmanager
def not_a_subreaper() -> Iterator[None]:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


@pytest.mark.slow
def test_the_check_ignores_another_session_s_server_and_catches_its_own(tmp_path):
    if not subreaper():
        pytest.skip("this session is not a child subreaper")
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    # The stray: an orphan (its shell exits) adopted by PID 1 or by the nearest subreaper above this
    # process (xdist's controller), as another checkout's server is: never by the child session.
    line = f"{sys.executable} -c {SLEEPER!r} 600 {' '.join(NAMED)} >/dev/null 2>&1 & echo $!"
    with not_a_subreaper():
        stray = int(subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True, timeout=RUN).stdout)
    try:
        # A slack of 0.5 for the child: its leak check waits REAP (1 s, not 10) before it reports our own orphan,
        # a sleeper of 600 s that is still there however long it waits; the stray is never counted at all.
        env = {**os.environ, "STRAY_PID": str(stray), "MCP_COURSE_TEST_SLACK": "0.5"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-c", os.devnull,
                               "--rootdir", str(tmp_path), str(tmp_path / "test_inner.py")],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN)
        assert any(p.pid == str(stray) for p in processes()), "the stray outlived the child session"
    finally:
        kill_tree(stray)
    report = done.stdout + done.stderr
    # The check fails the leaking test in its teardown: pytest reports that as an error of the test.
    assert "2 passed, 1 error" in report, f"expected the stray ignored and our own orphan caught:\n{report}"
    assert "ERROR test_inner.py::test_an_orphan_of_ours_is_a_leak" in report, report
    assert "expected no process left by the test, found:" in report and "mock_servers.docs" in report, report
    assert str(stray) not in report.split("expected no process left by the test, found:")[1], f"the stray was blamed:\n{report}"
