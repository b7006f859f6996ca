"""Hostile servers (issue 8, items 7, 8, 9, 11, 13, 14): each case ends within its bound, with
one clear error naming the server, the healthy server beside it still answering, and no
process left (tests/leaks.py).

The misbehaving server is ``mock_servers.hostile`` (one switch per misbehaviour), over
stdio, sse and http; the healthy one is the catalog's ``docs`` over stdio. The hostile part
of each case (connect, list or call) has a bound, ``limits.STEP``: it catches a case that
never ends (what most of them did before their fix). How fast a case ends is bench/'s
business, not a test's. The servers run as child processes, being what is tested; the
healthy docs server is started once for the module (``shared_docs``), and every case runs
on the module's event loop beside it. The CLI runs in process, as in tests/test_app.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

import anyio
import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import STEP, TIMEOUTS
from test_app import cli as in_process_cli

from harness import stack
from harness.connection import Connections, MCPConnection
from harness.errors import ConfigError, ServerError, ToolError
from harness.guard import trimmed, unsendable
from harness.spec import MIB, Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.transports.http import SessionWatch
from harness.transports.lines import FrameTooLarge, lines
from harness.transports.web import shown
from mock_servers.hostile import NO_VALID_SESSION
from mock_servers.launch import serve_http

pytestmark = pytest.mark.usefixtures("no_process_left")
QUICK = TIMEOUTS  # for the servers of a case that is not about a timeout
FRAME = 1 * MIB  # a small frame limit, so an endless frame is cut within milliseconds
DOCS = ServerSpec("docs", "stdio", command=sys.executable, args=("-m", "mock_servers.docs", "--transport", "stdio"),
                  env={"PYTHONHASHSEED": "0"}, cwd=str(ROOT))


@dataclass
class Shared:
    """The module's event loop (a portal: a thread of its own) and the healthy docs server, started once on it."""

    portal: BlockingPortal | None = None
    conns: Connections | None = None
    docs: MCPConnection | None = None


SHARED = Shared()


@pytest.fixture(scope="module", autouse=True)
def shared_docs() -> Iterator[None]:
    """Starts docs once for the module's cases; each case runs on its loop (``run``) and opens its hostile server beside it."""
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Connections(Transcript(), timeouts=QUICK)) as conns:
        SHARED.portal, SHARED.conns = portal, conns
        SHARED.docs = portal.call(conns.open, DOCS)
        try:
            yield
        finally:
            SHARED.portal = SHARED.conns = SHARED.docs = None


@asynccontextmanager
async def hostile(transport: str, *flags: str, timeouts: Timeouts = QUICK, limits: Limits | None = None,
                  ) -> AsyncIterator[tuple[Opener, ServerSpec, MCPConnection, Transcript]]:
    """An opener for a hostile server on ``transport`` (its spec, ``timeouts`` and ``limits``) in the same
    ``Connections`` as the healthy docs server, and docs. The case's hostile connections are closed after it."""
    transcript = Transcript()
    conns, docs = SHARED.conns, SHARED.docs
    assert conns is not None and docs is not None, "the module's shared docs server is not running"
    conns.transcript = transcript  # what the hostile server says goes to this case's transcript
    opened: list[MCPConnection] = []

    async def open_it(spec: ServerSpec) -> MCPConnection:
        opened.append(await conns.open(spec, timeouts=timeouts, limits=limits or Limits(), mechanisms=stack.mechanisms()))
        return opened[-1]

    opener = Opener(open_it)
    try:
        if transport == "stdio":
            args = ("-m", "mock_servers.hostile", "--transport", "stdio", *flags)
            yield opener, ServerSpec("hostile", "stdio", command=sys.executable, args=args, cwd=str(ROOT)), docs, transcript
        else:
            async with serve_http("hostile", transport, "--transport", transport, *flags, module="mock_servers.hostile") as url:
                try:
                    yield opener, ServerSpec("hostile", transport, url=url), docs, transcript
                finally:
                    await close_all(opened)
    finally:
        await close_all(opened)
    assert docs.state is State.CONNECTED
    assert (await docs.call_tool("get_version", {})).text() == "docs 1.4.2 (4 pages)", "the healthy server still answers"


