"""A key given twice in a config object is named by file, line and key, in every format.

JSON, JSONC and YAML keep the later one, as each client's own parser does, with a warning;
``doctor`` lists it as a problem. TOML forbids it, so the file is refused, naming the key.
Nothing here starts a server: each command is one that fails before a process runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_formats import cli

from harness.config.documents import DuplicateKey, decode
from harness.errors import ConfigError

TWICE = '{"mcpServers": {\n  "tool": {"command": "no-such-program-first"},\n  "tool": {"command": "no-such-program-second"}\n}}\n'


def test_two_tool_entries_warn_by_file_line_and_name_and_the_later_one_runs(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(TWICE)
    listed = cli("--config", str(path), "servers", "--json", cwd=tmp_path)
    warning = (f"warning: {path}: line 3: key 'tool' is given twice in one object (first on line 2); the later one is used")
    assert warning in listed.stderr.splitlines(), listed.stderr
    rows = json.loads(listed.stdout)
    assert [r["name"] for r in rows] == ["tool"] and "no-such-program-second" in rows[0]["error"], rows


def test_doctor_lists_a_key_given_twice_as_a_problem_once(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(TWICE)
    checked = cli("--config", str(path), "doctor", "--offline", "--json", cwd=tmp_path)
    assert checked.returncode == 1, checked
    found = json.loads(checked.stdout)["problems"]
    twice = [p for p in found if "given twice" in p["problem"]]
    assert twice == [{"file": str(path), "server": None, "field": None,
                      "problem": "line 3: key 'tool' is given twice in one object (first on line 2); the later one is used",
                      "fix": f"keep one of the two 'tool' in {path}"}], found
    assert "given twice" not in checked.stderr, f"doctor says it once, as a problem: {checked.stderr}"


@pytest.mark.parametrize(("kind", "text", "line", "key", "first", "later"), [
    ("jsonc", '{\n  // VS Code\n  "servers": {"a": {"command": "x"},\n  "a": {"command": "y"},},\n}', 4, "a", 3,
     {"servers": {"a": {"command": "y"}}}),
    ("json", '{"x": [{"env": {"K": "1",\n "K": "2"}}]}', 2, "K", 1, {"x": [{"env": {"K": "2"}}]}),  # nested, in an array
    ("yaml", "extensions:\n  memory:\n    cmd: a\n  memory:\n    cmd: b\n", 4, "memory", 2, {"extensions": {"memory": {"cmd": "b"}}}),
])
def test_each_reader_names_a_duplicate_and_keeps_the_later_one(kind, text, line, key, first, later):
    said: list[str] = []
    document = decode(text, kind, "f", said.append)
    assert said == [f"f: line {line}: key '{key}' is given twice in one object (first on line {first}); the later one is used"], said
    assert isinstance(said[0], DuplicateKey) and (said[0].line, said[0].key) == (line, key)
    assert document == later, f"expected the later one kept: {document}"


def test_a_string_holding_braces_and_quotes_is_no_key():
    said: list[str] = []
    decode('{"a": "{\\"a\\": 1, [", "b": {"a": 1}, "c": ["a", "a"]}', "json", "f", said.append)
    assert said == [], said


def test_toml_refuses_a_key_given_twice_naming_it(tmp_path):
    with pytest.raises(ConfigError) as info:
        decode('[mcp_servers.tool]\ncommand = "a"\ncommand = "b"\n', "toml", "config.toml")
    assert str(info.value).startswith("config.toml: not valid TOML: line 3: key 'command' is given twice (TOML allows each key once)"), info.value


def test_a_project_mcp_json_with_a_key_given_twice_is_named_too(tmp_path: Path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    repo.mkdir()
    (repo / ".mcp.json").write_text(TWICE)
    listed = cli("--home", str(home), "servers", cwd=repo)
    assert f"warning: {repo / '.mcp.json'}: line 3: key 'tool' is given twice" in listed.stderr, listed.stderr
