"""harness.config: the three file formats, scopes and precedence, variables, one bad entry, allow and deny."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from harness import config
from harness.config import Paths, ServerConfig
from harness.errors import ConfigError, ServerError
from harness.hub import Hub
from harness.spec import ServerSpec, State

STDIO = {"command": "python3", "args": ["-m", "mock_servers.docs", "--transport", "stdio"]}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def by_name(servers: list[ServerConfig]) -> dict[str, ServerConfig]:
    return {s.name: s for s in servers}


def paths(tmp_path: Path, cwd: str = "project") -> Paths:
    (tmp_path / cwd).mkdir(parents=True, exist_ok=True)
    return Paths(home=tmp_path / "home", cwd=tmp_path / cwd, managed=tmp_path / "managed")


# --- formats, as each product writes them --------------------------------------------------------


def test_claude_desktop_file(tmp_path):
    f = write(tmp_path / "claude_desktop_config.json", {"mcpServers": {"fs": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"A": "1"}}}})
    (fs,) = config.load(paths(tmp_path), [f])
    assert fs.spec == ServerSpec("fs", "stdio", command="npx", args=("-y", "@modelcontextprotocol/server-filesystem", "/tmp"), env={"A": "1"})
    assert fs.scope == "file" and fs.state is State.PENDING


def test_claude_code_types_and_a_url_without_type_is_an_error_there(tmp_path):
    f = write(tmp_path / ".mcp.json", {"mcpServers": {
        "local": STDIO, "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
        "remote": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"X": "y"}},
        "bare": {"url": "https://mcp.example/mcp"}, "cline_word": {"type": "streamableHttp", "url": "https://x.example"}}})
    got = by_name(config.load(paths(tmp_path), [f]))
    assert got["local"].spec.transport == "stdio" and got["legacy"].spec.transport == "sse"
    assert got["remote"].spec.transport == "http" and dict(got["remote"].spec.headers) == {"X": "y"}
    assert got["bare"].reason == "server 'bare': field 'type': required with 'url' (sse or http)"
    assert got["cline_word"].reason == "server 'cline_word': field 'type': expected one of stdio, sse, http (did you mean 'http'?)"


def test_cline_file_with_its_own_fields(tmp_path):
    f = write(tmp_path / "cline_mcp_settings.json", {"mcpServers": {
        "a": {**STDIO, "disabled": True, "autoApprove": ["search"], "timeout": 120},
        "b": {"type": "streamableHttp", "url": "http://127.0.0.1:1/mcp"},
        "c": {"url": "http://127.0.0.1:1/sse"},  # Cline's rule: a bare url is SSE
        "d": {"transportType": "http", "url": "http://127.0.0.1:1/mcp"},  # the legacy key
        "e": {**STDIO, "timeout": 0.5}}})
    got = by_name(config.load(paths(tmp_path), [f]))
    assert got["a"].state is State.DISABLED and got["a"].raw["autoApprove"] == ["search"] and got["a"].timeouts.call == 120
    assert [got[n].spec.transport for n in "bcd"] == ["http", "sse", "http"]
    assert got["e"].reason == "server 'e': field 'timeout': expected seconds, from 1 to 3600"


@pytest.mark.parametrize(("entry", "message"), [
    ({"args": ["x"]}, "server 'x': field 'command': required"),
    ({"command": ""}, "server 'x': field 'command': expected a non-empty string"),
    ({"command": "a", "args": "b c"}, "server 'x': field 'args': expected a list of strings"),
    ({"command": "a", "env": {"K": 1}}, "server 'x': field 'env': expected an object of strings"),
    ({"type": "http", "url": "ftp://h/x"}, "server 'x': field 'url': expected an http:// or https:// URL"),
    ({"type": "ws", "url": "ws://h"}, "server 'x': field 'type': expected one of stdio, sse, http"),
    ("not an object", "server 'x': expected an object"),
])
def test_each_broken_entry_names_server_and_field(tmp_path, entry, message):
    f = write(tmp_path / ".mcp.json", {"mcpServers": {"x": entry, "good": STDIO}})
    got = by_name(config.load(paths(tmp_path), [f]))
    assert got["x"].state is State.FAILED and got["x"].reason == message and got["x"].spec is None
    assert got["good"].state is State.PENDING, "one bad entry must not cost the good ones"


@pytest.mark.parametrize("name", ["docs__evil", "docs._x", "a__"])
def test_a_server_whose_name_would_hold_the_separator_is_refused(tmp_path, name):
    """mcp__{server}__{tool}: a server spelled with '__' would pass for another server (issue 18, item 13)."""
    f = write(tmp_path / ".mcp.json", {"mcpServers": {name: STDIO, "docs": STDIO}})
    got = by_name(config.load(paths(tmp_path), [f]))
    assert got[name].state is State.FAILED and "holds the separator '__'; rename it" in got[name].reason, got[name].reason
    assert got[name].reason.startswith(f"server '{name}': its name reads ")
    assert got["docs"].state is State.PENDING


def test_a_file_that_is_not_json_names_the_file_and_line(tmp_path):
    f = write(tmp_path / ".mcp.json", '{"mcpServers": {"x": }')
    with pytest.raises(ConfigError, match=r"\.mcp\.json: not valid JSON \(line 1, column 22\)"):
        config.load(paths(tmp_path), [f])


# --- scopes and precedence -----------------------------------------------------------------------


def test_local_beats_project_beats_user_and_the_closer_project_file_wins(tmp_path):
    p = paths(tmp_path, "repo/app")
    write(tmp_path / "home" / ".claude.json", {
        "mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"}},
        "projects": {str(p.cwd.resolve()): {"mcpServers": {"a": {"command": "local-a"}}}}})
    write(tmp_path / "repo" / ".mcp.json", {"mcpServers": {"a": {"command": "outer-a"}, "b": {"command": "outer-b"}, "d": {"command": "outer-d"}}})
    write(tmp_path / "repo" / "app" / ".mcp.json", {"mcpServers": {"d": {"command": "inner-d"}}})
    got = by_name(config.load(p))
    assert {n: (s.spec.command, s.scope) for n, s in got.items()} == {
        "a": ("local-a", "local"), "b": ("outer-b", "project"), "c": ("user-c", "user"), "d": ("inner-d", "project")}


@pytest.mark.parametrize(("answers", "state", "why"), [
    ({}, State.BLOCKED, "not approved yet"),
    ({"enabledMcpjsonServers": ["my.docs"]}, State.PENDING, ""),  # names compare as normalized: my.docs is my_docs
    ({"enableAllProjectMcpServers": True}, State.PENDING, ""),
    ({"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["my_docs"]}, State.DISABLED, "rejected"),
])
def test_a_project_server_runs_only_once_approved_and_a_rejection_wins(tmp_path, answers, state, why):
    p = paths(tmp_path)
    write(tmp_path / "home" / ".claude.json", {"projects": {str(p.cwd.resolve()): answers}})
    write(p.cwd / ".mcp.json", {"mcpServers": {"my_docs": STDIO}})
    [server] = config.load(p)
    assert server.state is state and why in server.reason


def test_files_given_explicitly_need_no_approval(tmp_path):
    f = write(tmp_path / ".mcp.json", {"mcpServers": {"docs": STDIO}})
    assert [s.state for s in config.load(paths(tmp_path), [f])] == [State.PENDING]


def test_an_enterprise_file_is_exclusive(tmp_path):
    p = paths(tmp_path)
    write(tmp_path / "home" / ".claude.json", {"mcpServers": {"mine": STDIO}})
    write(tmp_path / "managed" / "managed-mcp.json", {"mcpServers": {"corp": STDIO}})
    assert [(s.name, s.scope) for s in config.load(p)] == [("corp", "enterprise")]


def test_no_files_at_all_is_no_servers(tmp_path):
    assert config.load(paths(tmp_path)) == []


# --- allow and deny ----------------------------------------------------------------------------------


def policy(tmp_path: Path, **rules: object) -> Paths:
    p = paths(tmp_path)
    write(tmp_path / "managed" / "managed-settings.json", rules)
    write(tmp_path / "home" / ".claude.json", {"mcpServers": {
        "docs": STDIO, "sh": {"command": "bash", "args": ["-c", "x"]},
        "corp": {"type": "http", "url": "https://mcp.corp.example/mcp"}, "evil": {"type": "sse", "url": "https://x.untrusted.example/sse"}}})
    return p


def test_deny_by_name_command_and_url_wildcard(tmp_path):
    p = policy(tmp_path, deniedMcpServers=[{"serverName": "docs"}, {"serverCommand": ["bash", "-c", "x"]},
                                          {"serverUrl": "https://*.untrusted.example/*"}])
    got = by_name(config.load(p))
    assert {n: s.state for n, s in got.items()} == {"corp": State.PENDING, "docs": State.BLOCKED, "evil": State.BLOCKED, "sh": State.BLOCKED}
    assert got["evil"].reason == 'denied by serverUrl "https://*.untrusted.example/*" (managed-settings.json)'


def test_an_allowlist_admits_only_what_it_names_and_deny_wins(tmp_path):
    p = policy(tmp_path, allowedMcpServers=[{"serverName": "docs"}, {"serverName": "corp"}], deniedMcpServers=[{"serverName": "corp"}])
    got = by_name(config.load(p))
    assert {n: s.state for n, s in got.items()} == {"corp": State.BLOCKED, "docs": State.PENDING, "evil": State.BLOCKED, "sh": State.BLOCKED}
    assert got["sh"].reason == "not in allowedMcpServers (managed-settings.json)"


def test_an_empty_allowlist_blocks_everything(tmp_path):
    assert {s.state for s in config.load(policy(tmp_path, allowedMcpServers=[]))} == {State.BLOCKED}


def test_command_rules_bind_stdio_servers_once_present(tmp_path):
    p = policy(tmp_path, allowedMcpServers=[{"serverName": "sh"}, {"serverCommand": ["python3", *STDIO["args"]]}])
    got = by_name(config.load(p))
    assert got["docs"].state is State.PENDING
    assert got["sh"].state is State.BLOCKED, "once commands are listed, a stdio server's name alone is not enough"


# --- variables ------------------------------------------------------------------------------------


def test_variables_with_defaults_are_expanded_at_start_and_a_missing_one_fails_that_server_only():
    spec = ServerSpec("x", "stdio", command="${PY:-python3}", args=("--region", "${REGION:-eu:-west}", "${env:MODE}"),
                      env={"TOKEN": "${TOKEN}"})
    done = config.expand(spec, {"TOKEN": "t0k", "MODE": "fast"})
    assert done.command == "python3" and done.args == ("--region", "eu:-west", "fast") and dict(done.env) == {"TOKEN": "t0k"}
    assert spec.env["TOKEN"] == "${TOKEN}", "the spec keeps what was written: the next start expands again"
    with pytest.raises(ConfigError, match=r"^server 'x': missing environment variables: MODE, TOKEN "):
        config.expand(spec, {})
    remote = ServerSpec("r", "http", url="https://${HOST}/mcp", headers={"Authorization": "Bearer ${KEY}"})
    assert dict(config.expand(remote, {"HOST": "h.example", "KEY": "k"}).headers) == {"Authorization": "Bearer k"}


def test_each_start_expands_again_and_a_missing_variable_is_a_server_error(tmp_path):
    server = ServerConfig("x", "user", "~/.claude.json", ServerSpec("x", "stdio", command="${CMD}"))
    opened = []

    class Conns:
        transcript = None  # a Connections without one: nothing to tell the secrets to

        async def open(self, spec, **options):
            opened.append(spec.command)
            return spec

    environ: dict[str, str] = {}
    connect = config.connector(server, Conns(), environ)

    async def main():
        with pytest.raises(ServerError, match="missing environment variables: CMD"):
            await connect()
        environ["CMD"] = "first"
        await connect()
        environ["CMD"] = "second"  # a respawn sees the environment of then
        await connect()

    anyio.run(main)
    assert opened == ["first", "second"]


def test_the_hub_lists_every_configured_server_with_its_reason(tmp_path):
    f = write(tmp_path / "cline_mcp_settings.json", {"mcpServers": {"off": {**STDIO, "disabled": True}, "broken": {"args": []}}})
    servers = config.load(paths(tmp_path), [f])

    async def main():
        async with Hub() as hub:
            config.add_to(hub, servers, lambda s: None)
            assert await hub.connect_all() == []  # nothing pending: nothing started
            rows = config.rows(hub, servers)
        assert rows == [
            {"name": "broken", "scope": "file", "transport": None, "state": "failed", "error": "server 'broken': field 'command': required", "tools": []},
            {"name": "off", "scope": "file", "transport": "stdio", "state": "disabled", "error": f'"disabled": true in {f}', "tools": []}]

    anyio.run(main)


def test_a_file_given_explicitly_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        config.load(paths(tmp_path), [tmp_path / "missing.json"])
    with pytest.raises(ConfigError, match="not a file"):
        config.load(paths(tmp_path), [tmp_path])


def test_an_entry_keeps_its_fields_as_written_for_the_mechanisms_that_read_them(tmp_path):
    from harness import output, permissions

    f = write(tmp_path / "cline_mcp_settings.json", {"mcpServers": {
        "docs": {**STDIO, "autoApprove": ["search"], "maxOutputTokens": 300, "someday": {"x": 1}},
        "plain": STDIO,
        "broken": {"autoApprove": ["search"]}}})
    servers = config.load(paths(tmp_path), [f])
    got = by_name(servers)
    assert dict(got["docs"].raw) == {**STDIO, "autoApprove": ["search"], "maxOutputTokens": 300, "someday": {"x": 1}}
    assert got["broken"].state is State.FAILED and got["broken"].raw["autoApprove"] == ["search"], "a broken entry keeps its fields too"
    with pytest.raises(TypeError):
        got["docs"].raw["autoApprove"] = []  # type: ignore[index]  (read-only: the file is the only writer)
    assert permissions.auto_approve(servers) == {"broken": ("search",), "docs": ("search",)}
    assert output.caps(servers) == {"docs": 300}


@pytest.mark.parametrize(("field", "value", "reader", "expected"), [
    ("autoApprove", "search", "permissions", "server 'docs': field 'autoApprove': expected a list of strings"),
    ("autoApprove", [1], "permissions", "server 'docs': field 'autoApprove': expected a list of strings"),
    ("maxOutputTokens", 99, "output", "server 'docs': field 'maxOutputTokens': expected a whole number of tokens, at least 100"),
    ("maxOutputTokens", True, "output", "server 'docs': field 'maxOutputTokens': expected a whole number of tokens, at least 100"),
])
def test_a_mechanisms_field_is_checked_by_its_reader_naming_server_and_field(field, value, reader, expected):
    from harness import output, permissions

    servers = config.parse_servers({"docs": {**STDIO, field: value}}, "file", "cline_mcp_settings.json", "cline")
    assert servers[0].state is State.PENDING, "config does not read a later mechanism's field"
    read = permissions.auto_approve if reader == "permissions" else output.caps
    with pytest.raises(ConfigError) as caught:
        read(servers)
    assert str(caught.value) == expected


def test_reading_a_config_imports_no_sdk():
    import subprocess
    import sys

    code = ("import sys; from harness import config; config.parse_servers({'a': {'command': 'x'}}, 'file', 'f', 'auto'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'httpx2', 'anyio', 'pydantic')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", f"expected config to load no SDK module, got {out.strip()}"


def test_config_asks_the_transport_registry_for_the_words_a_file_may_use(monkeypatch):
    from harness import transports

    monkeypatch.setitem(transports._REGISTRY, "pigeon", transports.Registered("pigeon", "nowhere:open", ("carrierPigeon",), False))
    entry = {"type": "carrierPigeon", "url": "http://127.0.0.1:1/coop"}
    [mine] = config.parse_servers({"coop": entry}, "file", "servers.json", "auto")
    assert mine.state is State.PENDING and mine.spec.transport == "pigeon", "a registered transport's alias, with no edit in config"
    [cline] = config.parse_servers({"coop": entry}, "file", "cline_mcp_settings.json", "cline")
    assert cline.reason == "server 'coop': field 'type': expected one of stdio, sse, streamableHttp, http", "a product's file keeps its own words"
    [http] = config.parse_servers({"h": {"type": "streamableHttp", "url": "http://127.0.0.1:1/mcp"}}, "file", "c.json", "cline")
    assert http.spec.transport == "http", "Cline's word, mapped by the registry's alias"