@dataclass(frozen=True)
class Opener:
    """What a case opens its hostile server with: ``await conns.open(spec)``, as on a ``Connections``."""

    open: Callable[[ServerSpec], Awaitable[MCPConnection]]


async def close_all(opened: list[MCPConnection]) -> None:
    while opened:
        await opened.pop().aclose()


async def within(bound: float, step: Callable[[], Awaitable]) -> tuple[float, object]:
    """Run ``step``; how long it took and its result (or the exception it raised). A hang fails it at ``bound``."""
    started = time.monotonic()  # the time is for a lower bound ("it waited its second"), never an upper one
    try:
        with anyio.fail_after(bound):  # a hang fails the test here, not at the suite's timeout
            try:
                outcome = await step()
            except (ServerError, ToolError) as exc:
                outcome = exc
    except TimeoutError:
        raise AssertionError(f"expected the step to end; it was still going after {bound:g} s") from None
    return time.monotonic() - started, outcome


def warnings(transcript: Transcript) -> list[str]:
    return [e["text"] for e in transcript.events if e["kind"] == "warning"]


def run(main) -> None:
    """``main`` on the module's loop, where the shared docs server lives."""
    assert SHARED.portal is not None, "the module's portal is not running"
    SHARED.portal.call(main)


# --- 7: tools/list bounded as a whole ----------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cursor_that_never_ends_stops_at_the_page_limit(transport):
    async def main():
        async with hostile(transport, "--endless-cursor") as (conns, spec, _, _):
            _, error = await within(STEP, lambda: conns.open(spec))
            assert isinstance(error, ServerError), error
            assert str(error).startswith("server 'hostile': tools/list: more than 100 pages (list pages limit; "
                                         "change it with the environment variable MCP_COURSE_MAX_LIST_PAGES)"), error

    run(main)


@pytest.mark.parametrize("transport", ["stdio", "sse"])
def test_a_repeated_cursor_is_a_loop(transport):
    async def main():
        async with hostile(transport, "--repeat-cursor") as (conns, spec, _, _):
            _, error = await within(STEP, lambda: conns.open(spec))
            assert str(error).startswith("server 'hostile': tools/list: the server sent cursor 'again' a second time, after 2 pages"), error

    run(main)


def test_slow_pages_are_bounded_by_the_list_timeout_as_a_whole():
    async def main():
        timeouts = replace(TIMEOUTS, list=1)  # the subject: pages come forever, 0.1 s apart
        async with hostile("stdio", "--endless-cursor", "--page-delay", "0.1", timeouts=timeouts) as (conns, spec, _, _):
            took, error = await within(STEP, lambda: conns.open(spec))
            assert str(error).startswith("server 'hostile': tools/list: not finished within 1 s, after "), error
            assert " pages (list timeout)" in str(error), error
            assert took >= 1, "the whole listing had its second"

    run(main)


# --- 8: frame size and cost; tools per server; description length -------------------------------


@pytest.mark.parametrize("transport", ["stdio", "sse"])
@pytest.mark.parametrize("flag", ["--endless-answer", "--huge-answer=2000000"])
def test_a_frame_over_the_limit_fails_that_server_only(transport, flag):
    async def main():
        async with hostile(transport, flag, limits=Limits(frame=FRAME)) as (conns, spec, _, _):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
            assert isinstance(error, ToolError), error
            assert str(error).startswith("server 'hostile': tool 'echo': sent a frame over 1 MiB (frame limit; "
                                         "change it with the environment variable MCP_COURSE_MAX_FRAME_BYTES)"), error
            assert server.state is State.FAILED

    run(main)


