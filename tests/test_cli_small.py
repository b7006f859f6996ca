"""The CLI's small things, as a user meets them: help, plurals, columns, warnings once, signatures, blobs,
misspellings, strict JSON, and one hint for an unapproved server in every command that gives one."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import ROOT, cli, server

from harness.output import Output

pytestmark = pytest.mark.usefixtures("no_process_left")


def _file(path: Path, data: object) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_help_reads_as_text_and_an_unknown_command_lists_only_the_listed_ones():
    shown = cli("--help").stdout
    assert "\n    mcp-course [OPTIONS] servers [--strict]" in shown, "expected the first usage line indented as the others"
    assert "``" not in shown and "issue 21" not in shown and "Introduced with" not in shown, shown
    wrong = cli("tool")
    assert wrong.returncode == 2 and "did you mean 'tools'?" in wrong.stderr and "_complete" not in wrong.stderr, wrong


@pytest.mark.slow
def test_servers_counts_in_words_and_keeps_its_columns_with_http_or_sse(tmp_path):
    one = {"command": sys.executable, "args": ["-m", "mock_servers.serve", "acme wiki", "--transport", "stdio"], "cwd": str(ROOT)}
    config = _file(tmp_path / "c.json", {"mcpServers": {"wiki": one, "far": {"type": "http-or-sse", "url": "http://127.0.0.1:9/mcp"}}})
    rows = cli("--config", config, "servers").stdout.splitlines()[::-1]  # sorted by name: far, then wiki
    assert rows[0].endswith(" 1 tool: page.get"), f"expected '1 tool:' for the wiki's one tool: {rows}"
    states = [row.index(state) for row, state in zip(rows, ("connected", "failed"))]
    assert states[0] == states[1], f"expected the state column at one offset in each row: {rows}"


@pytest.mark.slow
def test_tools_shows_each_tool_s_arguments(tmp_path):
    config = _file(tmp_path / "d.json", {"mcpServers": {"desk": {**server("desk"), "cwd": str(ROOT)}}})
    lines = cli("--config", config, "tools").stdout.splitlines()
    assert any(line.startswith("mcp__desk__file_ticket(summary: string)  File a help-desk ticket") for line in lines), lines
    assert any(line.startswith("mcp__desk__link_account() ") for line in lines), lines


def test_doctor_warns_once_and_names_the_field_or_word_meant(tmp_path):
    config = _file(tmp_path / "typo.json", {"mcpServers": {"a": {"comand": "x"}, "b": {"type": "streamable-http", "url": "http://127.0.0.1:9/"}}})
    done = cli("--config", config, "doctor", "--offline")
    assert done.stderr.count("field 'comand': not read by this harness") == 1, f"expected the warning once: {done.stderr}"
    assert "did you mean 'command'?" in done.stderr, done.stderr
    assert f"fix: rename 'comand' to 'command' in server 'a' in {config}" in done.stdout, done.stdout
    assert f"fix: set 'type' of server 'b' to 'http' in {config}" in done.stdout, done.stdout


@pytest.mark.parametrize("name", ["bad.json", ".mcp.json"])
def test_a_trailing_comma_is_an_error_whatever_the_json_file_is_named(tmp_path, name):
    config = _file(tmp_path / name, '{"mcpServers": {"a": {"command": "true"},}}')
    done = cli("--config", config, "servers")
    assert done.returncode == 2 and f"{config}: not valid JSON (line 1, column 42)" in done.stderr, done


@pytest.mark.slow
def test_read_of_a_binary_resource_saves_its_bytes(tmp_path):
    entry = {"command": sys.executable, "args": ["-m", "mock_servers.hostile", "--huge-resource", "3000", "--transport", "stdio"], "cwd": str(ROOT)}
    done = cli("--config", _file(tmp_path / "h.json", {"mcpServers": {"h": entry}}), "read", "hostile://blob")
    found = re.fullmatch(r"\[resource hostile://blob, application/octet-stream, (\d+) bytes: saved to (.+\.bin)\]\n", done.stdout)
    assert done.returncode == 0 and found, f"expected the blob saved to a file: {done}"
    assert Path(found.group(2)).stat().st_size == int(found.group(1))


def test_a_gzip_block_is_saved_with_its_own_extension(tmp_path):
    said = Output(tmp_path).save("H4sIAAAAAAAAAwMAAAAAAAAAAAA=", "application/gzip", "s", "t", "embedded resource")
    assert said.endswith("001-s-t.gz]") and (tmp_path / "001-s-t.gz").is_file(), said


def test_an_unapproved_server_gets_one_hint_naming_the_file_written(tmp_path):
    folder, home = tmp_path / "project", tmp_path / "home"
    folder.mkdir(), home.mkdir()
    _file(folder / ".mcp.json", {"mcpServers": {"docs": server("docs")}})
    argv = ("--home", str(home), "--managed", str(tmp_path / "managed"))
    hint = f"not approved for this project: 'mcp-course approve docs' lets it start (enabledMcpjsonServers in {home / '.claude.json'})"
    assert hint in cli(*argv, "servers", cwd=folder).stdout
    assert hint in cli(*argv, "doctor", "--offline", cwd=folder).stdout
    approved = cli(*argv, "approve", "docs", cwd=folder)
    assert approved.stdout == f"docs: approved for {folder.resolve()} (enabledMcpjsonServers in {home / '.claude.json'})\n", approved
    assert (home / ".claude.json").is_file()


def test_servers_with_no_config_says_where_it_looked(tmp_path):
    done = cli("--home", str(tmp_path), "--managed", str(tmp_path / "managed"), "servers", cwd=tmp_path)
    assert done.stdout == (f"no MCP servers configured (no config file found: looked for {tmp_path / '.claude.json'} "
                           "and .mcp.json from here up; give --config FILE)\n"), done
