"""Secrets in URLs and in expanded variables are never printed (issue 18, item 7).

A URL shows without its userinfo and query values; a server entry shows as written
(``${API_TOKEN}``), never the value; and the values expanded into a header, or from a
variable whose name says secret, are handed to the transcript's redactor. Through the CLI
in process: ``servers`` with a failing URL and a failing command line.
"""

from __future__ import annotations

import io
import json
import sys

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from secret_check import assert_no_secret

from harness import app, redact
from harness.config.variables import expand
from harness.spec import ServerSpec
from harness.transcript import Transcript

PASSWORD, TOKEN, API_TOKEN = "hunter2-PASSWORD", "tok-QUERY-0123456789", "api-ARGS-0123456789"


@pytest.mark.parametrize(("given", "shown"), [
    ("http://admin:pw@127.0.0.1:9/mcp?api_key=t&x=1#top", "http://<redacted>@127.0.0.1:9/mcp?api_key=<redacted>&x=<redacted>#top"),
    ("https://token@host/mcp", "https://<redacted>@host/mcp"),
    ("http://127.0.0.1:9/mcp", "http://127.0.0.1:9/mcp"),
    ("http://host/mcp?flag", "http://host/mcp?flag"),
])
def test_a_url_shows_without_userinfo_or_query_values(given, shown):
    assert redact.url(given) == shown


def test_an_expanded_entry_shows_as_written_and_names_its_secrets():
    environ = {"API_TOKEN": API_TOKEN, "PYTHON": "/opt/py", "REGION": "eu-west-1", "H": "hdr-value-123"}
    spec = expand(ServerSpec("s", "stdio", command="${PYTHON}", args=("-m", "srv", "--token=${API_TOKEN}", "--region", "${REGION}")), environ)
    assert spec.args[2] == f"--token={API_TOKEN}", "the server still gets the value"
    assert spec.where() == "/opt/py -m srv '--token=${API_TOKEN}' --region eu-west-1", "a plain variable is shown, a secret one as written"
    assert spec.secrets == ((API_TOKEN, "API_TOKEN"),)
    web = expand(ServerSpec("w", "http", url="http://127.0.0.1:9/mcp", headers={"X-Key": "${H}"}), environ)
    assert web.secrets == (("hdr-value-123", "H"),), "a header's variables are secrets whatever their name"


def test_the_cli_prints_no_secret_of_a_failing_url_or_command(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_PASSWORD", PASSWORD)
    monkeypatch.setenv("QUERY_TOKEN", TOKEN)
    monkeypatch.setenv("API_TOKEN", API_TOKEN)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "web": {"type": "http", "url": "http://admin:${MCP_PASSWORD}@127.0.0.1:9/mcp?api_key=${QUERY_TOKEN}"},
        "tool": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)", "--token", "${API_TOKEN}"]},
        "literal": {"type": "http", "url": f"http://admin:{PASSWORD}@127.0.0.1:9/mcp"},
    }}))
    out, err = io.StringIO(), io.StringIO()
    code = app.main(["--home", str(tmp_path), "--managed", str(tmp_path / "none"), "--config", str(config), "servers", "--json"], out, err)
    rows = {row["name"]: row for row in json.loads(out.getvalue())}
    assert code == 0 and all(row["state"] == "failed" for row in rows.values()), rows
    assert "cannot reach http://<redacted>@127.0.0.1:9/mcp?api_key=<redacted>" in rows["web"]["error"], rows["web"]["error"]
    assert "--token '${API_TOKEN}'" in rows["tool"]["error"], rows["tool"]["error"]
    assert_no_secret([PASSWORD, TOKEN, API_TOKEN], stdout=out.getvalue(), stderr=err.getvalue())


def test_the_redactor_learns_the_secrets_a_server_was_started_with(monkeypatch):
    from harness.config.formats import ServerConfig
    from harness.config.wiring import connector
    from harness.spec import State

    class Conns:
        transcript = Transcript(io.StringIO())

        async def open(self, spec, **options):
            return spec

    import anyio

    server = ServerConfig("s", "user", "test", ServerSpec("s", "stdio", command="x", args=("${API_TOKEN}",)), State.PENDING, "")
    spec = anyio.run(connector(server, Conns(), {"API_TOKEN": API_TOKEN}))
    assert spec.args == (API_TOKEN,)
    Conns.transcript.note(f"the server said {API_TOKEN}")
    text = Conns.transcript.out.getvalue()
    assert "the server said ${API_TOKEN}" in text, text
    assert_no_secret([API_TOKEN], transcript=text)


def test_a_value_written_as_is_under_a_secret_name_is_a_secret_too():
    """"GITHUB_TOKEN": "ghp_..." written in the file (no variable), or an Authorization header: a server that
    echoes its environment (server-everything's get-env) must not print it; a short flag under such a name is no secret."""
    literal, bearer = "ghp_LITERAL_0123456789", "Bearer sk-literal-0123456789"
    spec = expand(ServerSpec("s", "stdio", command="srv", env={"GITHUB_TOKEN": literal, "AUTH_ENABLED": "true", "SESSION_TTL": "30000",
                                                               "REGION": "eu-west-1-long"}))
    assert spec.secrets == ((literal, "GITHUB_TOKEN"),)
    web = expand(ServerSpec("w", "http", url="http://127.0.0.1:9/mcp", headers={"Authorization": bearer, "X-Trace": "trace-on-all-calls"}))
    assert web.secrets == ((bearer, "Authorization"),)


@pytest.mark.parametrize(("word", "shown"), [
    ("postgresql://admin:PASSWORD@db.example/app", "postgresql://<redacted>@db.example/app"),
    ("--db=mysql://u:p@ss@h:3306/x", "--db=mysql://<redacted>@h:3306/x"),  # an unescaped @ in the password
    ("redis://:secret@127.0.0.1:6379/0", "redis://<redacted>@127.0.0.1:6379/0"),
    ("--port=5432", "--port=5432"),
])
def test_a_connection_string_in_an_argument_shows_without_its_userinfo(word, shown):
    assert redact.argument(word) == shown


@pytest.mark.usefixtures("no_process_left")
def test_servers_and_doctor_never_print_a_connection_strings_password(tmp_path, monkeypatch):
    """A literal ``postgresql://admin:PASSWORD@host`` argument and one from ``${DATABASE_URL}`` (a name that does not
    say secret): the failing command line is shown in ``servers``, in ``doctor``'s problem and its fix."""
    literal, from_env = "pg-LITERAL-0123456789", "pg-FROMENV-0123456789"
    monkeypatch.setenv("DATABASE_URL", f"postgresql://admin:{from_env}@db.example/app")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "pg": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)", f"postgresql://admin:{literal}@db.example/app"]},
        "env": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)", "--db=${DATABASE_URL}"]},
    }}))
    base = ["--home", str(tmp_path), "--managed", str(tmp_path / "none"), "--config", str(config)]
    printed = {}
    for command in (["servers", "--json"], ["doctor"]):
        out, err = io.StringIO(), io.StringIO()
        app.main([*base, *command], out, err)
        printed[command[0]] = out.getvalue() + err.getvalue()
    assert "postgresql://<redacted>@db.example/app" in printed["servers"], printed["servers"]
    assert "--db=postgresql://<redacted>@db.example/app" in printed["doctor"], printed["doctor"]
    assert_no_secret([literal, from_env], servers=printed["servers"], doctor=printed["doctor"])
