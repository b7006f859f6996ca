"""A bad answer costs one call, never the run or the server (issue 18, items 1, 2, 4, 10).

Each case is one switch of ``mock_servers.hostile`` over stdio (http where the transport
matters): a result that breaks its own output schema, a server's own -32000 error, a
server that declares resources but answers -32601 to templates, a resource blob past the
frame limit. Each ends with one line naming the server, and the session still answers.
"""

from __future__ import annotations

import sys

import anyio
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

from harness import stack
from harness.connection import Connections
from harness.errors import ToolError
from harness.spec import MIB, Limits, ServerSpec, State
from harness.transcript import Transcript
from mock_servers.launch import serve_http

pytestmark = pytest.mark.usefixtures("no_process_left")


def hostile(*flags: str) -> ServerSpec:
    return ServerSpec("hostile", "stdio", command=sys.executable, cwd=str(ROOT), args=("-m", "mock_servers.hostile", "--transport", "stdio", *flags))


async def failed_call(server, tool="echo") -> str:
    """The error's first line (a stdio server's stderr tail may follow it, indented, as the harness writes it)."""
    with pytest.raises(ToolError) as caught:
        await server.call_tool(tool, {"text": "hi"})
    said, _, rest = str(caught.value).partition("\n")
    assert all(line.startswith("  ") for line in rest.splitlines()), f"expected one line and a stderr tail, got {caught.value!r}"
    return said


@pytest.mark.parametrize(("kind", "why"), [
    ("mismatch", "Invalid structured content returned by tool echo: 'three' is not of type 'number'"),
    ("invalid", "Invalid schema for tool echo"),
    ("dangling", "Invalid schema for tool echo"),
])
def test_a_result_that_breaks_its_own_output_schema_fails_that_call_only(kind, why):
    async def main():
        async with Connections(timeouts=TIMEOUTS) as conns:
            server = await conns.open(hostile("--bad-structured", kind), mechanisms=stack.mechanisms())
            said = await failed_call(server)
            assert said.startswith("server 'hostile': tool 'echo': the server's result breaks the tool's own output schema: "), said
            assert why in said, said
            assert server.state is State.CONNECTED
            await failed_call(server)  # and again: the session is fine, the server still lies

    anyio.run(main)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_servers_own_error_32000_is_that_calls_error_not_a_lost_connection(transport):
    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            if transport == "stdio":
                await check(await conns.open(hostile("--error-code", "-32000"), mechanisms=stack.mechanisms()), transcript)
            else:
                async with serve_http("hostile", "http", "--transport", "http", "--error-code", "-32000", module="mock_servers.hostile") as url:
                    await check(await conns.open(ServerSpec("hostile", "http", url=url), mechanisms=stack.mechanisms()), transcript)

    async def check(server, transcript):
        said = await failed_call(server)
        assert said == "server 'hostile': tool 'echo': protocol error -32000: server error: the backend is down", said
        assert server.state is State.CONNECTED and server.generation == 1, "not killed and respawned"

    anyio.run(main)


def test_a_lost_connection_is_still_one():
    """The other side of the same code: a server that dies mid-call is a lost connection."""

    async def main():
        async with Connections(timeouts=TIMEOUTS) as conns:
            server = await conns.open(ServerSpec("deploy", "stdio", command=sys.executable, cwd=str(ROOT),
                                                 args=("-m", "mock_servers.deploy", "--transport", "stdio", "--crash-after", "0")))
            said = await failed_call(server, "status")
            assert "connection lost" in said or "exited with code" in said, said
            assert server.state is State.FAILED

    anyio.run(main)


def test_a_32601_to_templates_leaves_the_resources_and_the_connection():
    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            server = await conns.open(hostile("--resources-without-templates"), mechanisms=stack.mechanisms())
            assert server.state is State.CONNECTED
            assert [r["uri"] for r in server.resources] == ["hostile://blob"] and server.resource_templates == []
            warned = [e["text"] for e in transcript.events if e["kind"] == "warning"]
            assert any("resources/templates/list" in w and "-32601" in w for w in warned), warned

    anyio.run(main)


def test_a_resource_blob_past_the_frame_limit_names_the_limit():
    async def main():
        async with Connections(timeouts=TIMEOUTS, limits=Limits(frame=1 * MIB)) as conns:
            server = await conns.open(hostile("--huge-resource", str(3 * MIB)), mechanisms=stack.mechanisms())
            with pytest.raises(ToolError) as caught:
                await server.read_resource("hostile://blob")
            said = str(caught.value)
            assert "a frame over 1 MiB (frame limit; change it with the environment variable MCP_COURSE_MAX_FRAME_BYTES)" in said, said
            assert "\n" not in said

    anyio.run(main)


def test_server_text_reaches_the_terminal_escaped_and_on_one_line(tmp_path):
    """Issue 18, item 8: an error message and a description with a screen clear, a forged line and 100 KB."""
    import io
    import json

    from harness import app

    config_file = tmp_path / "mcp.json"
    config_file.write_text(json.dumps({"mcpServers": {"hostile": {"command": sys.executable, "cwd": str(ROOT),
                                                                   "args": ["-m", "mock_servers.hostile", "--transport", "stdio",
                                                                            "--nasty-text", "--error-code", "-32603"]}}}))
    base = ["--home", str(tmp_path), "--managed", str(tmp_path / "none"), "--config", str(config_file)]
    for argv in (["tools"], ["call", "mcp__hostile__echo", '{"text": "hi"}']):
        out, err = io.StringIO(), io.StringIO()
        code = app.main(base + argv, out, err)
        said = out.getvalue() + err.getvalue()
        assert "\x1b" not in said, f"{argv}: a raw escape reached the terminal"
        assert not any(line.startswith("error: forged") for line in said.splitlines()), f"{argv}: a forged line"
        assert all(len(line) < 1000 for line in said.splitlines()), f"{argv}: a line of {max(map(len, said.splitlines()))} characters"
        if argv[0] == "call":
            assert code == 1 and "protocol error -32603: boom\\x1b[2J\\nerror: forged line" in said, said


def test_a_server_that_floods_then_stalls_is_closed_before_the_loop_ends(tmp_path):
    """Issue 18, item 9: after a list timeout with a burst of notifications unread, the CLI exits clean.

    A child process, since what failed was the interpreter's exit: asyncio's transport, left
    open, was closed by the garbage collector after the event loop ("Exception ignored ...
    Event loop is closed").
    """
    import json
    import subprocess

    from limits import RUN

    config_file = tmp_path / "mcp.json"
    config_file.write_text(json.dumps({"mcpServers": {"burst": {
        "command": sys.executable, "cwd": str(ROOT), "args": ["-m", "mock_servers.hostile", "--transport", "stdio", "--burst", "300000"],
        "timeouts": {"list": 1, "connect": 60}}}}))
    done = subprocess.run([sys.executable, "-m", "harness", "--home", str(tmp_path), "--managed", str(tmp_path / "none"),
                           "--config", str(config_file), "servers"], cwd=ROOT, capture_output=True, text=True, timeout=RUN)
    assert done.returncode == 0 and "no answer to tools/list within 1 s (list timeout" in done.stdout, done.stdout + done.stderr
    assert done.stderr == "", f"expected nothing on stderr, got:\n{done.stderr[:2000]}"