@pytest.mark.parametrize("flag", ["--endless-answer", "--huge-answer=2000000"])
def test_over_http_a_body_over_the_limit_fails_that_call_only(flag, capfd):
    """Each answer is its own HTTP body: the session is not harmed, so only the call fails."""

    async def main():
        async with hostile("http", flag, limits=Limits(frame=FRAME)) as (conns, spec, _, _):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
            assert "a frame over 1 MiB (frame limit; change it with the environment variable MCP_COURSE_MAX_FRAME_BYTES)" in str(error), error
            assert server.state is State.CONNECTED

    run(main)
    assert "Traceback" not in capfd.readouterr().err, "the SDK's log of the cut body is kept off stderr"


def test_a_40_mb_frame_under_the_limit_is_read_in_linear_time_and_the_others_keep_answering():
    async def main():
        async with hostile("stdio", "--huge-answer=40000000", limits=Limits(frame=64 * MIB)) as (conns, spec, docs, _):
            server = await conns.open(spec)
            answers = 0
            done = anyio.Event()

            async def meanwhile() -> None:
                nonlocal answers
                while not done.is_set():
                    await docs.call_tool("get_version", {})
                    answers += 1

            async with anyio.create_task_group() as tg:
                tg.start_soon(meanwhile)
                _, result = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
                done.set()
            assert len(result.text()) == 40_000_000, "the whole frame arrived"
            # Reading the frame must not hold the event loop: docs answered while it came in.
            # (How long it takes, linear not quadratic, is bench/lines.py's.)
            assert answers > 1, f"expected docs to keep answering during the 40 MB frame, it answered {answers} time(s)"

    run(main)


def test_a_line_in_many_chunks_is_assembled_whole():
    chunks = [b"x" * 65536] * 640 + [b"\n{}\n"]  # a 40 MB line arriving in 64 KiB chunks (linear time: bench/lines.py)

    async def source():
        for chunk in chunks:
            yield chunk

    async def main():
        with anyio.fail_after(STEP):  # a hang; that it is linear (quadratic took 38 s) is measured by bench/lines.py
            got = [len(line) async for line in lines(source(), 64 * MIB)]
        assert got == [640 * 65536, 2]

    run(main)


def test_line_limits_and_edges():
    async def read(chunks, limit):
        async def source():
            for chunk in chunks:
                yield chunk
        return [line async for line in lines(source(), limit)]

    async def main():
        assert await read([b"ab", b"c\nde", b"\n\nf"], 3) == [b"abc", b"de", b""], "split across chunks; a last line with no newline is dropped"
        assert await read([b"abc\n"], 3) == [b"abc"], "exactly the limit is allowed"
        with pytest.raises(FrameTooLarge, match="a frame over 3 bytes"):
            await read([b"ab", b"cd"], 3)  # raised before the line ends: memory stays bounded
        with pytest.raises(FrameTooLarge):
            await read([b"abcd\n"], 3)

    run(main)


def test_tools_past_the_limit_and_long_descriptions_are_cut_with_warnings():
    async def main():
        async with hostile("stdio", "--many-tools=1500", "--long-description=50000") as (conns, spec, _, transcript):
            _, server = await within(STEP, lambda: conns.open(spec))
            assert len(server.tools) == 1000
            description = server.tools[0]["description"]
            assert len(description) == 2048 + len("… [truncated]") and description.endswith("… [truncated]")
            assert warnings(transcript) == [
                "hostile: listed 1501 tools; kept the first 1000 (tools limit; change it with the environment variable MCP_COURSE_MAX_TOOLS)",
                "hostile: cut the description of echo to 2048 characters (description limit; change it with the environment "
                "variable MCP_COURSE_MAX_DESCRIPTION)"]

    run(main)


def test_paging_stops_once_past_the_tools_limit():
    async def main():
        async with hostile("stdio", "--endless-cursor", limits=Limits(tools=20)) as (conns, spec, _, transcript):
            _, server = await within(STEP, lambda: conns.open(spec))
            assert len(server.tools) == 20
            assert warnings(transcript)[0].startswith("hostile: listed more than 20 tools; kept the first 20 (tools limit"), warnings(transcript)

    run(main)


