"""VS Code inputs: one used by two servers is asked once; doctor expands them as the servers will.

``config.options`` answers ``${input:ID}`` from ``--input``, else the terminal; an answer
the terminal gave is kept for every later server of the run (and chat's reloads). doctor
reads the inputs too, so ``--input`` makes a file with ``${input:...}`` check clean.
"""

from __future__ import annotations

import argparse
import io
import json
import sys

from test_formats import cli

from harness import config
from harness.config import cli as config_cli

VSCODE = {"inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": True}],
          "servers": {"a": {"command": sys.executable, "env": {"KEY": "${input:key}"}},
                      "b": {"command": sys.executable, "env": {"KEY": "${input:key}"}}}}


def _file(tmp_path):
    path = tmp_path / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps(VSCODE))
    return path


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_input_two_servers_use_is_asked_once(tmp_path, monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(config_cli, "terminal", lambda question, secret: asked.append(question) or "k-123")
    monkeypatch.setattr(sys, "stdin", _Terminal())
    args = argparse.Namespace(format=None, input=[])
    servers = config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path / "none"), [_file(tmp_path)],
                          **config.options(args, io.StringIO()))
    assert asked == ["API key (key)"], f"expected one question for the input both servers use, got {asked}"
    assert {s.name: dict(s.inputs) for s in servers} == {"a": {"key": ("k-123", True)}, "b": {"key": ("k-123", True)}}
    assert args.input == [("key", "k-123")], "the answer is kept with the --input values (chat's reload reads them)"


def test_doctor_expands_inputs_with_input_and_names_an_unanswered_one_as_a_problem(tmp_path):
    path = _file(tmp_path)
    given = cli("--config", str(path), "doctor", "--offline", "--input", "key=k-123", cwd=tmp_path)
    assert (given.returncode, given.stdout.splitlines()[-1]) == (0, "no problems"), given
    missing = cli("--config", str(path), "doctor", "--offline", "--json", cwd=tmp_path)
    assert missing.returncode == 1, f"an unanswered input is a problem (exit 1), not an unreadable config (2): {missing}"
    problems = [(p["server"], p["problem"]) for p in json.loads(missing.stdout)["problems"]]
    assert problems == [(s, "no value for input key (give --input ID=VALUE, or run on a terminal to be asked)") for s in ("a", "b")], problems
