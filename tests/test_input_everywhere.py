"""A 2026-07-28 server may answer ``prompts/get`` and ``resources/read`` with an input-required result, as it may
answer ``tools/call``: the harness answers those rounds the same way (harness.elicit's rounds, through the
connection's around_send chain), over either transport, from the CLI.

The handbook runs with ``--ask-first``: each read and each prompt first asks (a form) who reads it; the answer
comes back in the page (``(read for Ada)``) or as one more prompt message (``(for Ada)``).
"""

from __future__ import annotations

import json
import sys

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from mock_servers.launch import command
from serving import served
from test_app import cli

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]
ASKING = ("--ask-first", "--era", "2026-07-28")
ADA = '{"form": {"reader": "Ada"}}'


def config(tmp_path, entry: dict) -> str:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"hb": entry}}))
    return str(path)


def stdio_entry() -> dict:
    return {"command": sys.executable, "args": ["-m", "mock_servers.serve", "handbook", "--transport", "stdio", *ASKING]}


def reads_and_prompts(path: str) -> None:
    read = cli("--config", path, "read", "handbook://pages/style", "--answer", ADA)
    assert read.returncode == 0, f"expected read to complete after the round, got {read.returncode}: {read.stderr}"
    assert read.stdout.rstrip().endswith("(read for Ada)"), read.stdout
    prompt = cli("--config", path, "prompt", "hb/summarize", '{"title": "style"}', "--answer", ADA)
    assert prompt.returncode == 0, f"expected prompt to complete after the round, got {prompt.returncode}: {prompt.stderr}"
    assert prompt.stdout.rstrip().endswith("(for Ada)"), prompt.stdout
    as_json = cli("--config", path, "--json", "prompt", "hb/summarize", '{"title": "style"}', "--answer", ADA)
    said = json.loads(as_json.stdout)
    assert said["messages"][-1]["content"]["text"] == "(for Ada)" and said["text"].endswith("(for Ada)"), \
        "expected one prompts/get, so one round and one answer for both the messages and the text"


def test_a_read_and_a_prompt_that_ask_for_input_complete_over_stdio(tmp_path):
    reads_and_prompts(config(tmp_path, stdio_entry()))


def test_a_read_and_a_prompt_that_ask_for_input_complete_over_http(tmp_path):
    with served(command("handbook", "http", *ASKING)) as url:
        reads_and_prompts(config(tmp_path, {"type": "http", "url": url}))


def test_with_no_answer_the_form_is_declined_and_the_server_says_so(tmp_path):
    read = cli("--config", config(tmp_path, stdio_entry()), "read", "handbook://pages/style")
    assert read.returncode == 0, read.stderr
    assert read.stdout.rstrip().endswith("(read for nobody)"), read.stdout