def test_trimmed_names_at_most_five_tools():
    tools = [{"name": f"t{n}\x1b[31m", "description": "long text", "inputSchema": {"type": "object"}} for n in range(7)]
    kept, said = trimmed(tools, Limits(description=4, settings={}))
    assert [t["description"] for t in kept] == ["long… [truncated]"] * 7
    assert said == ["cut the descriptions of t0\\x1b[31m, t1\\x1b[31m, t2\\x1b[31m, t3\\x1b[31m, t4\\x1b[31m and 2 more "
                    "to 4 characters (description limit)"]


def test_limits_from_the_environment():
    assert Limits.from_environ({"MCP_COURSE_MAX_FRAME_BYTES": "1048576", "MCP_COURSE_MAX_TOOLS": " 50 "}) == Limits(frame=MIB, tools=50)
    with pytest.raises(ConfigError, match="environment variable MCP_COURSE_MAX_LIST_PAGES: expected a whole number of at least 1, got '0'"):
        Limits.from_environ({"MCP_COURSE_MAX_LIST_PAGES": "0"})
    with pytest.raises(ConfigError, match="limit 'frame'"):
        Limits(frame=0)


# --- 9: one bad argument fails one call -----------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "sse", "http"])
def test_a_lone_surrogate_fails_that_call_alone(transport):
    async def main():
        async with hostile(transport) as (conns, spec, docs, _):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "a\ud800b"}))
            assert str(error) == ("server 'hostile': tool 'echo': a lone surrogate (U+D800) in arguments.text: "
                                  "JSON text cannot carry it; not sent"), error
            assert server.state is State.CONNECTED, "the session stays up"
            assert (await server.call_tool("echo", {"text": "next"})).text() == "echo: next"
            with pytest.raises(ToolError, match=r"a lone surrogate \(U\+DC00\) in arguments.query\[1\]"):
                await docs.call_tool("search", {"query": ["hooks", "\udc00"]})
            assert docs.state is State.CONNECTED, "the healthy server is not blamed"

    run(main)


@pytest.mark.parametrize("transport", ["stdio", "sse", "http"])
def test_an_answer_with_a_lone_surrogate_fails_that_call_at_once(transport, capfd):
    """The SDK cannot parse it; waiting out the call timeout for an answer that already came helps nobody."""

    async def main():
        async with hostile(transport, "--lone-surrogate") as (conns, spec, _, _):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
            assert isinstance(error, ToolError) and "protocol error -32700: " in str(error), error
            assert "hex escape" in str(error), "the reason is given"
            assert server.state is State.CONNECTED

    run(main)
    assert "Traceback" not in capfd.readouterr().err


def test_unsendable_names_the_path():
    assert unsendable({"arguments": {"files": ["ok", {"name": "x\udfff"}]}}) == "a lone surrogate (U+DFFF) in arguments.files[1].name"
    assert unsendable({"arguments": {"text": "日本語 ✓"}}) is None


# --- 11: one malformed tool does not sink its server -------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "sse", "http"])
def test_malformed_tools_are_dropped_one_by_one(transport):
    async def main():
        async with hostile(transport, "--malformed-tools") as (conns, spec, _, transcript):
            _, server = await within(STEP, lambda: conns.open(spec))
            assert [t["name"] for t in server.tools] == ["echo"], "the good tool is kept"
            assert (await server.call_tool("echo", {"text": "hi"})).text() == "echo: hi"
            assert warnings(transcript) == [
                "hostile: dropped tool 'no_schema': inputSchema: Field required",
                "hostile: dropped tool 'string_schema': inputSchema: Input should be a valid dictionary or instance of InputSchema",
                "hostile: dropped tool 'array_schema': inputSchema.type: Input should be 'object'"]

    run(main)


# --- 13: session loss as real servers signal it; HTTP errors carry status and body -------------------


