"""``--wire``, ``--verbose``, ``--quiet`` on every command, and colour on a terminal only (never with NO_COLOR).

The colour tests run ``python -m harness`` on a pseudo-terminal (python's ``pty``), as a user's shell does; the
others run the CLI in this process, where stderr is not a terminal.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN
from test_app import cli

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SECRET = "tok-wire-0123456789abcdef"


def _config(tmp_path: Path, servers: dict) -> str:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def on_a_terminal(*argv: str, env: dict[str, str]) -> str:
    """``python -m harness ARGV`` with stdout and stderr on a pseudo-terminal; all it printed."""
    main, child = pty.openpty()
    process = subprocess.Popen([PY, "-m", "harness", *argv], stdin=subprocess.DEVNULL, stdout=child, stderr=child, cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    os.close(child)
    seen, deadline = b"", time.monotonic() + RUN
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the child closed its end: everything was read
                    break
                if not chunk:
                    break
                seen += chunk
            elif process.poll() is not None:
                break
        assert process.wait(timeout=RUN) in (0, 1, 2), seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main)
    return seen.decode("utf-8", errors="replace")


@pytest.mark.usefixtures("no_process_left")
def test_a_terminal_gets_colour_and_no_color_turns_it_off(tmp_path):
    config = _config(tmp_path, {"gone": {"command": str(tmp_path / "no-such-program")}, "odd": {"command": "x", "comand": "y"}})
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    argv = ("--managed", str(tmp_path / "managed"), "--home", str(tmp_path), "--config", config, "--verbose", "tools")
    shown = on_a_terminal(*argv, env=env)
    assert "\x1b[31merror: " in shown, f"expected a red error line on a terminal, got {shown!r}"
    assert "\x1b[33mwarning: " in shown, f"expected a yellow warning line, got {shown!r}"
    assert "-> \x1b[31mfailed\x1b[0m" in shown, f"expected the failed state in red, got {shown!r}"
    plain = on_a_terminal(*argv, env={**env, "NO_COLOR": ""})
    assert "\x1b[" not in plain, f"expected no colour with NO_COLOR set (even empty), got {plain!r}"
    assert "error: " in plain and "-> failed" in plain, plain


def test_not_a_terminal_gets_no_colour(tmp_path):
    config = _config(tmp_path, {"odd": {"command": "x", "comand": "y"}})
    done = cli("--config", config, "doctor", "--offline")
    assert "warning: " in done.stderr and "\x1b[" not in done.stdout + done.stderr, done


def test_quiet_leaves_only_errors_on_stderr(tmp_path):
    config = _config(tmp_path, {"odd": {"command": str(tmp_path / "no-such-program"), "comand": "y"}})
    loud = cli("--config", config, "tools")
    assert "warning: " in loud.stderr and "error: " in loud.stderr, loud
    quiet = cli("--config", config, "tools", "--quiet")
    lines = quiet.stderr.splitlines()
    assert lines and all(line.startswith("error: ") or line.startswith(" ") for line in lines), \
        f"expected only error lines with --quiet, got {lines}"
    assert quiet.returncode == loud.returncode, "--quiet changes what is said, not the exit code"
    both = cli("--config", config, "tools", "--quiet", "--verbose")
    assert both.returncode == 2 and "--quiet and --verbose: give one of them" in both.stderr, both


def test_verbose_says_each_state_change_on_stderr_without_a_terminal(tmp_path):
    config = _config(tmp_path, {"gone": {"command": str(tmp_path / "no-such-program")}})
    plain = cli("--config", config, "servers")
    assert "state: " not in plain.stderr, plain
    done = cli("--verbose", "--config", config, "servers")
    assert "state: gone: new -> pending: added\n" in done.stderr, done.stderr
    assert "state: gone: pending -> failed: " in done.stderr, done.stderr
    assert "state: " not in done.stdout, "stdout stays the command's output"


@pytest.mark.usefixtures("no_process_left")
def test_wire_prints_every_frame_on_stderr_with_the_server_s_secrets_redacted(tmp_path):
    config = _config(tmp_path, {"binary": {"command": PY, "args": [str(ROOT / "tests" / "servers" / "binary.py")],
                                           "env": {"API_TOKEN": SECRET}}})
    done = cli("--config", config, "--wire", "call", "binary.typed", f"name={SECRET}", "--json")
    assert done.returncode == 0, done
    frames = [line for line in done.stderr.splitlines() if line.startswith(("    >> binary ", "    << binary "))]
    methods = [json.loads(line[len("    >> binary "):]).get("method") for line in frames]
    assert "initialize" in methods and "tools/list" in methods and "tools/call" in methods, methods
    assert SECRET not in done.stdout + done.stderr, "a secret the server was started with never shows, on the wire or off it"
    assert '"name": "${API_TOKEN}"' in done.stderr, f"expected the secret shown by its name in the frame, got {done.stderr}"
    assert json.loads(done.stdout)["is_error"] is False, "stdout is the command's own output, frames are not in it"


def test_levels_colours_a_line_by_how_it_starts_and_quiet_never_holds_a_question_back():
    from harness.commands.streams import Levels

    shown = io.StringIO()
    painted = Levels(shown, colour=True)
    for text in ("docs: connected\n", "hint: failed to start? see above\n", "error: x", "\n", "lost: server 'a': cwd: gone\n"):
        painted.write(text)
    assert shown.getvalue() == ("docs: \x1b[32mconnected\x1b[0m\nhint: failed to start? see above\n\x1b[31merror: x\x1b[0m\n"
                                "\x1b[33mlost: server 'a': cwd: gone\x1b[0m\n"), repr(shown.getvalue())
    kept = io.StringIO()
    quiet = Levels(kept, quiet=True)
    for text in ("warning: a", "\n", "allow docs.x? [y]es, [n]o: ", "y\n", "note: n\nerror: c\n"):
        quiet.write(text)
    assert kept.getvalue() == "allow docs.x? [y]es, [n]o: y\nerror: c\n", repr(kept.getvalue())
