"""A stdio server's helper that leaves its process group (``setsid``) is stopped with it (issue 18, item 15).

Over the whole connection's life: the hostile server forks a helper into a session of its
own at start; after ``aclose`` the helper is gone, found by the environment marker each
server is spawned with (``harness.transports.stdio``). A process that never carried the
marker is left alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import STEP, STOP
from limits import TIMEOUTS as LIMITS

from harness.connection import Connections
from harness.spec import ServerSpec
from harness.transports.stdio import MARKER, marked

pytestmark = [pytest.mark.usefixtures("no_process_left"),
              pytest.mark.skipif(sys.platform != "linux", reason="the marker is read from /proc")]
TIMEOUTS = replace(LIMITS, exit_grace=0.25, kill_grace=2)  # the default graces


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:][:1] != "Z"


def test_a_setsid_helper_is_stopped_with_its_server(tmp_path: Path) -> None:
    pidfile = tmp_path / "helper.pid"
    spec = ServerSpec("hostile", "stdio", command=sys.executable, cwd=str(ROOT),
                      args=("-m", "mock_servers.hostile", "--transport", "stdio", "--setsid-child", str(pidfile)))

    async def run() -> int:
        async with Connections(timeouts=TIMEOUTS) as conns:
            conn = await conns.open(spec)
            helper = int(pidfile.read_text())
            assert alive(helper), "the helper runs while its server does"
            assert os.getsid(helper) == helper, "the helper left the server's session"
            await conn.aclose()
        return helper

    helper = anyio.run(run)
    deadline = time.monotonic() + STOP
    while alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(helper), f"expected the setsid helper {helper} to be stopped with its server"


def test_only_marked_processes_are_found() -> None:
    stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env={**os.environ, MARKER: "someone-else"})
    try:
        deadline = time.monotonic() + STEP  # /proc shows the new environment once the child has exec'd
        while stray.pid not in marked("someone-else") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stray.pid in marked("someone-else")
        assert stray.pid not in marked("ours"), "a process with another marker is not ours"
    finally:
        stray.send_signal(signal.SIGKILL)
        stray.wait()
