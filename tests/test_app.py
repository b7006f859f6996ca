"""The user CLI (``python -m harness``) against real config files holding the course's mock servers.

Each test runs the CLI in this process, through ``harness.app.main(argv, out, err)`` as
``python -m harness`` does, and checks its exit code, its output (``--json`` parses, with
the promised shapes) and that no process is left. One test runs it as a child process,
to check that the process's exit code and streams are the ones ``main`` gave.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN, STOP
from limits import RUN

from harness import app

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
ROOT = Path(__file__).resolve().parent.parent


def server(module: str) -> dict:
    return {"command": sys.executable, "args": ["-m", f"mock_servers.{module}", "--transport", "stdio"]}


def _managed(argv: tuple[str, ...]) -> list[str]:
    """This machine's enterprise folder out of the way (a test must not depend on it)."""
    return [] if "--managed" in argv else ["--managed", str(ROOT / "tests" / "no-managed-folder")]


def cli(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The CLI in this process, from ``cwd``: its exit code (argparse's too), stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    before, stdin = os.getcwd(), sys.stdin
    os.chdir(cwd)
    sys.stdin = io.StringIO()  # as a child's stdin from /dev/null: empty, and no terminal to ask on
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # argparse writes to sys.stdout/sys.stderr
            try:
                code = app.main([*_managed(argv), *argv], out, err)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
    finally:
        os.chdir(before)
        sys.stdin = stdin
    return subprocess.CompletedProcess(["python", "-m", "harness", *argv], code, out.getvalue(), err.getvalue())


def cli_process(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python -m harness ARGV`` as a user runs it."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *_managed(argv), *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=RUN)


@pytest.mark.slow
def test_the_process_exits_with_main_s_code_and_streams(configs):
    config = str(configs["claude_desktop_config.json"])
    listed = cli_process("--config", config, "servers", "--json")
    assert (listed.returncode, listed.stderr) == (0, ""), listed
    assert [r["state"] for r in json.loads(listed.stdout)] == ["connected", "connected"]
    bad = cli_process("--config", config, "call", "mcp__docs__search", "{not json")
    assert (bad.returncode, bad.stdout) == (2, "") and bad.stderr.startswith("error: JSON_ARGS: not valid JSON"), bad


@pytest.fixture
def configs(tmp_path: Path) -> dict[str, Path]:
    """The same two servers (and one broken entry) as each product would write them."""
    files = {
        "claude_desktop_config.json": {"mcpServers": {"docs": server("docs"), "deploy": server("deploy")}},
        ".mcp.json": {"mcpServers": {"docs": {"type": "stdio", **server("docs")}, "deploy": server("deploy"), "wiki": {"args": []}}},
        "cline_mcp_settings.json": {"mcpServers": {"docs": {**server("docs"), "autoApprove": ["search"], "timeout": 30},
                                                   "deploy": {**server("deploy"), "disabled": True}}},
    }
    found = {}
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        found[name] = tmp_path / name
    return found


def test_servers_from_each_format(configs):
    states = {}
    for name, path in configs.items():
        done = cli("--config", str(path), "servers", "--json")
        assert done.returncode == 0, done.stderr
        rows = json.loads(done.stdout)
        assert all(set(r) == {"name", "scope", "transport", "state", "error", "tools", "era"} for r in rows), rows
        states[name] = {r["name"]: r["state"] for r in rows}
    assert states == {
        "claude_desktop_config.json": {"deploy": "connected", "docs": "connected"},
        ".mcp.json": {"deploy": "connected", "docs": "connected", "wiki": "failed"},
        "cline_mcp_settings.json": {"deploy": "disabled", "docs": "connected"},
    }


def test_tools_lists_the_pool_with_model_facing_names(configs):
    done = cli("--config", str(configs["claude_desktop_config.json"]), "tools", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["name"] for r in rows] == ["mcp__deploy__status", "mcp__deploy__trigger", "mcp__docs__get_version", "mcp__docs__search"]
    search = rows[-1]
    assert (search["server"], search["tool"], search["annotations"]) == ("docs", "search", {"openWorldHint": False, "readOnlyHint": True})
    assert search["input_schema"]["required"] == ["query"]


def test_call_prints_the_result_and_its_exit_code_says_if_the_tool_refused(configs):
    config = str(configs["cline_mcp_settings.json"])
    ok = cli("--config", config, "call", "mcp__docs__search", '{"query": "hooks"}')
    assert ok.returncode == 0 and ok.stdout.startswith("hooks: Hooks run shell commands"), ok
    refused = cli("--config", config, "call", "mcp__docs__search", '{"query": ""}', "--json")
    assert refused.returncode == 1, refused
    assert json.loads(refused.stdout) == {"is_error": True, "content": [{"type": "text", "text": "'query' must be a non-empty string"}], "structured": None}


@pytest.mark.parametrize(("argv", "message"), [
    (["call", "mcp__docs__search", "{not json"], "error: JSON_ARGS: not valid JSON"),
    (["call", "mcp__nope__x"], "error: no tool 'mcp__nope__x' among the connected servers' tools"),
    (["frobnicate"], "error: argument COMMAND: invalid choice"),
])
def test_bad_usage_is_one_line_and_exit_2(configs, argv, message):
    done = cli("--config", str(configs["claude_desktop_config.json"]), *argv)
    assert done.returncode == 2 and done.stderr.startswith(message) and done.stderr.count("\n") == 1, done


def test_a_config_that_is_not_json_is_exit_2_naming_the_file(tmp_path):
    broken = tmp_path / ".mcp.json"
    broken.write_text("{", encoding="utf-8")
    done = cli("--config", str(broken), "servers")
    assert done.returncode == 2 and f"{broken}: not valid JSON" in done.stderr and "Traceback" not in done.stderr, done


def test_without_config_the_scopes_are_read_from_the_working_folder_and_project_servers_need_approval(tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": server("docs")}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    argv = ("--home", str(home), "--managed", str(tmp_path / "managed"), "servers", "--json")
    done = cli(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)
    assert (row["name"], row["scope"], row["state"]) == ("docs", "project", "blocked") and "enabledMcpjsonServers" in row["error"]
    approved = {"projects": {str(tmp_path.resolve()): {"enabledMcpjsonServers": ["docs"]}}}
    (home / ".claude.json").write_text(json.dumps(approved), encoding="utf-8")
    done = cli(*argv, cwd=tmp_path)
    assert [(r["name"], r["state"]) for r in json.loads(done.stdout)] == [("docs", "connected")]


# --- chat -----------------------------------------------------------------------------------


def scenario(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_chat_replays_a_scenario_over_the_configured_servers(configs, tmp_path):
    script = scenario(tmp_path / "chat.yaml", """\
prompt: What do the docs say about hooks?
turns:
  - text: Searching the docs.
    tool_calls:
      - {name: mcp__docs__search, input: {query: hooks}}
  - text: Hooks run shell commands.
""")
    done = cli("--config", str(configs["claude_desktop_config.json"]), "chat", "--scenario", str(script))
    assert done.returncode == 0, done
    assert "  <- hooks: Hooks run shell commands" in done.stdout
    assert "state: docs: pending -> connected" in done.stdout and "read_file" not in done.stdout  # no --workspace: no file tools


def test_chat_applies_an_edit_of_its_one_config_file_before_the_next_turn(tmp_path):
    settings = tmp_path / "cline_mcp_settings.json"
    settings.write_text(json.dumps({"mcpServers": {"docs": server("docs")}}), encoding="utf-8")
    edited = json.dumps({"mcpServers": {"docs": server("docs"), "deploy": server("deploy")}})
    script = scenario(tmp_path / "chat.yaml", f"""\
prompt: Add the deploy server, then deploy web.
turns:
  - text: Adding it.
    tool_calls:
      - name: write_file
        input: {{path: cline_mcp_settings.json, content: {json.dumps(edited)}}}
  - text: Deploying.
    tool_calls:
      - {{name: mcp__deploy__trigger, input: {{service: web}}}}
  - text: Done.
""")
    done = cli("--config", str(settings), "chat", "--scenario", str(script), "--workspace", str(tmp_path), "--yes")  # trigger asks: --yes allows it
    assert done.returncode == 0, done
    assert f"note: reload {settings}: add deploy; unchanged docs" in done.stdout
    assert "  <- dep-0001: deploying web to staging" in done.stdout


@pytest.mark.parametrize(("argv", "message"), [
    (["chat"], "error: one of the arguments --scenario --live is required"),
    (["chat", "--scenario", "nope.yaml"], "error: --scenario: no such file: nope.yaml"),
    (["chat", "--scenario", "x.yaml", "--prompt", "hi"], "error: --prompt and --model go with --live"),
    (["chat", "--live", "--scenario", "x.yaml"], "error: argument --scenario: not allowed with argument --live"),
    (["chat", "--scenario", "x.yaml", "--workspace", "/no/such/dir"], "error: argument --workspace: '/no/such/dir' is not a folder"),
])
def test_chat_usage_errors_are_one_line_and_exit_2(configs, argv, message, tmp_path):
    (tmp_path / "x.yaml").write_text("prompt: hi\nturns: [{text: hi}]\n", encoding="utf-8")
    done = cli("--config", str(configs["claude_desktop_config.json"]), *argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith(message) and done.stderr.count("\n") == 1, done


def test_resources_read_prompts_and_a_prompt_expansion_with_json(tmp_path):
    settings = tmp_path / "cline_mcp_settings.json"
    settings.write_text(json.dumps({"mcpServers": {"handbook": server("handbook")}}), encoding="utf-8")
    config = ("--config", str(settings))
    listed = cli(*config, "resources", "--json")
    assert listed.returncode == 0, listed
    rows = json.loads(listed.stdout)
    assert {(r["server"], r["uri"], r["template"]) for r in rows} == {
        ("handbook", "handbook://pages/onboarding", False), ("handbook", "handbook://pages/style", False),
        ("handbook", "handbook://pages/{title}", True)}
    read = json.loads(cli(*config, "read", "handbook://pages/style", "--json").stdout)
    assert read["server"] == "handbook" and read["contents"][0]["text"].startswith("# Style")
    prompts = json.loads(cli(*config, "prompts", "--json").stdout)
    assert prompts == [{"server": "handbook", "name": "summarize", "description": "Summarize one handbook page and suggest an improvement.",
                        "arguments": [{"name": "title", "description": "the page's title", "required": True}]}]
    expanded = cli(*config, "prompt", "summarize", '{"title": "style"}', "--json")
    data = json.loads(expanded.stdout)
    assert data["messages"][0]["role"] == "user" and data["text"].startswith("Summarize the handbook's style page")
    missing = cli(*config, "read", "handbook://pages/nope")
    assert missing.returncode == 1 and "error -32602: no page at handbook://pages/nope" in missing.stderr  # 2026-07-28 (SEP-2164)
    unknown = cli(*config, "prompt", "nope")
    assert unknown.returncode == 2 and unknown.stderr == "error: prompt 'nope' is not offered (prompts: handbook/summarize)\n"


def test_a_server_that_did_not_connect_is_an_error_line_and_the_exit_code():
    """s30's README command without PYTHON set: not a quiet 'no prompts' and exit 0."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    done = subprocess.run([sys.executable, "-m", "harness", "--managed", str(ROOT / "tests" / "no-managed-folder"),
                           "--config", "lessons/s30/cline_mcp_settings.json", "prompts"],
                          cwd=ROOT, env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "no prompts\n", done.stdout
    assert done.stderr.splitlines() == [
        f"error: server '{name}': missing environment variables: PYTHON (set them, or write ${{NAME:-default}})"
        for name in ("docs", "handbook")], done.stderr


def test_ctrl_c_at_a_permission_question_on_the_terminal_ends_the_chat_at_once(tmp_path):
    """The question waits for the terminal, not in a thread that only Enter would free: a signal ends the run."""
    settings = tmp_path / "cline_mcp_settings.json"
    settings.write_text(json.dumps({"mcpServers": {"handbook": server("handbook")}}), encoding="utf-8")
    script = scenario(tmp_path / "chat.yaml", """\
prompt: Publish an FAQ page.
turns:
  - text: Publishing.
    tool_calls:
      - {name: mcp__handbook__publish_page, input: {title: faq, text: hi}}
  - text: Done.
""")
    terminal, side = pty.openpty()  # stdin and stderr a terminal: the prompter asks there
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1", "NO_COLOR": "1"}  # the last words, not their colour
    argv = [sys.executable, "-m", "harness", "--managed", str(ROOT / "tests" / "no-managed-folder"), "--config", str(settings),
            "chat", "--scenario", str(script)]
    chat = subprocess.Popen(argv, stdin=side, stdout=subprocess.PIPE, stderr=side, cwd=ROOT, env=env, start_new_session=True)
    os.close(side)
    try:
        said, deadline = b"", time.monotonic() + RUN
        while b"[a]lways: " not in said and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.5)[0]:
                said += os.read(terminal, 4096)
        assert b"allow mcp__handbook__publish_page" in said, f"expected the permission question, the terminal showed: {said!r}"
        chat.send_signal(signal.SIGINT)
        assert chat.wait(STOP) == 130, "expected exit 130 (interrupted)"
        while select.select([terminal], [], [], 0.5)[0]:  # the rest of stderr, where the CLI's last word goes
            try:
                said += os.read(terminal, 4096)
            except OSError:  # the other side closed: all of it is read
                break
        assert said.replace(b"\r", b"").endswith(b"error: interrupted\n"), f"expected the last word on stderr: {said[-200:]!r}"
        assert chat.stdout.read().decode().endswith("state: handbook: connected -> closed: hub closed\n")
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait()
        chat.stdout.close()
        os.close(terminal)
