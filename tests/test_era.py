"""s34's negotiation (harness/era.py): the SDK's auto policy step by step on a stub session, then
real servers over stdio: a dual-era server in either era, the phase and timeout an error names,
and a config's ``protocol`` field (a bad one fails only its server)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from types import MappingProxyType

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from harness import era, stack
from harness.config import ServerConfig
from harness.connection import Connections
from harness.errors import ConfigError, ServerError, ToolError
from harness.opening import InPhase
from harness.spec import ServerSpec, Timeouts
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("no_process_left")
DISCOVERED = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}


def refused(supported, code=types.UNSUPPORTED_PROTOCOL_VERSION):
    return MCPError(code=code, message="not this version", data={"supported": supported, "requested": "2026-07-28"})


class Stub:
    """A ClientSession as far as negotiation uses it: each discover and initialize answers the next scripted value."""

    def __init__(self, discovers, initializes=()):
        self.discovers, self.initializes = list(discovers), list(initializes)
        self.sent: list[str] = []
        self.adopted = None
        self.protocol_version = None
        self._client_info = types.Implementation(name="t", version="0")
        self._dispatcher = self

    def _build_capabilities(self, version):
        return types.ClientCapabilities()

    async def send_raw_request(self, method, params, options):
        self.sent.append(f"{method} {params['_meta']['io.modelcontextprotocol/protocolVersion']}")
        return await self._answer(self.discovers.pop(0))

    async def initialize(self):
        self.sent.append("initialize")
        return await self._answer(self.initializes.pop(0))

    async def _answer(self, value):
        if value == "hang":
            await anyio.sleep_forever()
        if isinstance(value, BaseException):
            raise value
        return value

    def adopt(self, result):
        self.adopted, self.protocol_version = result, "2026-07-28"


INITIALIZED = types.InitializeResult(protocol_version="2025-11-25", capabilities=types.ServerCapabilities(),
                                     server_info=types.Implementation(name="s", version="1"))


def negotiate(stub, choice="auto", connect=5.0):
    async def main():
        return await era.negotiate(stub, Timeouts(connect=connect), choice)

    return anyio.run(main)


def test_a_modern_server_is_adopted_from_its_discover_result():
    stub = Stub([DISCOVERED])
    assert negotiate(stub) == "protocol 2026-07-28 (server/discover)"
    assert stub.sent == ["server/discover 2026-07-28"] and stub.adopted is not None


def test_an_older_server_falls_back_to_initialize_and_says_why():
    stub = Stub([MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")], [INITIALIZED])
    said = negotiate(stub)
    assert said == "protocol 2025-11-25 (initialize, after server/discover answered error -32601: Method not found)", said
    assert stub.sent == ["server/discover 2026-07-28", "initialize"]


def test_an_unanswered_discover_falls_back_after_half_the_connect_timeout_not_the_sdks_10_s():
    stub = Stub(["hang"], [INITIALIZED])
    assert negotiate(stub, connect=0.2) == \
        "protocol 2025-11-25 (initialize, after server/discover went unanswered for 0.1 s (half the connect timeout))"


def test_one_connect_timeout_covers_the_whole_negotiation(monkeypatch):
    # Each step used to get the whole connect timeout: 3 s configured failed after 12 s (discover, initialize,
    # discover again, initialize again). The steps now share one budget.
    from harness.auth import clock

    asked: list[float] = []
    real = clock.connect_clock

    def recorded(seconds):
        asked.append(seconds)
        return real(seconds)

    monkeypatch.setattr(clock, "connect_clock", recorded)
    stub = Stub(["hang"], ["hang"])
    with pytest.raises(InPhase):
        negotiate(stub, connect=0.2)
    assert len(asked) == 2 and asked[0] == pytest.approx(0.1) and asked[1] <= 0.1 + 1e-9, \
        f"expected the probe to get half of 0.2 s and initialize at most the rest, got {asked}"


def test_minus_32022_naming_only_newer_versions_is_the_error_naming_discover():
    stub = Stub([refused(["2027-01-01"])])
    with pytest.raises(InPhase) as caught:
        negotiate(stub)
    assert caught.value.phase == "server/discover" and stub.sent == ["server/discover 2026-07-28"]


def test_minus_32022_naming_a_handshake_version_falls_back():
    stub = Stub([refused(["2025-11-25"])], [INITIALIZED])
    assert negotiate(stub).startswith("protocol 2025-11-25 (initialize, after server/discover answered error -32022")


def test_minus_32022_to_initialize_probes_once_more():
    """The probe timed out here, but reached a slow server, which now speaks only 2026-07-28."""
    stub = Stub(["hang", DISCOVERED], [refused(["2026-07-28"])])
    assert negotiate(stub, connect=0.2) == "protocol 2026-07-28 (server/discover)"
    assert stub.sent == ["server/discover 2026-07-28", "initialize", "server/discover 2026-07-28"]


def test_a_discover_result_naming_no_modern_version_is_a_legacy_advertisement():
    stub = Stub([{"supportedVersions": ["2025-06-18"], "capabilities": {}}], [INITIALIZED])
    assert negotiate(stub).endswith("after server/discover named only 2025-06-18)")


def test_pinned_eras_send_only_their_own_opening_and_say_nothing():
    modern, old = Stub([DISCOVERED]), Stub([], [INITIALIZED])
    assert negotiate(modern, "2026-07-28") is None and modern.sent == ["server/discover 2026-07-28"]
    assert negotiate(old, "2025-11-25") is None and old.sent == ["initialize"]
    refusing = Stub([MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")])
    with pytest.raises(InPhase) as caught:
        negotiate(refusing, "2026-07-28")
    assert caught.value.phase == "server/discover" and refusing.sent == ["server/discover 2026-07-28"]


def entry(**fields):
    return ServerConfig("docs", "user", "mcp.json", None, raw=MappingProxyType(fields))


def test_the_protocol_field():
    assert era.protocol(entry()) == "auto"
    assert era.protocol(entry(protocol="2026-07-28")) == "2026-07-28"
    for bad in ("2027", 2026, None):
        with pytest.raises(ConfigError) as caught:
            era.protocol(entry(protocol=bad))
        message = str(caught.value)
        assert message.startswith("server 'docs': field 'protocol': expected \"2026-07-28\", \"2025-11-25\" or \"auto\"")
        assert "\n" not in message


# --- real servers over stdio -----------------------------------------------------------------


def spec(name="handbook", *flags):
    return ServerSpec(name, "stdio", sys.executable, ("-m", f"mock_servers.{name}", "--transport", "stdio", *flags), cwd=str(ROOT))


def notes(transcript):
    return [e["text"] for e in transcript.events if e["kind"] == "note"]


def opened(choice, *flags, timeouts=TIMEOUTS):
    transcript = Transcript(out=io.StringIO())

    async def main():
        async with Connections(transcript, timeouts=timeouts) as conns:
            try:
                conn = await conns.open(spec("handbook", *flags), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            except ServerError as exc:
                return str(exc)
            return conn.protocol, sorted(conn.capabilities), len(conn.resources), len(conn.prompts), [t["name"] for t in conn.tools]

    return anyio.run(main), transcript


def test_a_dual_era_server_speaks_2026_07_28_when_asked_and_its_offers_come_from_discover():
    (protocol, capabilities, resources, prompts, tools), transcript = opened("auto")
    assert protocol == "2026-07-28"
    assert {"resources", "prompts", "tools"} <= set(capabilities) and resources and prompts and tools
    assert "handbook: protocol 2026-07-28 (server/discover)" in notes(transcript)
    (old, *rest), transcript = opened("2025-11-25")
    assert old == "2025-11-25" and rest == [capabilities, resources, prompts, tools]
    assert not [n for n in notes(transcript) if "protocol" in n], "a pinned era is what the config said: nothing to report"


@pytest.mark.parametrize("choice, phase", [
    ("2026-07-28", "server/discover"), ("auto", "initialize (server/discover went unanswered for 0.15 s (half the connect timeout) first)"),
    ("2025-11-25", "initialize")])
def test_a_server_that_never_answers_fails_naming_the_step_and_the_timeout(choice, phase):
    short = Timeouts(connect=0.3, list=TIMEOUTS.list, call=TIMEOUTS.call, exit_grace=0.5, kill_grace=1)
    error, _ = opened(choice, "--slow-start", "60", timeouts=short)
    first = error.splitlines()[0]
    assert f"no answer to {phase} within 0.3 s (connect timeout" in first, first


def test_a_result_without_result_type_counts_as_complete():
    from mcp.shared.message import SessionMessage

    from harness.guard import guard

    async def main():
        send, receive = anyio.create_memory_object_stream(4)
        read, _ = guard(receive, None, errors={}, warn=print)
        answer = types.JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": [{"type": "text", "text": "hi"}]})
        waiting = types.JSONRPCResponse(jsonrpc="2.0", id=2, result={"resultType": "input_required", "inputRequests": {}})
        for message in (answer, waiting):
            await send.send(SessionMessage(message))
        first, second = await read.receive(), await read.receive()
        return first.message.result, second.message.result

    complete, waiting = anyio.run(main)
    assert complete["resultType"] == "complete" and waiting["resultType"] == "input_required"
    from mcp_types import methods

    methods.validate_server_result("tools/call", "2026-07-28", complete)  # the SDK's schema takes it now


def test_list_changes_come_on_a_listen_stream_in_2026_07_28_and_on_the_session_before():
    async def main(choice):
        transcript = Transcript(out=io.StringIO())
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            conn = await conns.open(spec("handbook"), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            await conn.call_tool("publish_page", {"title": "faq", "text": "# FAQ"})
            return [t["name"] for t in conn.tools], [r["uri"] for r in conn.resources], notes(transcript)

    for choice, heard in (("2026-07-28", " (on subscriptions/listen)"), ("2025-11-25", "")):
        tools, uris, said = anyio.run(main, choice)
        assert "archive_page" in tools and "handbook://pages/faq" in uris, (choice, tools, uris)
        assert f"handbook: notifications/tools/list_changed{heard}: tools listed again: +archive_page" in said, (choice, said)


def test_no_session_and_so_no_expiry_in_2026_07_28_over_http():
    from mock_servers.launch import serve_http

    async def main(choice):
        async with serve_http("docs", "http", "--forget-sessions-after", "1") as url, \
                Connections(Transcript(out=io.StringIO()), timeouts=TIMEOUTS) as conns:
            conn = await conns.open(ServerSpec("docs", "http", url=url), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            first = await conn.call_tool("search", {"query": "deploy"})
            second = await conn.call_tool("search", {"query": "deploy"})  # the server forgot its sessions: none here
            return conn.context.watch.session_id, conn.generation, first.text() == second.text()

    session, generation, same = anyio.run(main, "2026-07-28")
    assert (session, generation, same) == (None, 1, True), "no Mcp-Session-Id, so nothing to expire or re-initialize"
    session, generation, same = anyio.run(main, "2025-11-25")
    assert session is not None and generation == 2 and same, "the handshake era's session expired and was re-initialized"


def test_a_reconnect_says_what_happened_in_its_era():
    async def main(choice):
        said = []
        async with Connections(Transcript(out=io.StringIO()), timeouts=TIMEOUTS) as conns:
            conn = await conns.open(spec("docs"), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            conn.observe(lambda state, reason: said.append((state.value, reason)))
            assert await conn.reconnect()
        return said

    assert ("connected", "reconnected (server/discover)") in anyio.run(main, "2026-07-28"), "no session to establish in 2026-07-28"
    assert ("connected", "session established") in anyio.run(main, "2025-11-25")


def test_an_unknown_resource_is_invalid_params_in_2026_07_28_and_resource_not_found_before():
    async def main(choice):
        async with Connections(Transcript(out=io.StringIO()), timeouts=TIMEOUTS) as conns:
            conn = await conns.open(spec("handbook"), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            with pytest.raises(ToolError) as caught:
                await conn.read_resource("handbook://pages/nope")
            return str(caught.value)

    assert "error -32602: no page at handbook://pages/nope" in anyio.run(main, "2026-07-28"), "SEP-2164: -32002 is retired"
    assert "error -32002: no page at handbook://pages/nope" in anyio.run(main, "2025-11-25")


def test_a_task_only_tool_is_left_out_in_both_eras():
    async def main(choice):
        transcript = Transcript(out=io.StringIO())
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            conn = await conns.open(spec("media"), handshake=era.handshake(choice), mechanisms=stack.mechanisms(eras=True))
            listed = [t["name"] for t in conn.tools]
            error = None
            if "render_video" in listed:  # 2026-07-28 lists it without execution.taskSupport: its first call says
                with pytest.raises(ToolError) as caught:
                    await conn.call_tool("render_video", {})
                error = str(caught.value)
            return listed, [t["name"] for t in conn.tools], error, notes(transcript)

    listed, kept, error, said = anyio.run(main, "2025-11-25")
    assert "render_video" not in listed and error is None
    assert any("tool 'render_video' left out: it can only run as a task" in n for n in said), said
    listed, kept, error, said = anyio.run(main, "2026-07-28")
    assert "render_video" in listed and "render_video" not in kept and "chart" in kept, (listed, kept)
    assert error == ("server 'media': tool 'render_video': it can only run as a task (the server requires the "
                     "io.modelcontextprotocol/tasks extension), which this client does not do; it is left out from now on")
    assert any("tool 'render_video' left out: it can only run as a task" in n for n in said), said
