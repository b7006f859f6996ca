"""``login`` and ``logout`` against the course's OAuth-protected docs server (``mock_servers.protected``).

The CLI runs in this process (``test_app.cli``), from a project folder, with the default
token store moved under the test's folder (``XDG_STATE_HOME``). ``--sign-in auto``
consents at once: the mock authorization server on 127.0.0.1 is the only one that answers
that. Every output is checked for the stored secrets with ``assert_no_secret``.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from secret_check import assert_no_secret
from test_app import cli, server
from test_app_stack import docs_url  # noqa: F401  (the fixture: the protected server for one test)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


def _secrets(store_file: Path) -> list[str]:
    stored = store_file.read_text(encoding="utf-8")
    return re.findall(r'"(?:access_token|refresh_token|client_id|client_secret)": "([^"]+)"', stored)


@pytest.fixture
def project(tmp_path: Path, docs_url: str, monkeypatch) -> Path:  # noqa: F811  (the fixture above)
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "cline_mcp_settings.json").write_text(json.dumps({"mcpServers": {
        "docs": {"type": "streamableHttp", "url": docs_url}, "deploy": server("deploy")}}), encoding="utf-8")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return folder


def test_login_then_call_uses_the_stored_token_kept_private_outside_the_workspace(project, tmp_path):
    config = ("--config", "cline_mcp_settings.json", "--home", str(tmp_path))
    before = cli(*config, "servers", cwd=project)
    assert before.returncode == 0, before
    [row] = [line for line in before.stdout.splitlines() if line.startswith("docs ")]
    assert row.split()[3] == "needs-auth" and row.endswith(" needs authorization: sign in with 'mcp-course login docs'"), before.stdout

    signed = cli(*config, "--sign-in", "auto", "login", "docs", cwd=project)
    assert (signed.returncode, signed.stdout) == (0, "docs: signed in; 3 tools: search, get_version, publish\n"), signed
    [store_file] = (tmp_path / "state" / "mcp-course" / "tokens").glob("*.json")
    assert stat.S_IMODE(store_file.stat().st_mode) == 0o600, oct(store_file.stat().st_mode)
    assert stat.S_IMODE(store_file.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in project.rglob("*")) == ["cline_mcp_settings.json"], "expected nothing but the config in the project"

    called = cli(*config, "call", "mcp__docs__search", '{"query": "hooks"}', cwd=project)
    assert called.returncode == 0 and called.stdout.startswith("hooks: Hooks run shell commands"), called
    again = cli(*config, "login", "docs", cwd=project)  # no browser: the stored tokens work
    assert again.returncode == 0 and "signed in already" in again.stdout, again
    secrets = _secrets(store_file)
    assert len(secrets) == 4, "expected an access token, a refresh token, a client id and secret in the store"
    assert_no_secret(secrets, login=signed.stdout + signed.stderr, call=called.stdout + called.stderr,
                     again=again.stdout + again.stderr, project=project)


def test_a_token_past_its_expiry_is_refreshed_by_the_next_command(project, tmp_path):
    config = ("--config", "cline_mcp_settings.json", "--home", str(tmp_path))
    assert cli(*config, "--sign-in", "auto", "login", "docs", cwd=project).returncode == 0
    [store_file] = (tmp_path / "state" / "mcp-course" / "tokens").glob("*.json")
    data = json.loads(store_file.read_text(encoding="utf-8"))
    first = data["tokens"]["token"]["access_token"]
    data["tokens"]["expires_at"] = 0  # long expired: the provider must refresh before its first request
    store_file.write_text(json.dumps(data), encoding="utf-8")
    listed = cli(*config, "servers", "--json", cwd=project)
    assert listed.returncode == 0, listed
    assert {r["name"]: r["state"] for r in json.loads(listed.stdout)} == {"deploy": "connected", "docs": "connected"}
    refreshed = json.loads(store_file.read_text(encoding="utf-8"))["tokens"]
    assert refreshed["token"]["access_token"] != first and refreshed["expires_at"] > 0, "expected a refreshed token in the store"
    assert_no_secret([first, refreshed["token"]["access_token"]], servers=listed.stdout + listed.stderr)


def test_logout_deletes_the_tokens_and_the_server_needs_auth_again(project, tmp_path):
    config = ("--config", "cline_mcp_settings.json", "--home", str(tmp_path))
    assert cli(*config, "--sign-in", "auto", "login", "docs", cwd=project).returncode == 0
    [store_file] = (tmp_path / "state" / "mcp-course" / "tokens").glob("*.json")
    out = cli(*config, "logout", "docs", cwd=project)
    assert (out.returncode, out.stdout) == (0, f"docs: signed out (deleted token store file {store_file.name})\n"), out
    assert not store_file.exists()
    assert cli(*config, "logout", "docs", cwd=project).stdout == f"docs: not signed in (no token store file {store_file.name})\n"
    tools = cli(*config, "tools", cwd=project)
    assert "error: server 'docs': needs authorization: sign in with 'mcp-course login docs'\n" in tools.stderr, tools


@pytest.mark.parametrize(("name", "message"), [
    ("deploy", "error: server 'deploy' runs a command (stdio): only a server with a URL signs in\n"),
    ("nope", "error: no server 'nope' in the config (servers: deploy, docs)\n"),
])
def test_login_of_a_server_that_cannot_sign_in_is_bad_usage(project, tmp_path, name, message):
    done = cli("--config", "cline_mcp_settings.json", "--home", str(tmp_path), "login", name, cwd=project)
    assert (done.returncode, done.stderr) == (2, message), done
