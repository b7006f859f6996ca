"""s28, the lifecycle: backoff, respawn, reconnect on next use and by hand, named timeouts, limits per kind.

The waits go through an injected clock (``Clock.sleep``), so a backoff schedule runs at
once; the servers are real stdio processes (``mock_servers.deploy``), because respawning
a process is what is being tested.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from harness import config
from harness.connection import Connections
from harness.errors import ServerError, ToolError
from harness.hub import Hub, offered
from harness.lifecycle import Backoff, Supervisor, show
from harness.results import ToolResult, text_block
from harness.spec import ServerSpec, State, Timeouts
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import STEP, TIMEOUTS, scaled

ROOT = Path(__file__).resolve().parent.parent
QUICK = TIMEOUTS  # for servers of a case that is not about a timeout


class Clock:
    """A clock for reconnect waits: records each wait and returns at once (or runs ``then``)."""

    def __init__(self, then=None) -> None:
        self.waits: list[float] = []
        self.then = then  # called with the number of the wait, before it returns

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.then is not None:
            await self.then(len(self.waits))
        await anyio.lowlevel.checkpoint()


def states(transcript: Transcript, server: str) -> list[tuple[str | None, str]]:
    return [(e["old"], e["new"]) for e in transcript.events if e["kind"] == "state" and e["server"] == server]


def reasons(transcript: Transcript, server: str) -> list[str]:
    return [e["reason"] for e in transcript.events if e["kind"] == "state" and e["server"] == server]


def deploy_config(*flags: str) -> config.ServerConfig:
    """The deploy mock server as a config entry would give it, ``${VAR}`` left for expansion."""
    entry = {"command": "${PY}", "args": ["-m", "mock_servers.deploy", "--transport", "stdio", *flags], "cwd": str(ROOT)}
    [server] = config.parse_servers({"deploy": entry}, "project", ".mcp.json", "claude-code")
    return server


def pid(conn) -> int:
    return conn.context.process.popen.pid


async def trigger(client) -> ToolResult:
    return await client.call_tool("trigger", {"service": "web"})


def test_backoff_doubles_from_one_second_to_the_cap_and_gives_up_after_five():
    assert Backoff().schedule() == [1, 2, 4, 8, 16]
    assert Backoff(first=5, cap=12, attempts=4).schedule() == [5, 10, 12, 12]
    assert Backoff()(6, ServerError("x")) is None


@pytest.mark.usefixtures("no_process_left")
def test_a_crashed_stdio_server_is_spawned_again_after_the_wait_and_the_hub_shows_each_step():
    clock, environ = Clock(), {"PY": sys.executable}
    shown = []

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=QUICK) as conns, Hub(transcript, on_change=shown.append) as hub:
            server = deploy_config("--crash-after", "1")
            config.add_to(hub, [server], lambda s: config.connector(s, conns, environ, mechanisms=lambda: [Supervisor(Backoff(), clock.sleep)]))
            conn = (await hub.connect("deploy")).client
            first = pid(conn)
            assert "dep-" in (await trigger(conn)).text()
            with pytest.raises(ToolError, match="connection lost: the server exited with code 3"):
                await trigger(conn)
            # Decided where the failure was seen: pending at once, tools still offered.
            assert hub.entries["deploy"].state is State.PENDING and "deploy" in hub.clients
            with anyio.fail_after(STEP):
                while hub.entries["deploy"].state is not State.CONNECTED:
                    await anyio.sleep(0.02)
            assert pid(conn) != first
            assert "dep-" in (await trigger(conn)).text()
        assert clock.waits == [1.0]
        assert states(transcript, "deploy") == [
            (None, "pending"), ("pending", "connected"), ("connected", "failed"), ("failed", "pending"),
            ("pending", "connected"), ("connected", "closed")]
        assert reasons(transcript, "deploy")[3] == "retry 1 in 1 s"

    anyio.run(main)
    assert len(shown) == 6


@pytest.mark.usefixtures("no_process_left")
def test_each_respawn_expands_the_variables_again_and_a_missing_one_fails_that_attempt_by_name():
    environ = {"PY": sys.executable}

    async def restore(wait: int) -> None:
        if wait == 2:
            environ["PY"] = sys.executable  # the user fixes the environment while the hub waits

    clock = Clock(then=restore)

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=QUICK) as conns, Hub(transcript) as hub:
            config.add_to(hub, [deploy_config("--crash-after", "0")],
                          lambda s: config.connector(s, conns, environ, mechanisms=lambda: [Supervisor(Backoff(), clock.sleep)]))
            conn = (await hub.connect("deploy")).client
            del environ["PY"]
            with pytest.raises(ToolError, match="connection lost"):
                await trigger(conn)
            with anyio.fail_after(STEP):
                while hub.entries["deploy"].state is not State.CONNECTED:
                    await anyio.sleep(0.02)
        assert clock.waits == [1.0, 2.0]
        failed = [r for (old, new), r in zip(states(transcript, "deploy"), reasons(transcript, "deploy")) if new == "failed"]
        assert "PY" in failed[1] and "variable" in failed[1], failed

    anyio.run(main)


@pytest.mark.usefixtures("no_process_left")
def test_after_giving_up_the_tools_leave_the_pool_and_the_next_call_reconnects():
    environ = {"PY": sys.executable}
    clock = Clock()

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=QUICK) as conns, Hub(transcript) as hub:
            config.add_to(hub, [deploy_config("--crash-after", "0")],
                          lambda s: config.connector(s, conns, environ, mechanisms=lambda: [Supervisor(Backoff(attempts=2), clock.sleep)]))
            conn = (await hub.connect("deploy")).client
            del environ["PY"]
            with pytest.raises(ToolError):
                await trigger(conn)
            def gave_up() -> bool:
                return any("gave up after 2 attempts to reconnect" in e.get("text", "") for e in transcript.events)

            with anyio.fail_after(STEP):
                while not (hub.entries["deploy"].state is State.FAILED and len(clock.waits) == 2 and gave_up()):
                    await anyio.sleep(0.02)  # polling under a deadline: the hub has no event for "gave up"
            assert hub.entries["deploy"].state is State.FAILED and "deploy" not in hub.clients
            environ["PY"] = sys.executable
            with pytest.raises(ToolError, match="connection lost"):  # the next use reconnects, and this server crashes again
                await trigger(conn)
            with anyio.fail_after(STEP):
                while len(clock.waits) < 3:
                    await anyio.sleep(0.02)
            assert clock.waits == [1.0, 2.0, 1.0]  # revived: the policy counts afresh

    anyio.run(main)


@pytest.mark.usefixtures("no_process_left")
def test_a_call_during_the_wait_reconnects_at_once():
    async def forever(wait: int) -> None:
        await anyio.sleep_forever()  # a real 30 s wait, as far as this test cares

    clock = Clock(then=forever)

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=QUICK) as conns, Hub(transcript) as hub:
            config.add_to(hub, [deploy_config("--crash-after", "1")],
                          lambda s: config.connector(s, conns, {"PY": sys.executable}, mechanisms=lambda: [Supervisor(Backoff(), clock.sleep)]))
            conn = (await hub.connect("deploy")).client
            await trigger(conn)
            with pytest.raises(ToolError):
                await trigger(conn)
            with anyio.fail_after(STEP):
                assert "dep-" in (await trigger(conn)).text()  # waits for no backoff
            assert hub.entries["deploy"].state is State.CONNECTED

    anyio.run(main)


@pytest.mark.usefixtures("no_process_left")
def test_reconnect_by_hand_spawns_a_healthy_server_again_and_a_never_policy_means_never():
    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=QUICK) as conns, Hub(transcript) as hub:
            config.add_to(hub, [deploy_config()], lambda s: config.connector(s, conns, {"PY": sys.executable}))
            conn = (await hub.connect("deploy")).client
            first = pid(conn)
            entry = await hub.reconnect("deploy")
            assert entry.state is State.CONNECTED and entry.client is conn and pid(conn) != first
            assert states(transcript, "deploy")[-2:] == [("connected", "pending"), ("pending", "connected")]

            crashing = deploy_config("--crash-after", "0")
            spec = config.expand(crashing.spec, {"PY": sys.executable})
            hub.add("once", conns.connector(ServerSpec("once", "stdio", spec.command, spec.args, cwd=spec.cwd)))
            once = (await hub.connect("once")).client
            with pytest.raises(ToolError, match="connection lost"):
                await trigger(once)
            with pytest.raises(ToolError, match="not connected"):  # the default policy: no reconnect, not even on use
                await trigger(once)
            assert hub.entries["once"].state is State.FAILED
            assert (await hub.reconnect("once")).state is State.CONNECTED  # by hand it does

    anyio.run(main)


# --- named timeouts ------------------------------------------------------------------------


def _progress_server(timeouts: Timeouts) -> ServerSpec:
    return ServerSpec("progress", "stdio", command=sys.executable, args=("tests/servers/progress.py",), cwd=str(ROOT))


@pytest.mark.usefixtures("no_process_left")
def test_progress_restarts_the_call_timeout_and_silence_names_the_timeout_and_its_setting():
    [server] = config.parse_servers({"progress": {"command": "python", "timeout": 1}}, "file", "cline_mcp_settings.json", "cline")
    # The subject is the call timeout, so it is short; the gap between two progress reports is
    # half of it. Both scale with the slack, so a busy machine cannot stretch a gap past it.
    call = scaled(0.6)
    timeouts = Timeouts(connect=TIMEOUTS.connect, list=TIMEOUTS.list, call=call, exit_grace=0.2, kill_grace=1, settings=server.timeouts.settings)

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=timeouts) as conns:
            conn = await conns.open(_progress_server(timeouts))
            # 1.5 times the call timeout in all, never silent for half of it: it ends a whole gap after an unrestarted timeout.
            result = await conn.call_tool("work", {"steps": 3, "every": call / 2})
            assert result.text() == "done after 3 steps"
            with pytest.raises(ToolError) as caught:
                await conn.call_tool("quiet", {"seconds": 60})
            assert str(caught.value) == (f"server 'progress': tool 'quiet': no answer within {call:g} s (call timeout; change it "
                                         "with \"timeout\" (seconds) for server 'progress' in cline_mcp_settings.json)")
            assert conn.state is State.CONNECTED  # a slow tool is not a dead server
        progress = [e["text"] for e in transcript.events if "progress" in e.get("text", "")]
        assert progress == [f"progress: work: progress {n}/3: step {n}" for n in range(1, 4)]

    anyio.run(main)


@pytest.mark.usefixtures("no_process_left")
def test_a_server_hanging_at_start_costs_only_its_own_connect_timeout_and_its_error_says_which():
    environ = {"PY": sys.executable}
    entries = {name: {"command": "${PY}", "args": ["-m", f"mock_servers.{module}", "--transport", "stdio", *flags],
                      "cwd": str(ROOT), **extra}
               for name, module, flags, extra in [
                   ("slow", "docs", ["--slow-start", "60"], {"timeouts": {"connect": 2}}),
                   ("docs", "docs", [], {}), ("deploy", "deploy", [], {}), ("docs2", "docs", [], {})]}
    servers = config.parse_servers(entries, "project", ".mcp.json", "claude-code")

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns, Hub(transcript) as hub:
            config.add_to(hub, servers, lambda s: config.connector(s, conns, environ))
            with anyio.fail_after(STEP):  # a hang; the error below says the slow one's own 2 s ended it, not its 60 s
                await hub.connect_all()
            assert [hub.entries[n].state for n in ("docs", "deploy", "docs2")] == [State.CONNECTED] * 3
            error = str(hub.entries["slow"].error)
            assert "no answer to initialize within 2 s (connect timeout; change it with " \
                   "\"timeouts\": {\"connect\": SECONDS} for server 'slow' in .mcp.json)" in error

    anyio.run(main)


@pytest.mark.usefixtures("no_process_left")
def test_a_tools_list_that_never_comes_fails_the_connect_naming_the_list_timeout():
    spec = ServerSpec("slow", "stdio", command=sys.executable, args=("tests/servers/slow_list.py", "60"), cwd=str(ROOT))
    timeouts = Timeouts(connect=TIMEOUTS.connect, list=0.5, exit_grace=0.2, kill_grace=1, settings={"list": "--list-timeout"})

    async def main():
        async with Connections(timeouts=timeouts) as conns:
            with pytest.raises(ServerError) as caught:
                await conns.open(spec)
        assert "no answer to tools/list within 0.5 s (list timeout; change it with --list-timeout)" in str(caught.value)

    anyio.run(main)


# --- limits per kind ----------------------------------------------------------------------


class Slow:
    """An in-process server that takes a moment to connect; counts how many connect at once per kind."""

    def __init__(self, name: str) -> None:
        self.name, self.tools = name, []

    async def call_tool(self, tool, arguments):
        return ToolResult((text_block("ok"),))


def test_connect_all_opens_at_most_the_limit_of_each_kind_at_once_and_both_kinds_together():
    busy = {"local": 0, "remote": 0}
    most = {"local": 0, "remote": 0}
    overlap = []

    def connector(name: str, kind: str):
        async def connect():
            busy[kind] += 1
            most[kind] = max(most[kind], busy[kind])
            overlap.append(busy["local"] > 0 and busy["remote"] > 0)
            await anyio.sleep(0.05)
            busy[kind] -= 1
            return Slow(name)
        return connect

    async def main():
        async with Hub() as hub:
            for n in range(6):
                hub.add(f"l{n}", connector(f"l{n}", "local"))  # no spec: in process, local
                spec = ServerSpec(f"r{n}", "http", url=f"http://127.0.0.1:9/{n}")
                hub.add(f"r{n}", connector(f"r{n}", "remote"), spec)
            entries = await hub.connect_all(limits={"local": 2, "remote": 4})
            assert all(e.state is State.CONNECTED for e in entries)

    anyio.run(main)
    assert most == {"local": 2, "remote": 4}
    assert any(overlap)


def test_a_server_between_attempts_is_offered_and_one_that_gave_up_is_not():
    class Conn:
        renewable = True
        tools = [{"name": "t", "inputSchema": {"type": "object"}}]

    from harness.hub import Entry

    async def never():
        raise AssertionError

    assert offered(Entry("a", State.PENDING, never, client=Conn()))
    assert not offered(Entry("a", State.PENDING, never))  # not connected yet: nothing to offer
    assert not offered(Entry("a", State.FAILED, never, client=Conn()))


def test_show_prints_each_change_as_one_line():
    import io

    out = io.StringIO()
    transcript = Transcript(out)

    async def main():
        async with Hub(transcript, on_change=show(transcript)) as hub:
            hub.add("docs", _failing)
            await hub.connect("docs")

    anyio.run(main)
    assert out.getvalue().splitlines() == [
        "state: docs: new -> pending: added", "state: docs: pending -> failed: server 'docs': unreachable"]


async def _failing():
    raise ServerError("server 'docs': unreachable")
