"""Every client's config file, as that client writes it, lists and calls a course mock server (issue 21).

Each test writes one real-shaped file (comments in Zed's and VS Code's JSON, TOML for
Codex, YAML for Continue and goose, the client's own field names and variables) and runs
the CLI in this process (``harness.app.main``) with ``--config FILE`` and no ``--format``:
the format is found from the file's name and content. It lists the tools and calls
``mcp__docs__search``, with no change to the file.

A stdio server here is the course's ``docs`` server started through ``python -c`` that
first checks the environment the entry promises (``envFile``, ``$VAR``, ``env_keys``...):
a variable that did not arrive makes the server exit before it serves, and the server
fails. Remote ones are the same server over Streamable HTTP or SSE, started here on
127.0.0.1.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from serving import served as child
from limits import RUN

from harness import app, config
from harness.config.documents import strip_jsonc

# A test that starts servers uses the leak check, which marks it slow (conftest); the others are the fast lane.
STARTS_SERVERS = pytest.mark.usefixtures("no_process_left")
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def docs_checking(**expected: str) -> list[str]:
    """``python -c`` args: assert each variable has its value, then serve docs over stdio."""
    checks = "; ".join(f"assert os.environ.get({k!r}) == {v!r}, {k!r}" for k, v in expected.items()) or "pass"
    code = (f"import os, runpy, sys; {checks}; sys.argv = ['docs', '--transport', 'stdio']; "
            "runpy.run_module('mock_servers.docs', run_name='__main__')")
    return ["-c", code]


def cli(*argv: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    out, err = io.StringIO(), io.StringIO()
    before, stdin, saved = os.getcwd(), sys.stdin, dict(os.environ)
    os.chdir(cwd)
    sys.stdin = io.StringIO()  # no terminal to ask on
    os.environ.update(env or {})
    os.environ["PYTHONPATH"] = str(ROOT)  # the servers' `python -c` imports mock_servers from this checkout
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = app.main(["--managed", str(ROOT / "tests" / "no-managed-folder"), *argv], out, err)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
    finally:
        os.chdir(before)
        sys.stdin = stdin
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def lists_and_calls(path: Path, *more: str, env: dict[str, str] | None = None, tools: tuple[str, ...] = ("search", "get_version"),
                    server: str = "docs") -> str:
    """``tools --json`` lists the server's tools; ``call ..._search`` answers; the file is unchanged. Returns stderr."""
    before = path.read_bytes()
    listed = cli("--config", str(path), *more, "tools", "--json", env=env)
    assert listed.returncode == 0, f"expected {path.name} to list, got {listed.returncode}: {listed.stderr}"
    names = sorted(r["name"] for r in json.loads(listed.stdout) if r["server"] == server)
    assert names == sorted(f"mcp__{server}__{t}" for t in tools), f"expected the tools {tools}, got {names}"
    called = cli("--config", str(path), *more, "call", f"mcp__{server}__search", '{"query": "hooks"}', "--json", env=env)
    assert called.returncode == 0, f"expected the call to succeed, got {called.returncode}: {called.stderr}"
    assert json.loads(called.stdout)["content"][0]["text"].startswith("hooks: Hooks run shell commands"), called.stdout
    assert path.read_bytes() == before, f"expected {path.name} unchanged"
    return listed.stderr + called.stderr


@contextlib.contextmanager
def served(transport: str) -> Iterator[str]:
    """The docs server over ``transport`` (http or sse) on 127.0.0.1; its URL."""
    with child([PY, "-m", "mock_servers.docs", "--transport", transport, "--port", "0"]) as url:
        yield url


# --- each format, as its client writes it -----------------------------------------------------------------


