"""What reaches the terminal is ours: server text escaped and secrets redacted on every path.

A tool's result, a server's name from a cloned repo's ``.mcp.json``, a question: through
a transcript (``chat``, the lessons) every line passes ``echo.terminal``; through the user
CLI's own streams (``call``, ``servers``, ``doctor``) every write passes
``harness.terminal.Writer``, which redacts first. The model's copy of a result stays as
the server sent it.
"""

from __future__ import annotations

import io
import json
import re
import sys

import anyio
import pytest
from conftest import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)
from secret_check import assert_no_secret
from test_app import cli

from harness import echo
from harness.loop import Turn, run_agent
from harness.model import Scenario, ScriptedModel
from harness.results import ToolResult, text_block
from harness.tools import Tool
from harness.transcript import Transcript

# NUL, a screen clear, an OSC title ended by BEL, a right-to-left override, a bare CR that
# would overwrite its line (or, read as a line break, start a forged harness line).
NASTY = "nul\x00 clear\x1b[2J osc\x1b]0;owned\x07 bidi\u202etxt.exe cr\rerror: forged"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _raw(text: str) -> list[str]:
    return [line for line in text.split("\n") if RAW.search(line)]


def test_a_chat_transcript_shows_a_results_controls_escaped_and_the_model_gets_them_as_sent():
    out = io.StringIO()
    seen: list = []

    async def nasty(arguments):
        return ToolResult((text_block(NASTY + "\nsecond line"),))

    async def main():
        transcript = Transcript(out)
        tool = Tool("mcp__evil__echo", "", {"type": "object"}, nasty, source="evil", original="echo")
        model = ScriptedModel(Scenario.parse({"prompt": "go", "turns": [
            {"tool_calls": [{"name": "mcp__evil__echo", "input": {}}]}, {"text": "done"}]}, "test.yaml"))
        seen.extend(await run_agent(model, "go", lambda: Turn("s", (tool,)), transcript))

    anyio.run(main)
    text = out.getvalue()
    assert not _raw(text), f"raw controls reached the terminal: {_raw(text)}"
    assert not any(line.lstrip().startswith("error: forged") for line in text.split("\n")), f"a CR forged a line:\n{text}"
    assert "  <- nul\\x00 clear\\x1b[2J osc\\x1b]0;owned\\x07 bidi\\u202etxt.exe cr\\rerror: forged\n     second line" in text, text
    results = [b for m in seen if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_result"]
    assert [r["content"] for r in results] == [NASTY + "\nsecond line"], f"the model must get the result as the server sent it: {results}"


def test_a_line_with_a_crlf_ending_keeps_its_line_break():
    out = io.StringIO()
    Transcript(out).note("one\r\ntwo")
    assert out.getvalue() == "note: one\n    two\n", repr(out.getvalue())


@pytest.mark.usefixtures("no_process_left")
def test_call_prints_a_servers_controls_escaped_and_the_secrets_it_echoes_redacted(tmp_path, monkeypatch):
    """The hostile server's echo repeats its argument: the CLI prints it as ours, escaped, and without
    the ``${TOKEN}`` value or the literal GITHUB_TOKEN the server was started with."""
    from_env, literal = "api-FROM-ENV-0123456789", "ghp_LITERAL_0123456789"
    monkeypatch.setenv("MY_API_TOKEN", from_env)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"h": {
        "command": sys.executable, "args": ["-m", "mock_servers.hostile", "--transport", "stdio"], "cwd": str(ROOT),
        "env": {"API_KEY": "${MY_API_TOKEN}", "GITHUB_TOKEN": literal}}}}))
    said = f"{from_env} {literal} {NASTY}"
    shown = cli("--config", str(config), "call", "mcp__h__echo", json.dumps({"text": said}), cwd=tmp_path)
    assert shown.returncode == 0, shown
    assert shown.stdout == ("echo: ${MY_API_TOKEN} ${GITHUB_TOKEN} nul\\x00 clear\\x1b[2J osc\\x1b]0;owned\\x07 "
                            "bidi\\u202etxt.exe cr\\rerror: forged\n"), repr(shown.stdout)
    as_json = cli("--config", str(config), "call", "--json", "mcp__h__echo", json.dumps({"text": said}), cwd=tmp_path)
    assert json.loads(as_json.stdout)["content"][0]["text"].startswith("echo: ${MY_API_TOKEN} ${GITHUB_TOKEN} nul\x00"), as_json.stdout
    assert_no_secret([from_env, literal], stdout=shown.stdout + as_json.stdout, stderr=shown.stderr + as_json.stderr)


def test_servers_and_doctor_show_a_cloned_repos_server_names_escaped(tmp_path):
    """Names with ESC c (a terminal reset), BEL and U+202E in an unapproved .mcp.json: shown, never raw."""
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    evil = "evil\x1bc\x07\u202eexe"
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {evil: {"command": "no-such-program-x"}, "plain": {"command": "x"}}}))
    printed = {}
    for command in (["servers"], ["doctor", "--offline"], ["servers", "--json"]):
        done = cli("--home", str(home), *command, cwd=repo)
        printed[" ".join(command)] = done.stdout + done.stderr
    for command, text in printed.items():
        assert not _raw(text), f"{command}: raw controls reached the terminal: {_raw(text)}"
    rows = printed["servers"].split("\n")
    assert rows[0].startswith(echo.line(evil) + "  "), rows
    assert rows[1].startswith("plain" + " " * (len(echo.line(evil)) - len("plain")) + "  "), f"the columns must line up: {rows}"
    assert "server 'evil\\x1bc\\x07\\u202eexe'" in printed["doctor --offline"], printed["doctor --offline"]