@pytest.mark.parametrize("status", ["400", "404"])
def test_a_forgotten_session_is_reinitialized_whether_400_or_404(status):
    async def main():
        async with hostile("http", "--forget-sessions-after=1", f"--lost-session-status={status}") as (conns, spec, _, transcript):
            server = await conns.open(spec)
            assert (await server.call_tool("echo", {"text": "one"})).text() == "echo: one"
            _, result = await within(STEP, lambda: server.call_tool("echo", {"text": "two"}))
            assert result.text() == "echo: two" and server.state is State.CONNECTED
            notes = [e["text"] for e in transcript.events if e["kind"] in ("note", "warning")]
            assert notes == ["hostile: session <hostile-session-1>",
                             f"hostile: HTTP {status} for session <hostile-session-1>: the server forgot it; re-initializing, then retrying 'echo' once",
                             "hostile: session <hostile-session-2>"], notes

    run(main)


@pytest.mark.parametrize("transport", ["sse", "http"])
def test_an_http_error_shows_its_status_and_body(transport):
    async def main():
        async with hostile(transport, "--http-error=503") as (conns, spec, _, _):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
            assert str(error) == "server 'hostile': tool 'echo': protocol error -32603: HTTP 503: boom: the tool backend is down", error
            assert server.state is State.CONNECTED, "one refused request is not a lost session"

    run(main)


# --- 14: SSE ---------------------------------------------------------------------------------------


def test_a_dropped_event_stream_is_connection_lost_without_a_traceback(capfd):
    async def main():
        async with hostile("sse", "--drop-stream-on-call") as (conns, spec, _, transcript):
            server = await conns.open(spec)
            _, error = await within(STEP, lambda: server.call_tool("echo", {"text": "hi"}))
            assert str(error) == "server 'hostile': tool 'echo': connection lost: the server ended the event stream", error
            assert server.state is State.FAILED
            assert warnings(transcript) == [], "no 'skipped a line' for a dropped stream"

    run(main)
    assert "Traceback" not in capfd.readouterr().err, "no stray traceback on stderr"


def test_the_wait_for_the_endpoint_is_bounded_by_the_connect_timeout():
    async def main():
        timeouts = replace(TIMEOUTS, connect=1)  # the subject: the endpoint event never comes
        async with hostile("sse", "--no-endpoint", timeouts=timeouts) as (conns, spec, _, _):
            took, error = await within(STEP, lambda: conns.open(spec))
            assert str(error) == "server 'hostile': no endpoint event within 1 s (connect timeout)", error
            assert took >= 1

    run(main)


# --- as a user meets them: a config file and the CLI ---------------------------------------------------


def test_the_cli_lists_and_calls_around_hostile_servers(tmp_path, monkeypatch):
    def server(*flags: str) -> dict:
        return {"command": sys.executable, "args": ["-m", "mock_servers.hostile", "--transport", "stdio", *flags], "cwd": str(ROOT)}

    config = tmp_path / "hostile.mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "bad_tools": server("--malformed-tools"), "loop": server("--repeat-cursor"), "flood": server("--endless-answer"),
        "docs": {"command": sys.executable, "args": ["-m", "mock_servers.docs", "--transport", "stdio"], "cwd": str(ROOT)}}}))
    monkeypatch.setenv("MCP_COURSE_MAX_FRAME_BYTES", str(FRAME))

    def cli(*args: str) -> subprocess.CompletedProcess:
        return in_process_cli("--config", str(config), *args, cwd=tmp_path)  # as `python -m harness` runs it (tests/test_app.py)

    listed = cli("servers", "--json")
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["bad_tools"]["state"] == "connected" and rows["bad_tools"]["tools"] == ["echo"], rows["bad_tools"]
    assert rows["loop"]["state"] == "failed" and "tools/list: the server sent cursor 'again' a second time" in rows["loop"]["error"]
    assert rows["docs"]["tools"] == ["search", "get_version"]
    flood = cli("call", "mcp__flood__echo", '{"text": "hi"}')
    assert flood.returncode == 1
    assert flood.stderr.splitlines()[-1].startswith("error: server 'flood': tool 'echo': sent a frame over 1 MiB (frame limit; "
                                                    "change it with the environment variable MCP_COURSE_MAX_FRAME_BYTES)"), flood.stderr
    odd = cli("call", "mcp__bad_tools__echo", '{"text": "\\ud800"}')  # starts bad_tools alone (call starts the server it names)
    assert (odd.returncode, odd.stderr.splitlines()[-1]) == (1, "error: server 'bad_tools': tool 'echo': a lone surrogate (U+D800) "
                                                                "in arguments.text: JSON text cannot carry it; not sent")
    assert "warning: bad_tools: dropped tool 'no_schema': inputSchema: Field required" in odd.stderr.splitlines(), \
        "the CLI says what a listing dropped"
    assert "Traceback" not in flood.stderr + odd.stderr + listed.stderr