@STARTS_SERVERS
def test_vscode_servers_inputs_env_file_and_workspace_folder(tmp_path):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".env").write_text("# from envFile\nexport FROM_FILE='yes'\n")
    path = tmp_path / ".vscode" / "mcp.json"
    path.write_text("""{
  // VS Code: Command Palette > MCP: Add Server
  "inputs": [
    {
      "type": "promptString",
      "id": "docs-key",
      "description": "Docs API key",
      "password": true
    }
  ],
  "servers": {
    "docs": {
      "type": "stdio",
      "command": "%s",
      "args": %s,
      "envFile": "${workspaceFolder}/.env",
      "env": {"DOCS_KEY": "${input:docs-key}", "WHERE": "${workspaceFolder}", "PY_HOME": "${env:HOME_FOR_TEST}"}
    },
  }
}""" % (PY, json.dumps(docs_checking(FROM_FILE="yes", DOCS_KEY="s3cret-key", WHERE=str(tmp_path), PY_HOME="/home/ada"))))
    said = lists_and_calls(path, "--input", "docs-key=s3cret-key", env={"HOME_FOR_TEST": "/home/ada"})
    assert "s3cret-key" not in said, "a password input is never shown"
    [server] = config.load(config.Paths(), [path], inputs={"docs-key": "s3cret-key"})
    expanded = config.expand(server.spec, {"HOME_FOR_TEST": "/home/ada"}, server.inputs)
    assert ("s3cret-key", "input:docs-key") in expanded.secrets, "the transcript redacts a password input as ${input:docs-key}"


@STARTS_SERVERS
def test_vscode_an_unanswered_input_fails_its_server_naming_the_input(tmp_path):
    (tmp_path / ".vscode").mkdir()
    path = tmp_path / ".vscode" / "mcp.json"
    path.write_text(json.dumps({"inputs": [{"type": "promptString", "id": "key", "password": True}],
                                "servers": {"docs": {"command": PY, "args": docs_checking(), "env": {"K": "${input:key}"}}}}))
    done = cli("--config", str(path), "servers", "--json")
    [row] = json.loads(done.stdout)
    assert row["state"] == "failed" and "no value for input key (give --input ID=VALUE" in row["error"], row


@STARTS_SERVERS
def test_cursor_url_is_streamable_http_and_sse_only_on_the_fallback_signal(tmp_path):
    (tmp_path / ".cursor").mkdir()
    path = tmp_path / ".cursor" / "mcp.json"
    with served("http") as http_url, served("sse") as sse_url:
        path.write_text(json.dumps({"mcpServers": {"docs": {"url": http_url}}}, indent=2))
        lists_and_calls(path)
        path.write_text(json.dumps({"mcpServers": {"docs": {"url": sse_url}}}, indent=2))  # an old server: a 4xx to POST
        lists_and_calls(path)
    rows = json.loads(cli("--config", str(path), "servers", "--json").stdout)
    assert rows[0]["transport"] == "http-or-sse", rows


@STARTS_SERVERS
def test_cursor_command_with_env_file_and_env_variables(tmp_path):
    (tmp_path / ".cursor").mkdir()
    (tmp_path / "docs.env").write_text("DOCS_REGION=eu\n")
    path = tmp_path / ".cursor" / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"docs": {
        "command": PY, "args": docs_checking(DOCS_REGION="eu", TOKEN="t-1"), "envFile": "${workspaceFolder}/docs.env",
        "env": {"TOKEN": "${env:CURSOR_TEST_TOKEN}"}}}}, indent=2))
    lists_and_calls(path, env={"CURSOR_TEST_TOKEN": "t-1"})


@STARTS_SERVERS
def test_windsurf_server_url(tmp_path):
    path = tmp_path / "mcp_config.json"
    with served("http") as url:
        path.write_text(json.dumps({"mcpServers": {"docs": {"serverUrl": url, "disabledTools": ["get_version"]}}}, indent=2))
        lists_and_calls(path, tools=("search",))


@STARTS_SERVERS
def test_gemini_http_url_timeout_in_ms_dollar_variables_and_tool_filters(tmp_path):
    (tmp_path / ".gemini").mkdir()
    path = tmp_path / ".gemini" / "settings.json"
    with served("http") as url:
        path.write_text(json.dumps({
            "theme": "Default", "selectedAuthType": "gemini-api-key",
            "mcpServers": {
                "docs": {"command": PY, "args": docs_checking(API_KEY="k-42", BOTH="k-42/k-42"), "timeout": 30000,
                         "env": {"API_KEY": "$GEMINI_TEST_KEY", "BOTH": "$GEMINI_TEST_KEY/${GEMINI_TEST_KEY}"},
                         "includeTools": ["search", "get_version"], "excludeTools": ["get_version"], "trust": False},
                "remote": {"httpUrl": url, "headers": {"Authorization": "Bearer $GEMINI_TEST_KEY"}, "timeout": 5000},
            }}, indent=2))
        lists_and_calls(path, env={"GEMINI_TEST_KEY": "k-42"}, tools=("search",))  # excludeTools wins over includeTools
        lists_and_calls(path, env={"GEMINI_TEST_KEY": "k-42"}, server="remote")
    loaded = {s.name: s for s in config.load(config.Paths(), [path], warn=lambda t: None)}
    assert loaded["remote"].spec.headers == {"Authorization": "Bearer ${GEMINI_TEST_KEY}"}, "$VAR is expanded at each start"
    docs = loaded["docs"]
    assert docs.timeouts.call == 30.0 and docs.timeouts.explain("call").endswith(f'"timeout" (milliseconds) for server \'docs\' in {path}')


