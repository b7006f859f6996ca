"""s35 on a user's own config (``--config FILE``), and s35 stopped by a signal at any moment.

The config is a file outside the repository (``tmp_path``), written as a user writes one:
two of the course's servers by the interpreter's absolute path, and one broken entry. The
survey model (harness/survey.py) lists them, calls one read-only tool each, and sums up.

Then SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed terminal) are sent at each moment of a
run: while the first server starts, while a call is under way (a tool that never answers,
``--hang-on``), and while the run shuts down. Each leaves 0 processes (the test process is
a child subreaper: ``tests/leaks.py``) and 0 temporary folders (TMPDIR is the case's own
folder). The lesson's own run (network servers, OAuth) is stopped once per signal too.
Every case starts processes, so the file is ``slow``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN
from test_exits import kill_strays, lesson_env  # noqa: F401  (kill_strays: the fixture)
from test_orphans import last_words, signalled

pytestmark = [pytest.mark.usefixtures("kill_strays", "no_process_left"), pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
CODE = ROOT / "lessons" / "s35" / "code.py"


def user_config(folder: Path, *docs_flags: str) -> Path:
    """An mcpServers file in ``folder``: docs and deploy over stdio, and an entry with no command."""
    def server(module: str, *flags: str) -> dict:
        return {"command": sys.executable, "args": ["-m", module, "--transport", "stdio", *flags]}

    path = folder / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {
        "docs": server("mock_servers.docs", *docs_flags), "deploy": server("mock_servers.deploy"), "broken": {"args": ["x"]},
    }}, indent=2), encoding="utf-8")
    return path


def test_the_survey_runs_on_a_config_outside_the_repository(tmp_path):
    user = tmp_path / "someone"
    user.mkdir()
    user_config(user)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    result = subprocess.run([sys.executable, str(CODE), "--config", ".mcp.json"], cwd=user, capture_output=True, text=True,
                            env=lesson_env(TMPDIR=str(tmp)), stdin=subprocess.DEVNULL, timeout=RUN)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for expected in ("note: read .mcp.json: broken, deploy, docs",
                     "note: broken (file, no transport): failed: server 'broken': field 'command': required",
                     "  -> mcp__deploy__status {\"deployment_id\": \"example\"}",
                     "  -> mcp__docs__get_version {}",
                     "assistant> Summary:",
                     "           - deploy: 2 tools, 1 read-only; called status: error",
                     "           - docs: 2 tools, 2 read-only; called get_version: ok",
                     "           Not called, not marked read-only (I would ask you first): mcp__deploy__trigger",
                     "note: every server is closed: 0 processes left running"):
        assert expected in lines, f"expected the line {expected!r}\n{result.stdout}"
    assert not any(line.startswith("  -> mcp__deploy__trigger") for line in lines), "the survey called a tool not marked read-only"
    assert os.listdir(tmp) == [], f"expected no temporary folder left, found {os.listdir(tmp)}"
    assert "Traceback" not in result.stderr, result.stderr


def test_a_config_that_is_not_there_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, str(CODE), "--config", str(tmp_path / "missing.json")], cwd=tmp_path,
                            capture_output=True, text=True, env=lesson_env(), stdin=subprocess.DEVNULL, timeout=RUN)
    assert (result.returncode, result.stdout) == (2, ""), result
    assert result.stderr == f"error: --config: no such file: {tmp_path / 'missing.json'}\n", result.stderr


MOMENTS = ("start", "call", "shutdown")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CASES = [("config", sig, moment) for sig in SIGNALS for moment in MOMENTS] + [
    ("lesson", signal.SIGINT, "call"), ("lesson", signal.SIGTERM, "start"), ("lesson", signal.SIGHUP, "shutdown")]


@pytest.mark.parametrize(("mode", "signum", "moment"), CASES, ids=[f"{m}-{s.name}-{t}" for m, s, t in CASES])
def test_a_signal_at_any_moment_leaves_nothing(mode, signum, moment, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = lesson_env(TMPDIR=str(tmp), XDG_STATE_HOME=str(tmp_path / "state"))
    if mode == "config":  # docs never answers get_version, so the survey's call is under way until the signal
        args = ("--config", str(user_config(tmp_path, *(("--hang-on", "get_version") if moment == "call" else ()))))
        marks = {"call": "-> mcp__docs__get_version", "shutdown": "assistant> Summary:"}
    else:
        args = ()
        marks = {"call": "-> mcp__docs__authenticate", "shutdown": last_words("s35")}
    ran_on, result, left = signalled("s35", args, env, signum, None if moment == "start" else marks[moment], moment)
    assert ran_on, f"expected the run still going when {signum.name} was sent ({moment})\n{result}"
    assert result.code == 128 + signum, f"expected exit {128 + signum} after {signum.name} ({moment})\n{result}"
    assert not left, (f"expected 0 processes left after {signum.name} ({moment}), found {len(left)}:\n"
                      + "\n".join(f"  {p}" for p in left) + f"\n{result}")
    assert sorted(os.listdir(tmp)) == [], f"expected no temporary folder left after {signum.name} ({moment})\n{result}"
    assert "Traceback" not in result.stderr, result


SCENARIO = """\
prompt: Deploy web to staging and tell me the docs version.
answers: ["yes"]
turns:
  - text: Deploying.
    tool_calls:
      - {name: mcp__deploy__trigger, input: {service: web}}
  - text: The version.
    tool_calls:
      - {name: mcp__docs__get_version, input: {}}
  - text: Done.
"""


def test_s35_runs_the_loop_the_cli_chat_runs(tmp_path):
    """The same config and scenario through ``python -m harness chat`` and through s35 give the same run.

    s35 adds its notes (what it read, each server's state after the connects, the count at
    the end) and the workspace's file tools; the CLI lists what the model sees. Every other
    line is the same, in the same order.
    """
    config = user_config(tmp_path)
    (tmp_path / "scenario.yaml").write_text(SCENARIO, encoding="utf-8")
    env = lesson_env(XDG_STATE_HOME=str(tmp_path / "state"), TMPDIR=str(tmp_path))

    def run(*argv: str) -> list[str]:
        result = subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True, env=env,
                                stdin=subprocess.DEVNULL, timeout=RUN)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout.splitlines()

    chat = run("-m", "harness", "--config", str(config), "--managed", str(tmp_path / "no-policy"), "chat", "--scenario", "scenario.yaml")
    ours = run(str(CODE), "--config", str(config), "--scenario", "scenario.yaml")
    seen = chat.index("note: the model sees:")  # and one indented line per tool after it
    end = next(i for i in range(seen + 1, len(chat)) if not chat[i].startswith("    "))
    chat = chat[:seen] + chat[end:]
    extra = ("note: read ", "note: broken (", "note: deploy (", "note: docs (", "note: every server is closed: ", "tools (")
    assert [line for line in chat if not line.startswith("tools (")] == [line for line in ours if not line.startswith(extra)]
    assert "  ?? mcp__deploy__trigger: destructive, as the server says: asked, scripted answered yes" in ours