@pytest.mark.parametrize(("status", "body", "ours", "forgot"), [
    (400, json.dumps(NO_VALID_SESSION), True, True),  # server-everything
    (400, "Invalid or expired session", True, True),
    (400, '{"error": {"message": "Unknown session id"}}', True, True),
    (400, "Session not found", True, True),
    (404, "", True, True),  # the spec: any body
    (400, '{"error": {"code": -32602, "message": "Invalid params: missing text"}}', True, False),
    (400, "No valid session ID provided", False, False),  # not our session id: not our session
    (500, "session invalid", True, False),
])
def test_which_answers_mean_the_server_forgot_our_session(status, body, ours, forgot):
    async def main():
        watch = SessionWatch()
        watch.session_id = "ours"
        request = httpx2.Request("POST", "http://127.0.0.1:1/mcp", headers={"mcp-session-id": "ours" if ours else "theirs"})
        await watch.on_response(httpx2.Response(status, content=body.encode(), request=request))
        assert (watch.expired, watch.status) == (forgot, status if forgot else 0)

    run(main)


def test_an_http_error_is_shown_short_and_printable():
    assert shown(500, b"") == "HTTP 500 with an empty body"
    assert shown(502, b"bad\x1b[2J\n   gateway\xff") == "HTTP 502: bad\\x1b[2J gateway\ufffd"
    assert shown(500, b"x" * 500) == "HTTP 500: " + "x" * 200 + "... (cut: 500 characters)"


# --- issue 36, 18: bytes that are not UTF-8 are said, once per server ------------------------------


def test_bytes_that_are_not_utf8_are_read_as_replacement_and_said_once_per_server():
    async def main():
        async with hostile("stdio", "--bad-utf8") as (conns, spec, _, transcript):
            first, second = await conns.open(spec), await conns.open(replace(spec, name="other"))
            for server in (first, second, first, second):
                assert (await server.call_tool("echo", {"text": "hi"})).text() == "echo: \ufffdhi"
            said = [text for text in warnings(transcript) if "not UTF-8" in text]
            assert said == [f"{name}: sent bytes on stdout that are not UTF-8; each invalid sequence is read as U+FFFD "
                            "(said once per server process)" for name in ("hostile", "other")], said

    run(main)


def test_the_cli_says_which_server_sent_bytes_that_are_not_utf8(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"latin": {
        "command": sys.executable, "cwd": str(ROOT), "args": ["-m", "mock_servers.hostile", "--transport", "stdio", "--bad-utf8"]}}}))
    done = in_process_cli("--home", str(tmp_path), "--config", str(config), "call", "mcp__latin__echo", '{"text": "hi"}')
    assert done.returncode == 0 and "echo: \ufffdhi" in done.stdout, done
    said = [line for line in done.stderr.splitlines() if "not UTF-8" in line]
    assert len(said) == 1 and "latin: sent bytes on stdout that are not UTF-8" in said[0], done.stderr