@STARTS_SERVERS
def test_zed_context_servers_with_comments_and_both_command_shapes(tmp_path):
    path = tmp_path / ".zed" / "settings.json"
    path.parent.mkdir()
    args = json.dumps(docs_checking())
    path.write_text("""// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "ui_font_size": 16,
  /* the agent's servers */
  "context_servers": {
    "docs": {
      "source": "custom",
      "command": "%s",
      "args": %s,
      "env": {},
    },
    "older": {
      "command": {"path": "%s", "args": %s, "env": {}},
      "settings": {},
    },
    "from-an-extension": {"settings": {"api_key": "x"}},
  },
}
""" % (PY, args, PY, args))
    said = lists_and_calls(path, tools=("get_version", "search"))
    assert "server 'from-an-extension': provided by a Zed extension" in said, said
    rows = {r["name"]: r["state"] for r in json.loads(cli("--config", str(path), "servers", "--json").stdout)}
    assert rows == {"docs": "connected", "older": "connected"}, rows


@STARTS_SERVERS
def test_codex_toml(tmp_path):
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    args = ", ".join(json.dumps(a) for a in docs_checking(CODEX_PASSED="on", LITERAL="1"))
    path.write_text(f'''model = "o4-mini"

[mcp_servers.docs]
command = {json.dumps(PY)}
args = [{args}]
env_vars = ["CODEX_PASSED"]
startup_timeout_sec = 20
tool_timeout_sec = 45
enabled_tools = ["search", "get_version"]
disabled_tools = ["get_version"]

[mcp_servers.docs.env]
LITERAL = "1"

[mcp_servers.off]
command = "nowhere"
enabled = false
''')
    lists_and_calls(path, env={"CODEX_PASSED": "on"}, tools=("search",))
    servers = {s.name: s for s in config.load(config.Paths(), [path], warn=lambda t: None)}
    assert (servers["docs"].timeouts.connect, servers["docs"].timeouts.call) == (20.0, 45.0)
    assert servers["off"].state.value == "disabled" and servers["off"].reason == f"enabled = false in {path}"


@STARTS_SERVERS
def test_codex_bearer_token_env_var_is_a_header_and_a_secret(tmp_path):
    path = tmp_path / "config.toml"
    with served("http") as url:
        path.write_text(f'[mcp_servers.docs]\nurl = "{url}"\nbearer_token_env_var = "CODEX_TEST_TOKEN"\n')
        [server] = config.load(config.Paths(), [path])
        assert server.spec.headers == {"Authorization": "Bearer ${CODEX_TEST_TOKEN}"}
        expanded = config.expand(server.spec, {"CODEX_TEST_TOKEN": "tok-9"})
        assert ("tok-9", "CODEX_TEST_TOKEN") in expanded.secrets, "a header's variable is a secret in every output"
        lists_and_calls(path, env={"CODEX_TEST_TOKEN": "tok-9"})


@STARTS_SERVERS
def test_continue_config_yaml_and_a_block_file(tmp_path):
    path = tmp_path / ".continue" / "config.yaml"
    path.parent.mkdir()
    path.write_text(f"""name: My Assistant
version: 1.0.0
schema: v1
models:
  - name: Claude
    provider: anthropic
    model: claude-sonnet-4
mcpServers:
  - name: docs
    command: {PY}
    args: {json.dumps(docs_checking(SECRET="c-7"))}
    env:
      SECRET: ${{{{ secrets.CONTINUE_TEST_SECRET }}}}
  - uses: anthropic/memory-mcp
""")
    said = lists_and_calls(path, env={"CONTINUE_TEST_SECRET": "c-7"})
    assert "'uses: anthropic/memory-mcp' is a Continue Hub block: left out" in said, said
    block = tmp_path / ".continue" / "mcpServers" / "docs.yaml"
    block.parent.mkdir()
    block.write_text(f"name: Docs server\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: docs\n    type: stdio\n"
                     f"    command: {PY}\n    args: {json.dumps(docs_checking())}\n")
    lists_and_calls(block)


