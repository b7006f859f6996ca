"""tests/forkserver.py: a forked mock server looks to its spawner as a spawned interpreter does.

The suite's stdio mock servers are forks of one warm parent; these tests hold the launcher
to what the harness and the other tests rely on: the same answers, the same exit code, the
same end by signal, no child outliving a ``kill -9`` of its launcher, and no redirect of a
command the parent has not loaded. The launchers here are real child processes, spawned
with ``subprocess`` as the harness's transport spawns them, because what is tested is what
a process sees.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import forkserver
import pytest
from conftest import ROOT
from leaks import no_process_left, ours  # noqa: F401  (the fixture)
from limits import scaled

pytestmark = pytest.mark.usefixtures("no_process_left")

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture(autouse=True)
def a_parent():
    if forkserver.parent_pid() is None:  # started after collection, so not a skipif
        pytest.skip("no fork server in this process (MCP_COURSE_TEST_FORK=0, or not Linux)")


def launched(*args: str, flag: str = "-m", env: dict | None = None) -> subprocess.Popen:
    argv = forkserver.redirect([sys.executable, flag, *args], str(ROOT), env)
    assert argv[3:5] == [os.path.abspath(forkserver.__file__), "launch"], argv
    return subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})


def forked_children() -> list:
    return [p for p in ours() if p.ppid == str(forkserver.parent_pid()) and p.state != "Z"]


def until(condition, what: str) -> None:
    end = time.monotonic() + scaled(10)
    while not condition():
        assert time.monotonic() < end, f"expected {what} within {scaled(10):g} s"
        time.sleep(0.02)


def test_a_forked_server_answers_and_ends_on_end_of_input():
    process = launched("mock_servers.docs", "--transport", "stdio")
    out, err = process.communicate(json.dumps(INITIALIZE).encode() + b"\n", timeout=scaled(20))
    answer = json.loads(out.decode().splitlines()[0])
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "docs", answer
    assert process.returncode == 0, err


@pytest.mark.parametrize("value, code", [("yes", 0), ("no", 1)])
def test_a_c_program_runs_with_the_launchers_environment(value, code):
    program = ("import os, runpy, sys; assert os.environ.get('CHECKED') == 'yes', 'CHECKED'; "
               "sys.argv = ['docs', '--transport', 'stdio']; runpy.run_module('mock_servers.docs', run_name='__main__')")
    process = launched(program, flag="-c", env={"CHECKED": value})
    out, err = process.communicate(json.dumps(INITIALIZE).encode() + b"\n", timeout=scaled(20))
    assert process.returncode == code, err
    if code == 0:
        assert json.loads(out.decode().splitlines()[0])["result"]["serverInfo"]["name"] == "docs"
    else:
        assert err.decode().rstrip().endswith("AssertionError: CHECKED"), err


def test_the_exit_code_and_stderr_are_the_servers():
    process = launched("mock_servers.deploy", "--transport", "stdio", "--exit-at-start", "7")
    out, err = process.communicate(timeout=scaled(20))
    assert process.returncode == 7
    assert err.decode() == "deploy: exiting at start with code 7 (--exit-at-start)\n"


def test_a_usage_error_exits_2_naming_the_module():
    process = launched("mock_servers.docs", "--transport", "pigeon")
    _, err = process.communicate(timeout=scaled(20))
    assert process.returncode == 2
    assert "invalid choice: 'pigeon'" in err.decode(), err


def test_sigterm_reaches_the_server_and_the_launcher_ends_by_it():
    process = launched("mock_servers.docs", "--transport", "stdio", "--ignore-eof")
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    assert process.stdout.readline(), "expected the initialize answer"
    process.stdin.close()  # --ignore-eof: it runs on; only a signal stops it
    until(lambda: forked_children(), "the forked server running")
    process.send_signal(signal.SIGTERM)
    assert process.wait(scaled(20)) == -signal.SIGTERM
    until(lambda: not forked_children(), "the forked server gone")
    process.stdout.close()
    process.stderr.close()


def test_a_signal_goes_on_to_the_server_which_may_ignore_it():
    # The server ignores SIGTERM: the launcher must hand the signal on, not die of it, and
    # end as the server does, here on the end of its input (code 0). A launcher that let
    # SIGTERM kill it would end with -15 at once, however late stdin closes.
    program = ("import runpy, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
               "sys.argv = ['docs', '--transport', 'stdio']; runpy.run_module('mock_servers.docs', run_name='__main__')")
    process = launched(program, flag="-c")
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    assert process.stdout.readline(), "expected the initialize answer"
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=scaled(20))
    assert process.returncode == 0, err


def test_a_kill_9_of_the_launcher_ends_the_server():
    process = launched("mock_servers.docs", "--transport", "stdio", "--ignore-eof")
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    assert process.stdout.readline(), "expected the initialize answer"
    until(lambda: forked_children(), "the forked server running")
    process.kill()
    assert process.wait(scaled(20)) == -signal.SIGKILL
    until(lambda: not forked_children(), "the forked server gone after its launcher's kill -9")
    for stream in (process.stdin, process.stdout, process.stderr):
        stream.close()


def test_a_network_server_is_a_fork_that_ends_with_its_lifeline():
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from mock_servers.launch import serve_http

    async def main():
        async with serve_http("docs", "http") as url:
            assert forked_children(), "expected the http server to be a fork of the parent"
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                assert (await session.initialize()).server_info.name == "docs"

    anyio.run(main)
    until(lambda: not forked_children(), "the forked http server gone once serve_http left")


@pytest.mark.parametrize("argv, cwd, env", [
    (["-m", "mock_servers.hostile", "--transport", "stdio"], ROOT, None),  # not loaded: it starts helpers of its own
    (["-u", "-m", "mock_servers.docs"], ROOT, None),  # an interpreter flag
    (["-m", "mock_servers.docs"], ROOT.parent, None),  # another folder: another mock_servers, maybe
    (["-m", "mock_servers.docs"], ROOT, {"PYTHONPATH": "/elsewhere"}),  # its own import path
    (["/tmp/exercise/mock_servers/docs.py"], ROOT, None),  # an exercise's edited copy
    (["-c", "import mock_servers.docs; print('no run_module')"], ROOT, None),
], ids=["hostile", "flag", "cwd", "pythonpath", "copy", "script"])
def test_only_what_the_parent_loaded_is_redirected(argv, cwd, env):
    assert forkserver.redirect([sys.executable, *argv], str(cwd), env) == [sys.executable, *argv]
    assert forkserver.redirect(["/usr/bin/python3", "-m", "mock_servers.docs"], str(ROOT), None)[0] == "/usr/bin/python3"


def test_a_catalog_file_path_is_redirected_too():
    argv = forkserver.redirect([sys.executable, str(ROOT / "mock_servers" / "deploy.py"), "--transport", "stdio"], str(ROOT), None)
    assert argv[4:] == ["launch", argv[5], "-m", "mock_servers.deploy", "--transport", "stdio"], argv
