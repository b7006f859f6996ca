"""s34 through the user CLI: a server that speaks only 2026-07-28 (``--era 2026-07-28``, which
refuses ``initialize`` with -32022) works through every command, over stdio and over Streamable
HTTP; a dual-era server is reported as 2026-07-28; a config entry that pins the handshake era
gets the server's -32022 as its error, naming initialize."""

from __future__ import annotations

import json
import sys

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from mock_servers.launch import command
from serving import served
from test_app import cli

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
MODERN_ONLY = ("--era", "2026-07-28")


def stdio(*flags: str, **more) -> dict:
    return {"command": sys.executable, "args": ["-m", "mock_servers.handbook", "--transport", "stdio", *flags], **more}


@pytest.fixture
def http_url():
    """The handbook over Streamable HTTP, 2026-07-28 only, for the length of a test; stopped and reaped after."""
    with served(command("handbook", "http", *MODERN_ONLY)) as url:
        yield url


def config(tmp_path, servers: dict) -> str:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def every_command(path: str) -> None:
    """servers, tools --json, call, resources, read, prompts, prompt: each one answered by the server 'hb'."""
    listed = cli("--config", path, "servers", "--json")
    assert listed.returncode == 0, listed
    [row] = json.loads(listed.stdout)
    assert (row["state"], row["era"], row["error"]) == ("connected", "2026-07-28", None), row
    table = cli("--config", path, "servers")
    assert " 2026-07-28 " in table.stdout, table.stdout
    tools = cli("--config", path, "tools", "--json")
    assert tools.returncode == 0 and tools.stderr == "", tools
    assert {t["name"] for t in json.loads(tools.stdout)} == {"mcp__hb__search_pages", "mcp__hb__publish_page"}, tools.stdout
    called = cli("--config", path, "call", "mcp__hb__search_pages", '{"query": "style"}', "--json")
    assert called.returncode == 0, called
    assert "handbook://pages/style" in json.loads(called.stdout)["content"][0]["text"], called.stdout
    resources = cli("--config", path, "resources")
    assert resources.returncode == 0 and "hb  handbook://pages/style" in resources.stdout, resources
    read = cli("--config", path, "read", "handbook://pages/style", "--json")
    assert read.returncode == 0 and json.loads(read.stdout)["contents"][0]["text"], read
    prompts = cli("--config", path, "prompts")
    assert prompts.returncode == 0 and prompts.stdout.startswith("hb/summarize(title)"), prompts
    prompt = cli("--config", path, "prompt", "summarize", '{"title": "style"}', "--json")
    assert prompt.returncode == 0 and "style" in json.loads(prompt.stdout)["text"], prompt


def test_a_2026_07_28_only_server_over_stdio_through_every_command(tmp_path):
    every_command(config(tmp_path, {"hb": stdio(*MODERN_ONLY)}))


def test_a_2026_07_28_only_server_over_streamable_http_through_every_command(tmp_path, http_url):
    every_command(config(tmp_path, {"hb": {"type": "http", "url": http_url}}))


def test_a_dual_era_server_is_reported_as_2026_07_28_unless_its_entry_pins_the_handshake_era(tmp_path):
    path = config(tmp_path, {"both": stdio(), "old": stdio(protocol="2025-11-25"), "only": stdio(*MODERN_ONLY, protocol="2025-11-25")})
    rows = {r["name"]: r for r in json.loads(cli("--config", path, "servers", "--json").stdout)}
    assert (rows["both"]["era"], rows["old"]["era"]) == ("2026-07-28", "2025-11-25"), rows
    assert rows["only"]["state"] == "failed" and rows["only"]["era"] is None
    assert rows["only"]["error"].startswith("server 'only': initialize: the server speaks only 2026-07-28; \"protocol\": \"2025-11-25\" pins the handshake era"), rows


@pytest.fixture
def protected_url():
    """The OAuth-protected docs server (s26's, with its authorization server); stopped and reaped after."""
    with served(command("docs", "http", module="mock_servers.protected")) as url:
        yield url


def test_oauth_sign_in_then_2026_07_28(tmp_path, protected_url):
    """The sign-in runs inside the negotiation, and the request sent again after it still carries the
    protocol header: the server's 2026-07-28 entry refuses a request whose header and _meta disagree."""
    path = config(tmp_path, {"docs": {"type": "http", "url": protected_url}})
    tokens = ("--token-store", str(tmp_path / "tokens"), "--sign-in", "auto")
    before = json.loads(cli("--config", path, *tokens, "servers", "--json").stdout)
    assert [(r["state"], r["era"]) for r in before] == [("needs-auth", None)], before
    signed = cli("--config", path, *tokens, "call", "mcp__docs__authenticate", "{}")
    assert signed.returncode == 0 and "Authorized 'docs'" in signed.stdout, signed
    after = json.loads(cli("--config", path, *tokens, "servers", "--json").stdout)
    assert [(r["state"], r["era"]) for r in after] == [("connected", "2026-07-28")], after
