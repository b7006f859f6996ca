"""A config that pins an era the server does not speak: the error names the "protocol" field, what the server speaks
and what to write instead; doctor files it under "protocol"; call says no second, misleading line."""

from __future__ import annotations

import json
import sys

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


def entry(server: str, speaks: str, pinned: str) -> dict:
    return {"command": sys.executable, "args": ["-m", "mock_servers.serve", server, "--transport", "stdio", "--era", speaks],
            "protocol": pinned}


@pytest.fixture
def path(tmp_path):
    config = tmp_path / "pinned.json"
    config.write_text(json.dumps({"mcpServers": {"modern": entry("handbook", "2026-07-28", "2025-11-25"),
                                                 "old": entry("docs", "2025-11-25", "2026-07-28")}}))
    return str(config)


def test_servers_name_the_field_the_versions_and_the_fix(path):
    rows = {r["name"]: r for r in json.loads(cli("--config", path, "servers", "--json").stdout)}
    assert 'the server speaks only 2026-07-28; "protocol": "2025-11-25" pins the handshake era: ' \
           'set "protocol" to "2026-07-28" or "auto"' in rows["modern"]["error"], rows["modern"]["error"]
    assert 'the server speaks the handshake era (it does not know server/discover); "protocol": "2026-07-28" pins ' \
           'the other era: set "protocol" to "2025-11-25" or "auto"' in rows["old"]["error"], rows["old"]["error"]


def test_doctor_files_it_under_protocol_with_the_fix(path):
    said = cli("--config", path, "doctor")
    assert said.returncode == 1, said
    assert "server 'modern': field 'protocol': initialize: the server speaks only 2026-07-28" in said.stdout, said.stdout
    assert f"fix: set \"protocol\" to \"2026-07-28\" or \"auto\" for server 'modern' in {path}" in said.stdout, said.stdout
    assert "field 'command'" not in said.stdout, "doctor blamed the command of a server that runs fine"


def test_call_says_its_server_did_not_connect_not_that_no_tool_exists(path):
    called = cli("--config", path, "call", "mcp__old__search", '{"query": "hooks"}')
    assert called.returncode == 1, called
    assert "no tool 'mcp__old__search'" not in called.stderr, called.stderr
    assert called.stderr.rstrip().endswith("'mcp__old__search' is a tool of server 'old', which did not connect (its error is above)"), \
        called.stderr
