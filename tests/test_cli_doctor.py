"""``doctor``, and ``servers``/``tools --strict``: each problem once, naming file, server and field, and the exit code.

The CLI runs in this process (``test_app.cli``). The unreachable URL is a port on
127.0.0.1 that was free a moment ago: nothing listens there.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli, server

from harness.commands import doctor
from harness.spec import ServerSpec

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def mixed(tmp_path: Path, monkeypatch) -> Path:
    """One broken entry, one missing variable, one unreachable URL, one good server."""
    monkeypatch.delenv("DOCTOR_TOKEN", raising=False)
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text(json.dumps({"mcpServers": {
        "broken": {"args": ["--verbose"]},
        "secret": {**server("docs"), "env": {"API_TOKEN": "${DOCTOR_TOKEN}"}},
        "far": {"type": "streamableHttp", "url": f"http://127.0.0.1:{_closed_port()}/mcp"},
        "good": server("docs"),
    }}), encoding="utf-8")
    return path


def test_doctor_reports_exactly_the_three_problems_with_file_server_field_and_fix(mixed):
    url = json.loads(mixed.read_text(encoding="utf-8"))["mcpServers"]["far"]["url"]
    done = cli("--config", str(mixed), "doctor")
    assert done.returncode == 1, done
    problems = [line for line in done.stdout.splitlines() if line.startswith("problem: ")]
    assert problems == [
        f"problem: {mixed}: server 'broken': field 'command': required",
        f"problem: {mixed}: server 'secret': field 'env.API_TOKEN': ${{DOCTOR_TOKEN}} is not set",
        f"problem: {mixed}: server 'far': field 'url': initialize: cannot reach {url}: ConnectError",
    ], done.stdout
    fixes = [line for line in done.stdout.splitlines() if line.startswith("  fix: ")]
    assert len(fixes) == 3 and "set DOCTOR_TOKEN in the environment" in fixes[1], fixes
    assert "ok: server 'good': connected, 2 tools" in done.stdout and done.stdout.endswith("3 problems\n"), done.stdout


def test_doctor_offline_starts_nothing_and_json_names_each_field(mixed):
    done = cli("--config", str(mixed), "doctor", "--offline", "--json")
    assert done.returncode == 1, done
    data = json.loads(done.stdout)
    assert [(p["server"], p["field"]) for p in data["problems"]] == [("broken", "command"), ("secret", "env.API_TOKEN")]
    assert {s["name"]: s["state"] for s in data["servers"]} == {"broken": "failed", "far": "pending", "good": "pending", "secret": "failed"}


def test_doctor_names_a_file_that_cannot_be_read_and_checks_the_others(tmp_path):
    bad, good = tmp_path / "bad.json", tmp_path / "good.json"
    bad.write_text('{"mcpServers": {', encoding="utf-8")
    good.write_text(json.dumps({"mcpServers": {"good": server("docs")}}), encoding="utf-8")
    done = cli("--config", str(bad), "--config", str(good), "doctor")
    assert done.returncode == 1, done
    assert f"problem: {bad}: not valid JSON (line 1, column 17)" in done.stdout, done.stdout
    assert "ok: server 'good': connected" in done.stdout and done.stdout.endswith("1 problem\n"), done.stdout


def test_doctor_on_a_good_config_exits_0(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"mcpServers": {"good": server("docs"), "off": {**server("docs"), "disabled": True}}}), encoding="utf-8")
    done = cli("--config", str(good), "doctor")
    assert done.returncode == 0 and done.stdout.endswith("no problems\n"), done
    assert f"note: server 'off' ({good}) is disabled" in done.stdout, done.stdout


@pytest.mark.parametrize("command", ["servers", "tools"])
def test_strict_listings_exit_1_when_a_server_failed(mixed, command):
    loose = cli("--config", str(mixed), command)
    strict = cli("--config", str(mixed), command, "--strict")
    assert (loose.returncode, strict.returncode) == (0, 1), (loose, strict)
    shown = strict.stdout if command == "servers" else strict.stderr
    assert "server 'far': initialize: cannot reach" in shown and "field 'command': required" in shown, shown


def test_a_connect_timeout_of_an_npx_server_hints_at_its_first_download():
    spec = ServerSpec("memory", "stdio", command="npx", args=("-y", "@modelcontextprotocol/server-memory"))
    error = "server 'memory': no answer to initialize within 30 s (connect timeout)"
    assert doctor.first_run_hint(spec, error).startswith("npx may be downloading the package on its first run: "
                                                         "run 'npx -y @modelcontextprotocol/server-memory' once by hand")
    assert doctor.first_run_hint(spec, "server 'memory': exited with code 1") == ""
    assert doctor.first_run_hint(ServerSpec("x", "stdio", command="python3"), error) == ""


def test_doctor_without_config_reads_the_scopes_with_their_approvals(tmp_path):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": server("docs")}}), encoding="utf-8")
    argv = ("--home", str(home), "doctor")
    done = cli(*argv, cwd=project)
    assert done.returncode == 0, done
    assert f"note: server 'docs' ({project.resolve() / '.mcp.json'}) is not approved for this project: 'mcp-course approve docs'" \
        in done.stdout, done.stdout
    assert cli("--home", str(home), "approve", "docs", cwd=project).returncode == 0
    done = cli(*argv, cwd=project)
    assert "ok: server 'docs': connected, 2 tools" in done.stdout and done.returncode == 0, done
    (home / ".claude.json").write_text("{not json", encoding="utf-8")
    broken = cli(*argv, cwd=project)
    assert broken.returncode == 1 and f"problem: {home / '.claude.json'}: not valid JSON" in broken.stdout, broken
