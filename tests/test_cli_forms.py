"""A server's form and sample on the CLI: on a real terminal (a pty) and with ``--answer``, against the desk mock server."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN, STOP
from test_app import ROOT, cli, server

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


@pytest.fixture
def desk(tmp_path: Path) -> str:
    """The desk server, pinned to the era in which a server asks during a call (2025-11-25)."""
    path = tmp_path / "desk.json"
    path.write_text(json.dumps({"mcpServers": {"desk": {**server("desk"), "cwd": str(ROOT), "protocol": "2025-11-25"}}}), encoding="utf-8")
    return str(path)


class Terminal:
    """``python -m harness ARGV`` with stdin and stderr on a pty, stdout piped: a person at a terminal."""

    def __init__(self, *argv: str) -> None:
        self.fd, side = pty.openpty()
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
        command = [sys.executable, "-m", "harness", "--managed", str(ROOT / "tests" / "no-managed-folder"), *argv]
        self.process = subprocess.Popen(command, stdin=side, stdout=subprocess.PIPE, stderr=side, cwd=ROOT, env=env,
                                        start_new_session=True)
        os.close(side)
        self.shown, self._mark = "", 0

    def until(self, pattern: str) -> re.Match[str]:
        """Read the terminal until ``pattern`` appears in what is new since the last match; the match."""
        deadline, start = time.monotonic() + RUN, self._mark
        while (found := re.search(pattern, self.shown[start:])) is None:
            assert time.monotonic() < deadline, f"expected {pattern!r} on the terminal, it showed: {self.shown[start:]!r}"
            if select.select([self.fd], [], [], 0.5)[0]:
                try:
                    self.shown += os.read(self.fd, 4096).decode().replace("\r", "")
                except OSError:  # the other side closed
                    pass
        self._mark = start + found.end()
        return found

    def type(self, text: str) -> None:
        os.write(self.fd, (text + "\n").encode())

    def finish(self) -> tuple[int, str]:
        code = self.process.wait(STOP)
        out = self.process.stdout.read().decode()
        while select.select([self.fd], [], [], 0.2)[0]:
            try:
                self.shown += os.read(self.fd, 4096).decode().replace("\r", "")
            except OSError:
                break
        return code, out

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        os.close(self.fd)


@pytest.fixture
def terminal():
    opened: list[Terminal] = []
    yield lambda *argv: opened.append(Terminal(*argv)) or opened[-1]
    for one in opened:
        one.close()


def test_a_form_is_filled_on_the_terminal_by_typing_what_the_prompt_says(desk, terminal):
    term = terminal("--config", desk, "call", "mcp__desk__file_ticket", '{"summary": "printer"}')
    word = term.until(r"type (\w+) to fill it in[^:]*: ").group(1)
    assert "team (string, required)" in term.shown and 'priority (low|normal|high, default "normal")' in term.shown, term.shown
    term.type(word)
    term.until(r"team \(string, required\): ")
    term.type("web")
    term.until(r"priority \(low\|normal\|high, default \"normal\"\) \[Enter keeps the default\]: ")
    term.type("urgent")  # not a choice: asked again, saying which
    term.until(r"priority: expected one of low, normal, high: ")
    term.type("high")
    term.until(r"notify \(boolean, default true\) \[Enter keeps the default\]: ")
    term.type("no")
    code, out = term.finish()
    assert (code, out) == (0, "ticket T-1 filed for team web, priority high, notify false\n"), (code, out, term.shown)


def test_a_form_declined_on_the_terminal_says_why(desk, terminal):
    term = terminal("--config", desk, "call", "mcp__desk__file_ticket", '{"summary": "printer"}')
    term.type(term.until(r"type (\w+) to fill it in[^:]*: ").group(1))
    for _ in range(3):  # a required field left empty: asked again, then the form is declined
        term.until(r"team[^:]*: ")
        term.type("")
    code, out = term.finish()
    assert (code, out) == (0, "not filed: the user chose decline\n"), (code, out)
    assert "form from desk declined: no value for required field 'team'" in term.shown, term.shown


@pytest.mark.parametrize("answer", ['{"form": {"team": "ops"}}', '{"team": "ops"}'])
def test_answer_takes_a_form_either_way(desk, answer):
    done = cli("--config", desk, "call", "mcp__desk__file_ticket", '{"summary": "s"}', "--answer", answer)
    assert (done.returncode, done.stdout) == (0, "ticket T-1 filed for team ops, priority normal, notify true\n"), done


def test_a_form_declined_with_answer_or_with_nobody_to_ask_says_why(desk):
    done = cli("--config", desk, "call", "mcp__desk__file_ticket", '{"summary": "s"}', "--answer", '{"priority": "high"}')
    assert done.stdout == "not filed: the user chose decline\n" and "form from desk declined: missing required team" in done.stderr, done
    nobody = cli("--config", desk, "call", "mcp__desk__file_ticket", '{"summary": "s"}')
    assert "form from desk declined: nobody to answer it (give it with --answer" in nobody.stderr, nobody


def test_a_sample_alone_is_its_own_consent_and_help_says_both_form_syntaxes(desk):
    done = cli("--config", desk, "call", "mcp__desk__suggest_title", '{"text": "t"}', "--answer", '{"sample": "Printer down"}')
    assert (done.returncode, done.stdout) == (0, "suggested title: Printer down\n"), done
    refused = cli("--config", desk, "call", "mcp__desk__suggest_title", '{"text": "t"}', "--answer", "no", "--answer", '{"sample": "x"}')
    assert refused.returncode == 1 and "refused the sampling request" in refused.stderr, refused
    shown = " ".join(cli("call", "--help").stdout.split())
    assert """'{"team": "web"}' or '{"form": {"team": "web"}}'""" in shown and "also the consent to sample" in shown, shown
