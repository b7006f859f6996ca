"""Shared helpers: run a lesson in process, exactly as ``python lessons/sNN/code.py`` would.

Set up for the whole session (each xdist worker too):
- the warm parent that forks the stdio mock servers (``tests/forkserver.py``);
- the leak check's subreaper (``tests/leaks.py``), so it counts only this session's processes;
- the time limit of one test, ``limits.TEST``, unless ``--timeout`` or PYTEST_TIMEOUT gives one;
- hypothesis without its deadline per example (200 ms: a speed check that a busy machine fails);
- ``XDG_STATE_HOME`` a folder of the session's own, removed at its end, so nothing a test runs
  (tokens, spilled output, the CLI's completion cache) lands in the user's state folder;
and the ``slow`` marker (pyproject.toml): a test that starts child processes (servers,
lessons, the CLI). Every test that uses the leak check (``no_process_left``) gets it here;
others carry it by hand. ``pytest -m "not slow"`` is the fast lane: no child process.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import forkserver  # noqa: E402  (needs the path above)
import leaks  # noqa: E402
import limits  # noqa: E402


@pytest.hookimpl(tryfirst=True)  # before pytest-timeout reads its setting
def pytest_configure(config):
    if config.getoption("timeout", None) is None and not os.environ.get("PYTEST_TIMEOUT"):
        config.option.timeout = limits.TEST
    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")
    state = tempfile.mkdtemp(prefix="mcp-course-tests-state.")
    os.environ["XDG_STATE_HOME"] = state
    config.add_cleanup(lambda: shutil.rmtree(state, ignore_errors=True))
    problem = leaks.install()
    if problem is not None:
        sys.stderr.write(f"tests/leaks.py: {problem}; orphans of the tests will not be counted\n")


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker a core, and two more.

    Many slow tests wait on a child with the CPU idle: a lesson reaching the phase a signal
    is sent in, a grace before SIGKILL, a server's shutdown. Two more workers fill those
    waits. On 2 cores, the whole suite took 150 s with 2 workers and 128 s with 4, one run
    after the other on the same machine. The fast lane (``-m "not slow"``) starts no child, so it
    has no wait to fill: a worker a core (16 s, against 20 s with 4).
    """
    cores = os.cpu_count() or 1
    return cores if "not slow" in (config.option.markexpr or "") else cores + 2


def pytest_collection_finish(session):
    """Start the fork server in a process that will run a slow test (an xdist worker, or pytest without workers)."""
    config = session.config
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the xdist controller runs no test
    if forkserver.enabled() and any(item.get_closest_marker("slow") for item in session.items):
        forkserver.start(os.environ["XDG_STATE_HOME"])
        forkserver.install()
        config.add_cleanup(forkserver.stop)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "no_process_left" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def load_lesson(lesson: str):
    path = ROOT / "lessons" / lesson / "code.py"
    spec = importlib.util.spec_from_file_location(f"lesson_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_lesson(lesson: str, *argv: str) -> tuple[int, str]:
    """The lesson's exit code and transcript, with placeholders for ports and paths (as pinned)."""
    out = io.StringIO()
    code = load_lesson(lesson).main([*argv, "--deterministic"], out)
    return code, out.getvalue()


def call_main(main, argv: list[str]) -> tuple[int, str]:
    """``main(argv, out)`` as its process would end: the exit code (argparse's ``SystemExit`` too) and stdout.

    What goes to ``sys.stdout`` (argparse's --help) is part of stdout; ``sys.stderr`` is the
    caller's to read (``capfd``/``capsys``).
    """
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(argv, out)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    return code, out.getvalue()


@pytest.fixture
def spawned():
    """For a test about a server's own process (its sockets, its listeners): its servers are not forks (tests/forkserver.py)."""
    with forkserver.paused():
        yield


@pytest.fixture
def lesson_runner():
    return run_lesson


@pytest.fixture
def no_api_retries(monkeypatch):
    """The anthropic client without its retries (two, with backoff: about 10 s against a closed port)."""
    import anthropic

    monkeypatch.setattr(anthropic, "AsyncAnthropic", functools.partial(anthropic.AsyncAnthropic, max_retries=0))
