"""The spine: the hub's states and events, results as data, the loop's hooks, and the seams.

Each test names the mutation it exists to catch where there is one: a change that would
still pass every snapshot but break a promise.

Child processes: real stdio servers for the reconnect and connect_all cases, and one fresh
interpreter to show that spec.py and its neighbours import no SDK (an interpreter that has
imported nothing yet is the only place to see it).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from harness import naming
from harness.connect import connect_tool
from harness.errors import AuthRequired, ConfigError, ServerError
from harness.hub import Hub
from harness.loop import Policy, Turn, run_agent
from harness.mcp_client import MockClient
from harness.model import Scenario, ScriptedModel
from harness.results import ToolResult, text_block
from harness.spec import ServerSpec, State, Timeouts
from harness.tools import Tool
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN, STEP, TIMEOUTS
from mock_servers.catalog import SERVERS

ROOT = Path(__file__).resolve().parent.parent


class FakeClient:
    """A client whose closing is seen."""

    def __init__(self, name: str, *tools: str) -> None:
        self.name = name
        self.tools = [{"name": t, "inputSchema": {"type": "object"}} for t in tools]
        self.closed = 0

    async def call_tool(self, tool, arguments):
        return ToolResult((text_block(f"{self.name}.{tool}"),))

    async def aclose(self) -> None:
        self.closed += 1


def states(transcript: Transcript) -> list[tuple[str, str | None, str]]:
    return [(e["server"], e["old"], e["new"]) for e in transcript.events if e["kind"] == "state"]


def run(main):
    return anyio.run(main)


# --- the hub ------------------------------------------------------------------------------


def test_every_transition_is_an_event_and_closing_ends_closed():
    async def main():
        transcript = Transcript()
        async with Hub(transcript) as hub:
            hub.add("docs", lambda: MockClient.connect(SERVERS["docs"]()))
            entry = await hub.connect("docs")
            assert entry.state is State.CONNECTED and [t["name"] for t in entry.tools] == ["search", "get_version"]
            assert list(hub.clients) == ["docs"]
        assert states(transcript) == [("docs", None, "pending"), ("docs", "pending", "connected"), ("docs", "connected", "closed")]
        assert hub.entries["docs"].state is State.CLOSED and list(hub.clients) == []

    run(main)


def test_nobody_else_can_write_the_map():
    hub = Hub()
    with pytest.raises(TypeError):
        hub.entries["x"] = None  # type: ignore[index]


def test_a_server_that_cannot_start_is_failed_with_its_error_and_can_be_asked_again():
    attempts = []

    async def flaky():
        attempts.append(1)
        if len(attempts) == 1:
            raise ServerError("server 'deploy': exited with code 4 during initialize")
        return FakeClient("deploy", "status")

    async def main():
        async with Hub() as hub:
            hub.add("deploy", flaky)
            entry = await hub.connect("deploy")
            assert entry.state is State.FAILED and str(entry.error) == "server 'deploy': exited with code 4 during initialize"
            assert (await hub.connect("deploy")).state is State.CONNECTED

    run(main)


def test_a_colliding_server_is_failed_closed_and_warned_about_and_the_run_goes_on():
    # Mutation caught: a refused client never closed (from s23 on, a live process left running).
    refused = FakeClient("acme wiki", "page.get")
    transcript = Transcript()

    async def main():
        accept = naming.checker(transcript.warning, transcript.note)
        async with Hub(transcript, accept=accept) as hub:
            hub.add("acme.wiki", lambda: MockClient.connect(SERVERS["acme.wiki"]()))
            hub.add("acme wiki", lambda: _ready(refused))
            tool = connect_tool(hub)
            await tool.call({"name": "acme.wiki"})
            with pytest.raises(Exception) as caught:
                await tool.call({"name": "acme wiki"})
            assert "would name both server 'acme.wiki' tool 'page.get' and server 'acme wiki' tool 'page.get'" in str(caught.value)
            assert refused.closed == 1, "a refused client must be closed at once"
            assert hub.entries["acme wiki"].state is State.FAILED
            assert hub.entries["acme.wiki"].state is State.CONNECTED  # untouched
            assert list(hub.clients) == ["acme.wiki"]

    run(main)
    warnings = [e["text"] for e in transcript.events if e["kind"] == "warning"]
    assert any("'acme wiki'" in w and "'acme.wiki'" in w and "mcp__acme_wiki__page_get" in w for w in warnings), warnings


async def _ready(client):
    return client


def test_needs_auth_then_promote_swaps_the_client():
    stand_in, real = FakeClient("docs", "authenticate"), FakeClient("docs", "search")

    async def needs_auth():
        raise AuthRequired("server 'docs': needs authorization", stand_in)

    async def main():
        transcript = Transcript()
        async with Hub(transcript) as hub:
            hub.add("docs", needs_auth)
            assert (await hub.connect("docs")).state is State.NEEDS_AUTH
            assert hub.clients["docs"] is stand_in
            assert (await hub.promote("docs", real)).state is State.CONNECTED
            assert hub.clients["docs"] is real
        assert ("docs", "pending", "needs-auth") in states(transcript) and ("docs", "needs-auth", "connected") in states(transcript)

    run(main)


def test_a_connection_reports_its_death_but_a_replaced_one_is_ignored():
    old, new = FakeClient("docs", "a"), FakeClient("docs", "a")
    clients = iter([old, new])

    async def main():
        async with Hub() as hub:
            hub.add("docs", lambda: _ready(next(clients)))
            await hub.connect("docs")
            hub.report("docs", old, State.FAILED, "connection lost")
            assert hub.entries["docs"].state is State.FAILED and "connection lost" in str(hub.entries["docs"].error)
            await hub.connect("docs")
            hub.report("docs", old, State.FAILED, "a stale connection's news")  # not the server's client any more
            assert hub.entries["docs"].state is State.CONNECTED
        assert old.closed == 1 and new.closed == 1, "closing the hub closes every client it still holds"

    run(main)


# --- the loop: first wins, and the policy hooks ---------------------------------------------------


def _scripted(*calls: str) -> ScriptedModel:
    turns = [{"tool_calls": [{"name": c} for c in calls]}, {"text": "done"}]
    return ScriptedModel(Scenario.parse({"prompt": "go", "turns": turns}, "test.yaml"))


def _tool(name: str, answer: str) -> Tool:
    async def call(args):
        return answer

    return Tool(name, "", {"type": "object"}, call)


def test_the_first_of_two_same_named_tools_wins_in_the_loop():
    # Mutation caught: the loop's "first one wins" flipped to last-wins (a server's tool
    # could then replace a built-in of the same name).
    transcript = Transcript()
    pool = Turn("system", (_tool("read_file", "builtin"), _tool("read_file", "impostor")))
    messages = anyio.run(run_agent, _scripted("read_file"), "go", lambda: pool, transcript)
    assert messages[2]["content"][0]["content"] == "builtin"


def test_policy_hooks_deny_before_the_call_and_rewrite_after_it():
    ran = []

    async def call(args):
        ran.append(args)
        return ToolResult((text_block("secret payload"),), structured={"n": 1})

    async def deny(call_, tool):
        return ToolResult.failure("denied by policy") if tool.name == "danger" else None

    async def shorten(call_, tool, result):
        if result.is_error:
            return result
        assert result.structured == {"n": 1}, "the hook sees the result as data, structured content included"
        return ToolResult((text_block("short"),))

    pool = Turn("s", (Tool("danger", "", {"type": "object"}, call), Tool("safe", "", {"type": "object"}, call)))
    transcript = Transcript()
    policy = Policy(before_call=deny, after_result=shorten)
    messages = anyio.run(lambda: run_agent(_scripted("danger", "safe"), "go", lambda: pool, transcript, policy=policy))
    results = messages[2]["content"]
    assert [r["content"] for r in results] == ["denied by policy", "short"]
    assert [r["is_error"] for r in results] == [True, False]
    assert len(ran) == 1, "a denied call never runs"


def test_results_stay_data_until_rendered():
    result = ToolResult(({"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}),
                        structured={"k": 1}, is_error=True, origin="server 'docs': tool 'x'")
    assert result.text() == "server 'docs': tool 'x': a\n[image content: shown from s32 on]"
    assert result.content[1]["data"] == "AAAA" and result.structured == {"k": 1}


# --- seams ---------------------------------------------------------------------------------------


def test_specs_are_immutable_and_hash_by_value():
    a = ServerSpec("docs", "stdio", command="python", args=["-m", "x"], env={"A": "1"})
    b = ServerSpec("docs", "stdio", command="python", args=("-m", "x"), env={"A": "1"})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(TypeError):
        a.env["A"] = "2"  # type: ignore[index]
    assert ServerSpec("docs", "stdio", command="python", env={"A": "2"}) != a


def test_spec_module_imports_no_sdk():
    # What this buys (a few milliseconds instead of a second) is measured in bench/, not timed here.
    probe = ("import sys; import harness.spec, harness.results, harness.errors, harness.tools, harness.config; "
             "print(sorted(n for n in sys.modules if n.split('.')[0] in ('mcp', 'anthropic', 'httpx', 'httpx2', 'pydantic', 'anyio')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=RUN)
    assert out.stdout.strip() == "[]", f"expected no SDK import, got {out.stdout!r} {out.stderr}"


def test_an_unknown_transport_is_a_config_error_naming_server_and_field():
    from harness import transports

    with pytest.raises(ConfigError, match="server 'x': field 'transport'"):
        transports.check(ServerSpec("x", "carrier-pigeon", url="http://127.0.0.1:1"))


def test_session_watch_expires_only_on_a_404_to_our_own_session():
    # Mutation caught: any 404 taken as our session's expiry (a wrong URL would then loop re-initializing).
    from harness.transports.http import SessionWatch

    def response(status: int, sent: str | None, given: str | None = None) -> httpx2.Response:
        headers = {"mcp-session-id": sent} if sent else {}
        request = httpx2.Request("POST", "http://127.0.0.1:1/mcp", headers=headers)
        return httpx2.Response(status, request=request, headers={"mcp-session-id": given} if given else {})

    async def main():
        watch = SessionWatch()
        await watch.on_response(response(200, None, given="ours"))
        assert watch.session_id == "ours"
        for status, sent in ((404, None), (404, "someone-else"), (400, "ours"), (500, "ours")):
            await watch.on_response(response(status, sent))
            assert not watch.expired, f"HTTP {status} to session {sent!r} is not our session expiring"
        await watch.on_response(response(404, "ours"))
        assert watch.expired

    run(main)


def test_reinitialize_is_asked_once_per_expired_generation():
    # Mutation caught: renew without its generation check. A caller whose session
    # was already replaced by another caller's re-initialize must not tear down the new one.
    from harness.connection import MCPConnection

    async def main():
        from harness import transports
        from harness.spec import Limits

        spec = ServerSpec("docs", "http", url="http://127.0.0.1:1/mcp")
        conn = MCPConnection(spec, transport=transports.lookup(spec), timeouts=Timeouts(), limits=Limits(), transcript=None)
        conn.owner.state, conn.owner.generation = State.CONNECTED, 2  # generation 1 expired; another caller re-initialized
        with anyio.fail_after(STEP):
            await conn.renew(1)
        assert not conn.owner.wake.is_set(), "the fresh session was torn down by a caller of the old generation"

    run(main)


# --- the reconnect seam, against a real server -------------------------------------------------


def _stdio(module: str, *flags: str, name: str | None = None) -> ServerSpec:
    args = ("-m", f"mock_servers.{module}", "--transport", "stdio", *flags)
    return ServerSpec(name or module, "stdio", command=sys.executable, args=args, env={"PYTHONHASHSEED": "0"}, cwd=str(ROOT))


@pytest.mark.usefixtures("no_process_left")
def test_a_reconnect_policy_brings_a_crashed_server_back_and_the_hub_sees_it():
    from harness.connection import Connections
    from harness.errors import ToolError
    from harness.lifecycle import Supervisor

    asked = []

    def once(failures: int, error: ServerError) -> float | None:
        asked.append((failures, "connection lost" in str(error)))
        return 0.0 if failures == 1 else None

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns, Hub(transcript) as hub:
            spec = _stdio("deploy", "--crash-after", "1")
            hub.add("deploy", conns.connector(spec, mechanisms=lambda: [Supervisor(once)]), spec)
            deploy = (await hub.connect("deploy")).client
            assert "dep-" in (await deploy.call_tool("trigger", {"service": "web"})).text()
            with pytest.raises(ToolError, match="connection lost"):
                await deploy.call_tool("trigger", {"service": "web"})  # the server exits after one call
            with anyio.fail_after(STEP):
                while hub.entries["deploy"].state is not State.CONNECTED:
                    await anyio.sleep(0.02)
            assert "dep-" in (await deploy.call_tool("trigger", {"service": "web"})).text()
        assert asked == [(1, True)]
        assert [e for e in states(transcript) if e[0] == "deploy"][1:5] == [
            ("deploy", "pending", "connected"), ("deploy", "connected", "failed"), ("deploy", "failed", "pending"),
            ("deploy", "pending", "connected")]

    run(main)


@pytest.mark.usefixtures("no_process_left")
def test_connect_all_opens_concurrently_but_joins_in_the_order_asked():
    # How quickly closing 20 stdio servers ends (the default graces) is bench/run.py's "close" row.
    from harness.connection import Connections

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns, Hub(transcript) as hub:
            specs = [_stdio("docs", "--slow-start", "1", name="slow"),  # asked first, answers last
                     _stdio("docs", name="fast"), _stdio("deploy"), ServerSpec("ghost", "stdio", command="no-such-server-here")]
            names = [spec.name for spec in specs]
            for spec in specs:
                hub.add(spec.name, conns.connector(spec), spec)
            entries = await hub.connect_all(limits={"local": 3})
            assert [e.name for e in entries] == names
            assert [e.state for e in entries] == [State.CONNECTED, State.CONNECTED, State.CONNECTED, State.FAILED]
            joined = [e[0] for e in states(transcript) if e[1] == "pending"]
            assert joined == names, f"joins must follow the order asked, not the order of answers: {joined}"

    run(main)


def test_connect_mcp_calls_in_one_turn_run_at_once_but_read_and_join_in_call_order():
    # The first server asked for answers last; it must still win the collision, and the
    # transcript must read as if the calls had run one after another. "At once" is seen,
    # not timed: the first connect waits for the second one to have answered, so calls
    # run one after the other would never end.
    mirror_answered = anyio.Event()

    async def slow_wiki():
        with anyio.fail_after(STEP):
            await mirror_answered.wait()
        return await MockClient.connect(SERVERS["acme.wiki"]())

    async def fast_mirror():
        client = await MockClient.connect(SERVERS["acme wiki"]())
        mirror_answered.set()
        return client

    async def main():
        out = io.StringIO()
        transcript = Transcript(out)
        async with Hub(transcript, accept=naming.checker(transcript.warning, transcript.note)) as hub:
            hub.add("acme.wiki", slow_wiki)
            hub.add("acme wiki", fast_mirror)
            pool = Turn("s", (connect_tool(hub),))
            model = ScriptedModel(Scenario.parse({"prompt": "go", "turns": [
                {"tool_calls": [{"name": "connect_mcp", "input": {"name": "acme.wiki"}},
                                {"name": "connect_mcp", "input": {"name": "acme wiki"}}]},
                {"text": "done"}]}, "test.yaml"))
            await run_agent(model, "go", lambda: pool, transcript)
            assert hub.entries["acme.wiki"].state is State.CONNECTED and hub.entries["acme wiki"].state is State.FAILED
        return out.getvalue()

    text = run(main)
    lines = [line for line in text.splitlines() if line.startswith(("  ->", "  <", "warning: server"))]
    expected = ['  -> connect_mcp {"name": "acme.wiki"}', "  <- Connected to 'acme.wiki'.", '  -> connect_mcp {"name": "acme wiki"}',
                "warning: server 'acme wiki' not connected", "  <! 'acme wiki' not connected"]
    assert len(lines) == len(expected) and all(line.startswith(e) for line, e in zip(lines, expected)), text


def test_the_same_server_asked_for_twice_at_once_is_connected_once():
    made = []

    released = anyio.Event()

    async def slow():
        made.append(FakeClient("docs", "search"))
        await released.wait()  # the second ask comes while the first is under way
        return made[-1]

    async def main():
        async with Hub() as hub:
            hub.add("docs", slow)
            results = []
            async with anyio.create_task_group() as tg:
                for _ in range(2):
                    tg.start_soon(lambda: _append(results, hub.connect("docs")))
                await anyio.wait_all_tasks_blocked()  # both asks are in
                released.set()
            assert len(made) == 1, "a second connection would be left running, unowned"
            assert [e.state for e in results] == [State.CONNECTED, State.CONNECTED]

    run(main)


async def _append(results, awaitable):
    results.append(await awaitable)
