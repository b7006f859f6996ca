"""``call`` as a user types it: SERVER.TOOL and key=value, the schema checked first, --output, results for a person."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import ROOT, cli, server

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
BINARY = ROOT / "tests" / "servers" / "binary.py"


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"mcpServers": {"deploy": server("deploy"), "media": server("media"),
                                               "bin": {"command": sys.executable, "args": [str(BINARY)]}}}), encoding="utf-8")
    return str(path)


def test_key_value_words_are_typed_from_the_schema(config):
    done = cli("--config", config, "call", "bin.typed", "name=7", "count=3", "ratio=0.5", "ok=true", 'tags=["a", "b"]')
    assert (done.returncode, done.stdout) == (0, '{"count": 3, "name": "7", "ok": true, "ratio": 0.5, "tags": ["a", "b"]}\n'), done
    same = cli("--config", config, "call", "mcp__bin__typed", '{"name": "7", "count": 3}')
    assert same.stdout == '{"count": 3, "name": "7"}\n', same


@pytest.mark.parametrize(("argv", "said"), [
    (["bin.typed", "name=x", "count=three"], "error: bin.typed: argument 'count': expected integer, got 'three'"),
    (["bin.typed", "nme=x"], "error: bin.typed: no argument 'nme'; did you mean 'name'? (it takes: count, ratio, ok, tags, name)"),
    (["bin.typed", '{"name": "x", "extra": 1}'], "error: server 'bin': tool 'typed': arguments do not match the tool's input "
     "schema, so the call was not sent: $: Additional properties are not allowed ('extra' was unexpected) (rule: additionalProperties)"),
    (["mcp__deploy__status", '{"id": "d-1"}'], "so the call was not sent: $: 'deployment_id' is a required property (rule: required)"),
    (["deploy.statu"], "error: no tool 'deploy.statu' among the connected servers' tools; did you mean 'deploy.status'?"),
    (["bin.typed", "name"], "error: argument 'name': expected KEY=VALUE or one JSON object"),
])
def test_a_call_that_cannot_be_right_is_refused_before_it_is_sent(config, argv, said):
    done = cli("--config", config, "call", *argv)
    assert done.returncode == 2 and said in done.stderr and done.stdout == "", f"expected {said!r} on stderr: {done}"


def test_a_tool_s_error_goes_to_stderr_with_exit_1(config):
    done = cli("--config", config, "call", "deploy.status", "deployment_id=d-1")
    assert (done.returncode, done.stdout) == (1, "") and done.stderr.startswith("error: server 'deploy': tool 'status': "), done


def test_output_writes_the_first_binary_block_or_the_text(config, tmp_path):
    png = tmp_path / "chart.png"
    done = cli("--config", config, "call", "media.chart", "--output", str(png))
    assert done.stdout == f"wrote {png} (70 bytes, image/png)\n" and png.read_bytes().startswith(b"\x89PNG"), done
    text = tmp_path / "t.txt"
    done = cli("--config", config, "call", "bin.typed", "name=x", "--output", str(text))
    assert text.read_text(encoding="utf-8") == '{"name": "x"}' and done.stdout.startswith(f"wrote {text} (13 bytes of text)"), done


def test_images_are_saved_user_only_content_is_shown_and_base64_text_is_not_dumped(config):
    chart = cli("--config", config, "call", "media.chart")
    assert re.search(r"\[image, image/png, 70 bytes: saved to .+\.png\]", chart.stdout) and "sent to the model" not in chart.stdout, chart
    mine = cli("--config", config, "call", "bin.user_image")
    assert mine.stdout.startswith("a picture\n[image, image/png, 72 bytes: saved to "), mine
    triage = cli("--config", config, "call", "media.triage")
    assert "raw log: web-7 OOM at 03:12" in triage.stdout, triage
    data = cli("--config", config, "call", "bin.media_file")
    found = re.fullmatch(r"\[a base64 text, decoded, no type, 30000 bytes: saved to (.+\.bin)\]\n", data.stdout)
    assert found and Path(found.group(1)).read_bytes() == bytes(i * 7 % 256 for i in range(30_000)), data
