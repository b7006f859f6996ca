"""mock_servers.serve and mock_servers.launch: the catalog served over stdio, SSE and HTTP.

A plain SDK client checks each transport; the fault switches are driven with raw JSON-RPC
lines so every byte and the exit code are visible. After every test no process started by
it is left, not even a zombie. Waits are deadlines on events, never bare sleeps. The servers
here are interpreters of their own, not forks (``spawned``, tests/forkserver.py): what is
tested is their process, down to its listening sockets.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import pytest
from leaks import children, no_process_left  # noqa: F401  (the fixture)
from limits import RUN

from harness.errors import ServerError
from mock_servers.catalog import SERVERS
from mock_servers.launch import serve_http
from mock_servers.serve import MALFORMED_LINE

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = RUN  # seconds for a server to start, answer or exit (tests/limits.py)


# --- processes: no orphans, no zombies (tests/leaks.py), loopback only ------------------------

pytestmark = pytest.mark.usefixtures("no_process_left", "spawned")


def _server_pid() -> str:
    pids = [p.pid for p in children() if "mock_servers" in p.cmdline]
    assert len(pids) == 1, f"expected one mock server child, found {pids}"
    return pids[0]


def _listening(pid: str) -> list[tuple[str, str]]:
    """(table, local address) of each listening TCP socket the process owns, from /proc."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                found.append((table, cols[1]))
    return found


def _assert_loopback_only(url: str) -> None:
    port = int(url.split(":")[2].split("/")[0])
    assert _listening(_server_pid()) == [("tcp", f"0100007F:{port:04X}")], "expected one listener, on 127.0.0.1:<port>"


# --- a plain SDK client over each transport ----------------------------------------------------


def _expected_tools(name: str) -> list[dict]:
    return [t.listing() for t in SERVERS[name]().tools]


def _dump(tools) -> list[dict]:
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]


async def _exercise(session, name: str) -> None:
    init = await session.initialize()
    assert (init.server_info.name, init.server_info.version) == (name, SERVERS[name]().version)
    assert _dump((await session.list_tools()).tools) == _expected_tools(name)
    if name == "docs":
        found = await session.call_tool("search", {"query": "hooks"})
        assert (found.is_error, found.content[0].text) == (False, SERVERS["docs"]().tool("search").handler({"query": "hooks"}))
        bad = await session.call_tool("search", {"query": ""})
        assert (bad.is_error, bad.content[0].text) == (True, "'query' must be a non-empty string")
    else:
        started = await session.call_tool("trigger", {"service": "api"})
        assert started.content[0].text == "dep-0001: deploying api to staging"
        assert (await session.call_tool("status", {"deployment_id": "dep-0001"})).content[0].text == "dep-0001: api is live on staging"
        bad = await session.call_tool("status", {"deployment_id": "dep-9"})
        assert (bad.is_error, bad.content[0].text) == (True, "unknown deployment 'dep-9'")
    unknown = await session.call_tool("nope", {})
    assert (unknown.is_error, unknown.content[0].text) == (True, "unknown tool 'nope'")


def test_stdio_serves_the_catalog():  # deploy is checked over http below
    name = "docs"
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def main():
        params = StdioServerParameters(command=sys.executable, args=["-m", f"mock_servers.{name}", "--transport", "stdio"],
                                       cwd=str(ROOT))
        with tempfile.TemporaryFile("w+") as errlog:
            with anyio.fail_after(DEADLINE):
                async with stdio_client(params, errlog=errlog) as (read, write):
                    async with ClientSession(read, write) as session:
                        await _exercise(session, name)
            errlog.seek(0)
            assert errlog.read() == "", "a server without --noisy-stderr writes nothing to stderr"

    anyio.run(main)


@pytest.mark.parametrize(("name", "transport"), [("docs", "sse"), ("deploy", "http")])
def test_network_transports_serve_the_catalog_on_loopback(name, transport):
    from mcp import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        with anyio.fail_after(DEADLINE):
            async with serve_http(name, transport) as url:
                assert url.startswith("http://127.0.0.1:") and url.endswith("/sse" if transport == "sse" else "/mcp")
                _assert_loopback_only(url)
                client = sse_client(url) if transport == "sse" else streamable_http_client(url)
                async with client as (read, write), ClientSession(read, write) as session:
                    await _exercise(session, name)

    anyio.run(main)


def test_protected_server_and_its_authorization_server_listen_on_loopback_only():
    async def main():
        with anyio.fail_after(DEADLINE):
            async with serve_http("docs", "http", module="mock_servers.protected") as url:
                assert url.startswith("http://127.0.0.1:")
                listeners = _listening(_server_pid())
                assert len(listeners) == 2, f"expected the MCP server and its authorization server, got {listeners}"
                assert all(table == "tcp" and address.startswith("0100007F:") for table, address in listeners), listeners

    anyio.run(main)


def test_forget_sessions_after_n_calls_gives_404_on_the_next_request():
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    statuses: list[tuple[str, int]] = []

    async def record(response):
        statuses.append((response.request.method, response.status_code))

    async def main():
        with anyio.fail_after(DEADLINE):
            async with serve_http("docs", "http", "--forget-sessions-after", "2") as url:
                async with httpx2.AsyncClient(event_hooks={"response": [record]}) as http:
                    async with streamable_http_client(url, http_client=http) as (read, write):
                        async with ClientSession(read, write) as session:
                            await session.initialize()
                            await session.list_tools()
                            for _ in range(2):
                                assert not (await session.call_tool("get_version", {})).is_error
                            statuses.clear()
                            with pytest.raises(MCPError, match="Session not found"):
                                await session.call_tool("get_version", {})
        assert ("POST", 404) in statuses, f"expected the call after the 2nd to get HTTP 404, saw {statuses}"

    anyio.run(main)


