"""harness.connection, harness.transports and harness.wire: real servers, their faults, and process hygiene.

Every test here ends by checking that no process it started is left (tests/leaks.py): no
child of this process in any state, zombies included, and no orphaned mock server.
"""

from __future__ import annotations

import io
import json
import sys
from types import SimpleNamespace

import anyio
import pytest
from conftest import ROOT, run_lesson
from leaks import children, no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

from harness.errors import ConfigError, ServerError, ToolError
from harness.transcript import Transcript
from harness.connection import Connections, connect
from harness.expiry import SessionExpiry
from harness.spec import ServerSpec, State, Timeouts
from harness.wire import WireTap

pytestmark = pytest.mark.usefixtures("no_process_left")
QUICK = TIMEOUTS  # for servers of a case that is not about a timeout


def stdio(name: str, *flags: str) -> ServerSpec:
    args = ("-m", f"mock_servers.{name}", "--transport", "stdio", *flags)
    return ServerSpec(name, "stdio", command=sys.executable, args=args, env={"PYTHONHASHSEED": "0"}, cwd=str(ROOT))


def frames(sink: io.StringIO) -> list[dict]:
    """The frame events a tap streamed to ``sink``, one JSON object per line."""
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def run(main) -> None:
    anyio.run(main)


# --- the lessons ---------------------------------------------------------------------


@pytest.mark.parametrize("lesson", ["s23", "s24", "s25"])
def test_lesson_with_wire_shows_frames_and_leaves_no_process(lesson):
    code, text = run_lesson(lesson, "--wire")
    assert code == 0, text
    assert '    >> docs {"id": 1, "jsonrpc": "2.0", "method": "initialize"' in text, text
    assert "    << deploy " in text, text


# --- failures, each with one clear error -------------------------------------------------


def test_missing_command_is_a_named_server_error():
    async def main():
        async with Connections() as conns:
            with pytest.raises(ServerError) as caught:
                await conns.open(ServerSpec("ghost", "stdio", command="no-such-mcp-server-here", args=("--x",)))
        assert str(caught.value) == "server 'ghost': cannot start `no-such-mcp-server-here --x`: command not found"

    run(main)


def test_exit_at_start_names_exit_code_and_stderr_tail():
    async def main():
        with pytest.raises(ServerError) as caught:
            await connect(stdio("deploy", "--exit-at-start", "7"), timeouts=QUICK)
        message = str(caught.value)
        assert message.startswith("server 'deploy': exited with code 7 during initialize; command: "), message
        assert message.endswith("stderr:\n  deploy: exiting at start with code 7 (--exit-at-start)"), message

    run(main)


def test_crash_mid_call_has_stderr_tail_and_leaves_other_server_working():
    async def main():
        async with Connections(timeouts=QUICK) as conns:
            docs = await conns.open(stdio("docs"))
            deploy = await conns.open(stdio("deploy", "--crash-after", "0"))
            with pytest.raises(ToolError) as caught:
                await deploy.call_tool("trigger", {"service": "web"})
            message = str(caught.value)
            assert message.startswith("server 'deploy': tool 'trigger': connection lost: the server exited with code 3"), message
            assert "  deploy: crashing on call 1 (--crash-after 0)" in message, message
            assert deploy.state is State.FAILED
            with pytest.raises(ToolError, match=r"not connected \(failed: connection lost"):
                await deploy.call_tool("status", {"deployment_id": "dep-0001"})
            assert (await docs.call_tool("get_version", {})).text() == "docs 1.4.2 (4 pages)"

    run(main)


def test_hang_hits_the_named_call_timeout_and_the_server_keeps_answering():
    async def main():
        async with Connections(timeouts=Timeouts(connect=TIMEOUTS.connect, call=0.3, exit_grace=1, kill_grace=1)) as conns:  # the tool hangs
            docs = await conns.open(stdio("docs", "--hang-on", "search"))
            with pytest.raises(ToolError) as caught:
                await docs.call_tool("search", {"query": "hooks"})
            assert str(caught.value) == "server 'docs': tool 'search': no answer within 0.3 s (call timeout)"
            assert (await docs.call_tool("get_version", {})).text() == "docs 1.4.2 (4 pages)"

    run(main)


def test_slow_start_hits_the_connect_timeout_and_is_stopped():
    async def main():
        with pytest.raises(ServerError) as caught:
            await connect(stdio("docs", "--slow-start", "30"), timeouts=Timeouts(connect=0.5, exit_grace=0.2, kill_grace=1))
        assert str(caught.value).startswith("server 'docs': no answer to initialize within 0.5 s (connect timeout); command: ")

    run(main)


def test_is_error_result_stays_data_with_the_servers_text():
    async def main():
        docs = await connect(stdio("docs"), timeouts=QUICK)
        try:
            result = await docs.call_tool("search", {"query": ""})
            assert result.is_error and result.content == ({"type": "text", "text": "'query' must be a non-empty string"},), result
            assert result.text() == "server 'docs': tool 'search': 'query' must be a non-empty string"
        finally:
            await docs.aclose()
        assert docs.state is State.CLOSED

    run(main)


