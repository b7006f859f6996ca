"""JSON nested past the limit costs only what it came in (issue 18, item 3).

``harness.nesting.MAX_NESTING`` bounds JSON from a person, a file or a model (a config
file, a call's arguments, an ``--answer``); a server's answer nested past every parser's
limit fails that call alone, with the nesting error, and the session goes on.
"""

from __future__ import annotations

import io
import json
import sys

import anyio
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

from harness import app, config, nesting
from harness.connection import Connections
from harness.errors import ConfigError, ToolError
from harness.spec import ServerSpec, State
from mock_servers.launch import serve_http

pytestmark = pytest.mark.usefixtures("no_process_left")
DEEP = 5000


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_loads_refuses_past_the_limit_and_counts_without_recursion():
    assert nesting.depth(json.loads(deep(100))) == 100
    assert nesting.loads(deep(nesting.MAX_NESTING)) is not None
    for text in (deep(nesting.MAX_NESTING + 1), deep(100_000), '{"a": ' * 3000 + "1" + "}" * 3000):
        with pytest.raises(nesting.TooDeep, match=r"^nested deeper than 100 levels \(nesting limit\)$"):
            nesting.loads(text)


def test_a_config_file_nested_too_deep_is_one_error_naming_the_file(tmp_path):
    deep_file = tmp_path / ".mcp.json"
    deep_file.write_text('{"mcpServers": {"x": {"command": "a", "args": ' + deep(DEEP) + "}}}")
    with pytest.raises(ConfigError, match=r"\.mcp\.json: nested deeper than 100 levels \(nesting limit\)"):
        config.load(config.Paths(home=tmp_path / "home", cwd=tmp_path, managed=tmp_path / "none"), [deep_file])


@pytest.mark.parametrize("argv", [
    ["call", "mcp__docs__search", '{"query": ' + deep(20_000) + "}"],
    ["--answer", '{"form": {"a": ' + deep(DEEP) + "}}", "servers"],
])
def test_the_cli_refuses_deep_arguments_in_one_line(tmp_path, argv, capsys):
    config_file = tmp_path / "mcp.json"
    config_file.write_text(json.dumps({"mcpServers": {}}))
    err = io.StringIO()
    try:
        code = app.main(["--config", str(config_file), *argv], io.StringIO(), err)
    except SystemExit as exc:  # argparse refuses a bad --answer
        code = exc.code
    said = (err.getvalue() + capsys.readouterr().err).strip().splitlines()
    assert code == 2 and said and "nested deeper than 100 levels (nesting limit)" in said[-1], said
    assert "Traceback" not in "\n".join(said)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_server_answer_nested_past_every_parser_fails_that_call_only(transport):
    async def main():
        flags = ("--transport", transport, "--deep-answer", "100000")
        async with Connections(timeouts=TIMEOUTS) as conns:
            if transport == "stdio":
                server = await conns.open(ServerSpec("hostile", "stdio", command=sys.executable, cwd=str(ROOT),
                                                     args=("-m", "mock_servers.hostile", *flags)))
                await check(server)
            else:
                async with serve_http("hostile", transport, *flags, module="mock_servers.hostile") as url:
                    await check(await conns.open(ServerSpec("hostile", "http", url=url)))

    async def check(server):
        with anyio.fail_after(TIMEOUTS.call / 2):  # the error comes at once, not at the call timeout
            with pytest.raises(ToolError) as caught:
                await server.call_tool("echo", {"text": "hi"})
        said = str(caught.value)
        # stdio: the harness reads the frame (its nesting limit); http: the SDK reads the body (pydantic's recursion limit)
        assert "nested deeper than 100 levels" in said or "recursion limit exceeded" in said, said
        assert "\n" not in said and len(said) < 400, f"expected one short line, got {said!r}"
        assert server.state is State.CONNECTED, "one deep answer costs that call, not the session"

    anyio.run(main)