@STARTS_SERVERS
def test_goose_extensions_builtin_left_out_with_a_note(tmp_path):
    path = tmp_path / "goose" / "config.yaml"
    path.parent.mkdir()
    path.write_text(f"""GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  docs:
    args: {json.dumps(docs_checking(GOOSE_KEY="g-1", PLAIN="p"))}
    bundled: null
    cmd: {PY}
    description: The course's docs server
    enabled: true
    env_keys:
    - GOOSE_KEY
    envs:
      PLAIN: p
    name: docs
    timeout: 120
    type: stdio
""")
    said = lists_and_calls(path, env={"GOOSE_KEY": "g-1"})
    assert "server 'developer': a goose builtin extension runs inside goose: left out" in said, said


# --- detection, --format, unknown fields, clashes, discovery ------------------------------------------------


def test_format_is_detected_from_content_and_format_overrides_it(tmp_path):
    path = tmp_path / "anything.json"
    path.write_text(json.dumps({"context_servers": {"docs": {"command": PY, "args": docs_checking()}}}))
    assert [s.name for s in config.load(config.Paths(), [path])] == ["docs"]
    path.write_text(json.dumps({"mcpServers": {"docs": {"url": "http://127.0.0.1:1/mcp"}}}))
    [auto] = config.load(config.Paths(), [path])
    [cursor] = config.load(config.Paths(), [path], fmt="cursor")
    assert (auto.spec.transport, cursor.spec.transport) == ("sse", "http-or-sse"), "auto keeps Cline's bare-url rule"


@STARTS_SERVERS
def test_a_file_with_no_known_server_table_says_which_formats_are_read(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"editor.fontSize": 14}')
    done = cli("--config", str(path), "servers")
    assert done.returncode == 2 and "no server table this harness reads (context_servers, extensions, mcpServers, mcp_servers, " \
        "servers); formats read: cline, claude-desktop, claude-code, auto, codex" in done.stderr, done.stderr


def test_an_unknown_field_is_a_warning_naming_file_server_and_field(tmp_path):
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "args": docs_checking(), "retries": 3}}}))
    warned: list[str] = []
    config.load(config.Paths(), [path], warn=warned.append)
    assert warned == [f"{path}: server 'docs': field 'retries': not read by this harness (left out)"]


def test_an_unknown_field_of_s27_s_three_formats_is_a_warning_too(tmp_path):
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "autoApprove": [], "protocol": "auto", "headersHelper": "x"}}}))
    warned: list[str] = []
    config.load(config.Paths(), [path], warn=warned.append)
    assert warned == [f"{path}: server 'docs': field 'headersHelper': not read by this harness (left out)"]


def test_the_same_server_in_two_config_files_is_a_warning_naming_both(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for p in (a, b):
        p.write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "args": docs_checking()}}}))
    warned: list[str] = []
    [server] = config.load(config.Paths(), [a, b], warn=warned.append)
    assert server.source == str(b)
    assert warned == [f"server 'docs': in both {a} and {b}; the one in {b} is used (the later --config file wins)"]
    b.write_text(json.dumps({"mcpServers": {"docs": {"args": []}}}))
    [broken] = config.load(config.Paths(), [a, b], warn=warned.append)
    assert broken.reason == f"server 'docs': field 'command': required (in {b})", "with two files, the error names its file"


@STARTS_SERVERS
def test_without_config_each_client_s_usual_places_are_read_and_project_files_wait(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "args": docs_checking()}}}))
    (home / ".config" / "Claude").mkdir(parents=True)
    (home / ".config" / "Claude" / "claude_desktop_config.json").write_text(json.dumps({"mcpServers": {"desk": {"command": "nowhere"}}}))
    (work / ".vscode").mkdir(parents=True)
    (work / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"repo": {"command": "rm", "args": ["-rf", "/"]}}}))
    done = cli("--home", str(home), "servers", "--json", cwd=work)
    rows = {r["name"]: (r["scope"], r["state"]) for r in json.loads(done.stdout)}
    assert rows == {"desk": ("user", "failed"), "docs": ("user", "connected"), "repo": ("project", "blocked")}, (rows, done.stderr)
    loaded = {s.name: s for s in config.load(config.Paths(home=home, cwd=work, managed=home))}
    assert (loaded["desk"].scope, loaded["desk"].source) == ("user", "~/.config/Claude/claude_desktop_config.json")
    repo = loaded["repo"]
    assert repo.reason == "a project server from .vscode/mcp.json, not started unless named: run with --config .vscode/mcp.json"