def test_malformed_stdout_is_skipped_with_a_warning_and_recorded():
    async def main():
        transcript, sink = Transcript(), io.StringIO()
        tap = WireTap(transcript, show=False, file=sink)
        async with Connections(transcript, timeouts=QUICK) as conns:
            docs = await conns.open(stdio("docs", "--malformed-stdout"), tap=tap)
            assert (await docs.call_tool("get_version", {})).text() == "docs 1.4.2 (4 pages)"
        assert {"invalid": "this line is not JSON-RPC"} in [f["message"] for f in frames(sink)]
        warnings = [e["text"] for e in transcript.events if e["kind"] == "warning"]
        assert warnings and warnings[0].startswith("docs: skipped a line that is not JSON-RPC"), warnings

    run(main)


def test_cancelling_the_run_stops_the_server():
    """What Ctrl-C does: asyncio cancels the main task; the shielded shutdown still runs."""

    async def main():
        with anyio.CancelScope() as scope:
            async with Connections(timeouts=QUICK) as conns:
                await conns.open(stdio("docs", "--noisy-stderr"))
                assert any("mock_servers" in p.cmdline for p in children()), "expected the docs server running here"
                scope.cancel()
                await anyio.sleep_forever()
        assert scope.cancelled_caught

    run(main)


# --- Streamable HTTP sessions -----------------------------------------------------------


def test_expired_session_is_reinitialized_and_the_call_retried_once():
    from mock_servers.launch import serve_http

    async def main():
        transcript, sink = Transcript(), io.StringIO()
        tap = WireTap(transcript, show=False, file=sink)
        async with serve_http("docs", "http", "--forget-sessions-after", "1") as url:
            async with Connections(transcript, timeouts=QUICK) as conns:
                docs = await conns.open(ServerSpec("docs", "http", url=url), tap=tap, mechanisms=[SessionExpiry()])
                await docs.call_tool("get_version", {})
                assert (await docs.call_tool("get_version", {})).text() == "docs 1.4.2 (4 pages)"
                assert docs.state is State.CONNECTED
        methods = [(f["direction"], f["message"].get("method"), "error" in f["message"]) for f in frames(sink)]
        assert methods.count(("send", "initialize", False)) == 2, methods
        assert ("recv", None, True) in methods, "the 404 reaches the session as an error frame"
        texts = [e["text"] for e in transcript.events if e["kind"] in ("note", "warning")]
        assert texts == ["docs: session <docs-session-1>",
                         "docs: HTTP 404 for session <docs-session-1>: the server forgot it; re-initializing, then retrying 'get_version' once",
                         "docs: session <docs-session-2>"], texts

    run(main)


# --- the wire tap -----------------------------------------------------------------------


def _frame(**message):
    return SimpleNamespace(message=SimpleNamespace(model_dump=lambda **_: dict(message)))


def test_tap_renumbers_ids_per_server_and_across_sessions():
    seen = []
    tap = WireTap(lambda server, direction, message: seen.append((server, direction, message)))
    record = tap._record  # the callback the tapped streams call for each frame
    record("a", "send", _frame(jsonrpc="2.0", id=40, method="initialize"))
    record("a", "recv", _frame(jsonrpc="2.0", id=40, result={}))
    record("b", "send", _frame(jsonrpc="2.0", id=7, method="tools/list"))
    record("a", "recv", _frame(jsonrpc="2.0", id=99, method="ping"))  # the server's own request
    record("a", "send", _frame(jsonrpc="2.0", id=99, result={}))
    record("a", "send", _frame(jsonrpc="2.0", id=41, method="tools/call"))
    record("a", "send", _frame(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 41}))
    assert set(tap._ids["a"].mine) == {41} and tap._ids["a"].theirs == {}, "answered ids are forgotten: memory stays flat"
    tap.new_session("a")
    record("a", "send", _frame(jsonrpc="2.0", id=40, method="initialize"))  # the SDK counts afresh
    ids = [(s, d, m.get("id", m.get("params", {}).get("requestId"))) for s, d, m in seen]
    assert ids == [("a", "send", 1), ("a", "recv", 1), ("b", "send", 1), ("a", "recv", "s1"),
                   ("a", "send", "s1"), ("a", "send", 2), ("a", "send", 2), ("a", "send", 3)]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"transport": "ws", "url": "ws://127.0.0.1:1"}, "server 'x': field 'transport': expected one of stdio, sse, http, http-or-sse"),
        ({"transport": "stdio"}, "server 'x': field 'command': required for transport 'stdio'"),
        ({"transport": "http"}, "server 'x': field 'url': required for transport 'http'"),
        ({"transport": "sse", "command": "python"}, "server 'x': field 'url': required for transport 'sse'"),
    ],
)
def test_a_bad_server_spec_names_the_server_and_field(fields, message):
    from harness import transports

    with pytest.raises(ConfigError) as caught:
        transports.check(ServerSpec("x", **fields))
    assert str(caught.value) == message