# --- fault switches, driven with raw JSON-RPC lines over stdio ---------------------------------


class RawStdio:
    """One server process; JSON-RPC lines in, stdout lines out (read with a deadline), exit code."""

    def __init__(self, *flags: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mock_servers.docs", "--transport", "stdio", *flags], cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)  # EOF

    def send(self, method: str, params: dict | None = None, id: int | None = None) -> None:
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        if id is not None:
            message["id"] = id
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def line(self) -> str | None:
        """The next stdout line, or None at EOF."""
        try:
            return self._lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError(f"no stdout line within {DEADLINE} s") from None

    def reply(self) -> dict:
        line = self.line()
        assert line is not None, "expected a JSON-RPC reply, got EOF"
        return json.loads(line)

    def initialize(self) -> dict:
        self.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "test", "version": "0"}}, id=1)
        result = self.reply()
        self.send("notifications/initialized")
        return result

    def call(self, tool: str, id: int, **arguments) -> None:
        self.send("tools/call", {"name": tool, "arguments": arguments}, id=id)

    def finish(self) -> tuple[int, str]:
        """Close stdin, wait (bounded), reap; returns (exit code, stderr)."""
        try:
            _, err = self.process.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        self._reader.join(DEADLINE)
        return self.process.returncode, err

    def __enter__(self) -> RawStdio:
        return self

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.finish()


def test_crash_after_n_calls_exits_3_without_answering_and_noisy_stderr_talks():
    with RawStdio("--crash-after", "1", "--noisy-stderr") as server:
        server.initialize()
        server.call("search", 2, query="mcp")
        assert server.reply()["id"] == 2
        server.call("search", 3, query="mcp")
        assert server.line() is None, "the crashing call must get no answer"
        code, err = server.finish()
    assert code == 3
    assert err.splitlines() == ["docs: starting docs 1.4.2 over stdio", "docs: call 1: search",
                                "docs: crashing on call 2 (--crash-after 1)"]


def test_hang_on_never_answers_that_tool_but_answers_others():
    with RawStdio("--hang-on", "search") as server:
        server.initialize()
        server.call("search", 2, query="mcp")
        server.call("get_version", 3)
        server.send("ping", id=4)
        assert [server.reply()["id"], server.reply()["id"]] == [3, 4], "search (id 2) must stay unanswered"


def test_malformed_stdout_puts_a_non_json_line_before_the_first_answer():
    with RawStdio("--malformed-stdout") as server:
        server.initialize()
        server.send("tools/list", id=2)
        assert server.reply()["id"] == 2
        server.call("get_version", 3)
        assert server.line() == MALFORMED_LINE
        assert server.reply() == {"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "docs 1.4.2 (4 pages)"}], "isError": False}}
        server.call("get_version", 4)
        assert server.reply()["id"] == 4, "only the first call is preceded by the bad line"


def test_slow_start_delays_the_first_answer():
    started = time.monotonic()
    with RawStdio("--slow-start", "0.5") as server:
        assert server.initialize()["result"]["serverInfo"] == {"name": "docs", "version": "1.4.2"}
        assert time.monotonic() - started >= 0.5


def test_exit_at_start_prints_one_line_and_exits_with_the_code():
    done = subprocess.run([sys.executable, "-m", "mock_servers.deploy", "--transport", "stdio", "--exit-at-start", "7"],
                          cwd=ROOT, capture_output=True, text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (7, "", "deploy: exiting at start with code 7 (--exit-at-start)\n")


# --- launch: failures before READY ----------------------------------------------------------


def test_launch_reports_an_early_exit_with_the_stderr_tail():
    async def main():
        with pytest.raises(ServerError) as caught:
            async with serve_http("deploy", "http", "--exit-at-start", "4"):
                pass
        assert str(caught.value) == ("server 'deploy': exited with code 4 before it was ready; stderr:\n"
                                     "  deploy: exiting at start with code 4 (--exit-at-start)")

    anyio.run(main)


def test_launch_gives_up_at_the_deadline_and_kills_the_server():
    async def main():
        # The stop is bounded (SIGTERM, then SIGKILL): a hang fails here; the leak check sees it killed.
        with anyio.fail_after(DEADLINE), pytest.raises(ServerError, match=r"^server 'docs': not ready after 0.5 s; no stderr$"):
            async with serve_http("docs", "sse", "--slow-start", "60", ready_timeout=0.5):
                pass

    anyio.run(main)


def test_flags_for_the_wrong_transport_are_refused():
    done = subprocess.run([sys.executable, "-m", "mock_servers.docs", "--transport", "http", "--malformed-stdout"],
                          cwd=ROOT, capture_output=True, text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "--malformed-stdout needs --transport stdio" in done.stderr


@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("headers, status", [
    ({"host": "evil.example:80"}, 421),                                        # a rebound name: the page's own Host
    ({"host": "127.0.0.1:9"}, 404),                                            # loopback: past the check (no such path)
    ({"host": "localhost:9", "origin": "http://evil.example"}, 403),           # a script on another site
    ({"host": "127.0.0.1:9", "origin": "http://localhost:5173"}, 404),         # a loopback page may
])
def test_hostile_refuses_dns_rebinding_whatever_its_switches(transport, headers, status):
    """The hand-written server checks Host and Origin as the SDK's servers do, before any route (in process: its ASGI app)."""
    from mock_servers.hostile import App, Server, parse

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    app = App(Server(parse(["--transport", transport, "--http-error", "500"])))
    scope = {"type": "http", "path": "/nowhere", "method": "POST",
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == status