def test_jsonc_stripper_keeps_strings_and_lines():
    text = '{\n  "a": "http://x//y", // c\n  /* b\n */ "b": [1,],\n}'
    stripped = strip_jsonc(text)
    assert json.loads(stripped) == {"a": "http://x//y", "b": [1]} and stripped.count("\n") == text.count("\n")


def test_http_or_sse_falls_back_on_a_4xx_to_the_post_but_not_on_an_auth_challenge():
    """The probe alone, against a stdlib HTTP server in this process that answers each path with its status."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import anyio

    from harness.spec import Limits, ServerSpec, Timeouts
    from harness.transports.context import Context
    from harness.transports.fallback import choose

    deleted: list[str] = []

    class Answer(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            status = int(self.path.strip("/"))
            self.send_response(status)
            if status == 200:
                self.send_header("mcp-session-id", "probe-session")
                self.send_header("content-type", "application/json")
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def do_DELETE(self):
            deleted.append(self.headers.get("mcp-session-id", ""))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    labelled: list[str] = []
    context = Context(Timeouts(), Limits(), label=lambda secret, kind: labelled.append(secret))
    try:
        def chosen(status: int) -> str:
            spec = ServerSpec("x", "http-or-sse", url=f"http://127.0.0.1:{server.server_port}/{status}")
            return anyio.run(choose, spec, context)

        assert {s: chosen(s) for s in (200, 401, 403, 404, 405, 400, 500)} == {
            200: "http", 401: "http", 403: "http", 404: "sse", 405: "sse", 400: "sse", 500: "http"}
        assert deleted == ["probe-session"] and labelled == ["probe-session"], "the probe's session is ended, its id a secret"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --- the environment a stdio server gets, by the client whose file it is (issue 36) ------------------------


@STARTS_SERVERS
def test_a_claude_code_file_s_servers_get_the_whole_environment_and_a_cline_file_s_only_the_sdk_s(tmp_path):
    """Claude Code passes its whole environment (runtimes.md K14): tokens, proxies and CA files of the shell reach
    the server. Cline passes the SDK's short list (C17). Before, every format got the short list."""
    shell = {"FROM_THE_SHELL": "yes", "NODE_EXTRA_CA_CERTS": "/etc/ssl/corp-ca.pem"}
    claude = tmp_path / ".mcp.json"
    claude.write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "args": docs_checking(**shell), "env": {"OWN": "1"}}}}))
    lists_and_calls(claude, env=shell)
    cline = tmp_path / "cline_mcp_settings.json"
    code = docs_checking()[1].replace("pass;", "assert 'FROM_THE_SHELL' not in os.environ and 'HOME' in os.environ;", 1)
    cline.write_text(json.dumps({"mcpServers": {"docs": {"command": PY, "args": ["-c", code], "cwd": str(ROOT)}}}))
    lists_and_calls(cline, env=shell)


@STARTS_SERVERS
def test_a_secret_of_the_inherited_environment_is_redacted_wherever_the_server_prints_it(tmp_path):
    crash = "import os, sys; print('Error: bad token ' + os.environ.get('SERVICE_TOKEN', 'none'), file=sys.stderr); sys.exit(3)"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"leaky": {"command": PY, "args": ["-c", crash]}}}))
    (tmp_path / "s.yaml").write_text("prompt: hi\nturns:\n  - text: done\n")
    done = cli("--config", str(tmp_path / ".mcp.json"), "chat", "--scenario", str(tmp_path / "s.yaml"),
               env={"SERVICE_TOKEN": "tok-inherited-0123456789"})
    assert "tok-inherited-0123456789" not in done.stdout + done.stderr, "an inherited secret is never printed"
    assert "Error: bad token ${SERVICE_TOKEN}" in done.stdout, f"expected the server to get it, shown by its name:\n{done.stdout}"
