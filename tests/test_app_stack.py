"""The user CLI's chat on the whole stack (``harness.stack``): one scripted run, pinned.

The config (tests/app/cline_mcp_settings.json) holds the course's OAuth-protected docs
server (``mock_servers.protected``, with its authorization server), the handbook (resources)
and media (an image, and a report over its cap). The scenario (tests/app/chat.yaml) signs
in, is asked about a call that is not marked read-only (yes) and a destructive one (no),
gets the chart and a report spilled to a file, and reads through the resource tools.

The CLI runs in this process, so the test reads what the model was handed, not only the
transcript: the chart must reach it as an image block. Ports are replaced by placeholders
in order of appearance; no token, code or secret may appear.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from cases import APP_SNAPSHOTS, ROOT, SNAPSHOTS
from secret_check import assert_no_secret
from leaks import no_process_left  # noqa: F401  (the fixture)

from harness import app
from harness.model import ScriptedModel
from mock_servers.launch import command
from serving import served

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
HERE = ROOT / "tests" / "app"
SNAPSHOT = SNAPSHOTS / "cli" / "chat_stack.transcript"
assert SNAPSHOT in APP_SNAPSHOTS


@pytest.fixture
def docs_url():
    """The protected docs server (and its authorization server) for the length of a test; stopped and reaped after."""
    with served(command("docs", "http", module="mock_servers.protected")) as url:
        yield url


def _placeholders(text: str) -> str:
    ports: dict[str, str] = {}
    return re.sub(r"127\.0\.0\.1:(\d+)", lambda m: f"127.0.0.1:<port{ports.setdefault(m[1], str(len(ports) + 1))}>", text)


def test_chat_signs_in_asks_caps_sends_the_image_and_offers_resources(docs_url, tmp_path, monkeypatch, snapshot):
    settings = tmp_path / "cline_mcp_settings.json"
    shutil.copy(HERE / "cline_mcp_settings.json", settings)
    workspace, tokens = tmp_path / "workspace", tmp_path / "tokens"
    workspace.mkdir()
    monkeypatch.setenv("DOCS_URL", docs_url)
    monkeypatch.setenv("PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    asked: list[list[dict]] = []
    reply = ScriptedModel.reply

    async def recording(self, system, messages, tools):
        asked.append(json.loads(json.dumps(messages)))  # as sent, before the loop appends to it
        return await reply(self, system, messages, tools)

    monkeypatch.setattr(ScriptedModel, "reply", recording)
    out, err = io.StringIO(), io.StringIO()
    argv = ["--config", str(settings), "--home", str(tmp_path), "--managed", str(tmp_path / "no-managed"),
            "--token-store", str(tokens), "--sign-in", "auto",
            "chat", "--scenario", str(HERE / "chat.yaml"), "--workspace", str(workspace)]
    code = app.main(argv, out, err)
    text = out.getvalue()
    assert code == 0, text + err.getvalue()

    # The model got the chart as an image block, and the report's head with where the rest is.
    results = {b["tool_use_id"]: b for m in asked[-1] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]}
    chart = next(b for b in results.values() if isinstance(b["content"], list))
    assert [c["type"] for c in chart["content"]] == ["text", "image"], chart
    assert chart["content"][1]["source"]["media_type"] == "image/png"
    assert "[image content" not in json.dumps(asked[-1])
    spilled = sorted(p.name for p in (workspace / ".mcp-output").iterdir())
    assert spilled == ["001-media-report.txt"], spilled
    # No secret in the transcript: the store has the token, the output only placeholders.
    stored = json.loads(next(tokens.rglob("*.json")).read_text(encoding="utf-8"))
    secret = json.dumps(stored)
    secrets = re.findall(r'"(?:access_token|refresh_token|client_id|client_secret)": "([^"]+)"', secret)
    assert len(secrets) == 4, f"expected a token, a refresh token and a client in the store, found {len(secrets)} values"
    assert_no_secret(secrets, transcript=text, stderr=err.getvalue(), workspace=workspace)
    snapshot.snapshot_dir = SNAPSHOT.parent
    snapshot.assert_match(_placeholders(text).replace(str(workspace), "<workspace>"), SNAPSHOT.name)
