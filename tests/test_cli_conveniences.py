"""The CLI's conveniences: ``--version``, the program's name, options before or after the command, shell
completion, and the line of a crashed server's stderr that says why.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN
from test_app import cli, server

pytestmark = pytest.mark.usefixtures("no_process_left")

CRASH = """\
import sys
print("node:internal/modules/esm/resolve:873", file=sys.stderr)
print("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /app/dist/index.js", file=sys.stderr)
for i in range(8):
    print(f"    at frame{i} (node:internal/modules/esm/resolve:{i})", file=sys.stderr)
print("Node.js v22.1.0", file=sys.stderr)
sys.exit(1)
"""


@pytest.mark.slow
def test_a_crashed_server_s_error_line_is_kept_beside_its_stderr_tail(tmp_path):
    (tmp_path / "crash.py").write_text(CRASH, encoding="utf-8")
    config = tmp_path / "cline_mcp_settings.json"
    config.write_text(json.dumps({"mcpServers": {"crash": {"command": sys.executable, "args": [str(tmp_path / "crash.py")]}}}), encoding="utf-8")
    done = cli("--config", str(config), "tools")
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: server 'crash': exited with code 1 during initialize"), done.stderr
    assert lines[1:4] == ["  Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /app/dist/index.js", "  ...",
                          "      at frame4 (node:internal/modules/esm/resolve:4)"], done.stderr
    assert lines[-1] == "  Node.js v22.1.0", done.stderr


# --- version, program name, options in either position --------------------------------------


def test_version_is_the_package_s():
    from importlib import metadata

    done = cli("--version")
    assert (done.returncode, done.stdout) == (0, f"mcp-course {metadata.version('mcp-course')}\n"), done
    assert cli("-V").stdout == done.stdout


def test_usage_names_the_program_as_it_was_run():
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    script = Path(sys.executable).parent / "mcp-course"
    for argv, name in (([sys.executable, "-m", "harness"], "python -m harness"), ([str(script)], "mcp-course")):
        if not Path(argv[0]).exists():
            continue  # the console script exists once the package is installed (pip install -e .)
        done = subprocess.run([*argv, "--help"], capture_output=True, text=True, env=env, timeout=RUN)
        assert done.returncode == 0 and done.stdout.startswith(f"usage: {name} "), done.stdout[:200]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["before", "after"])
def test_every_command_option_goes_before_or_after_the_command(tmp_path, where):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps({"mcpServers": {"docs": server("docs")}}), encoding="utf-8")
    two.write_text(json.dumps({"mcpServers": {"deploy": server("deploy")}}), encoding="utf-8")
    options = ["--config", str(one), "--json", "--home", str(tmp_path)]
    argv = [*options, "servers", "--config", str(two)] if where == "before" else ["--config", str(one), "servers", *options[2:], "--config", str(two)]
    done = cli(*argv)
    assert done.returncode == 0, done
    assert [r["name"] for r in json.loads(done.stdout)] == ["deploy", "docs"], "expected both --config files, from both positions"


def test_json_with_a_command_that_has_none_is_bad_usage(tmp_path):
    done = cli("--json", "completion", "bash")
    assert done.returncode == 2 and done.stderr.startswith("error: --json: 'completion' has no JSON output"), done


# --- completion ------------------------------------------------------------------------------


def test_the_completion_scripts_parse_and_name_every_command():
    for shell in ("bash", "zsh", "fish"):
        done = cli("completion", shell)
        assert done.returncode == 0 and "mcp-course" in done.stdout, done
        for command in ("servers", "call", "login", "doctor", "approve", "completion"):
            assert command in done.stdout, f"expected {command} in the {shell} script"
        assert "_complete" in done.stdout
    for shell in ("bash", "zsh"):
        if shutil.which(shell) is None:
            continue  # zsh is not on every machine
        checked = subprocess.run([shell, "-n"], input=cli("completion", shell).stdout, capture_output=True, text=True, timeout=RUN)
        assert checked.returncode == 0, f"{shell} -n: {checked.stderr}"


@pytest.mark.slow
def test_bash_completes_commands_servers_and_the_tools_a_listing_left(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = tmp_path / "cline_mcp_settings.json"
    config.write_text(json.dumps({"mcpServers": {"docs": server("docs"), "deploy": server("deploy")}}), encoding="utf-8")
    complete = tmp_path / "complete.bash"
    complete.write_text(cli("completion", "bash").stdout, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    words = ["mcp-course", "--managed", str(tmp_path / "none"), "--config", str(config)]

    def offered(*more: str) -> list[str]:
        line = " ".join(shlex.quote(w) for w in [*words, *more])
        done = subprocess.run(["bash", "-c", f'source {shlex.quote(str(complete))}; COMP_WORDS=({line}); '
                               f'COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _mcp_course; printf "%s\\n" "${{COMPREPLY[@]}}"'],
                              capture_output=True, text=True, env=env, timeout=RUN)
        assert done.returncode == 0, done.stderr
        return sorted(filter(None, done.stdout.splitlines()))

    assert offered("do") == ["doctor"]
    assert offered("login", "") == ["deploy", "docs"]  # read from the config: nothing started
    assert offered("call", "") == [], "expected no tool names before any listing"
    assert cli("--config", str(config), "tools").returncode == 0
    assert offered("call", "mcp__docs__") == ["mcp__docs__get_version", "mcp__docs__search"]
    assert offered("--sign") == ["--sign-in"]


def test_the_readme_s_cli_section_has_every_command_with_an_example():
    from harness import app

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Your own servers: the CLI"):text.index("## Limits")]
    commands = next(a for a in app.parser()._actions if a.dest == "command")
    missing = [c.dest for c in commands._choices_actions if not any(row.startswith(f"| `{c.dest}` |") and f"mcp-course " in row
                                                                     for row in section.splitlines())]
    assert not missing and "| `--version` |" in section, f"expected a row with an example for each command, missing: {missing}"


@pytest.mark.slow
def test_completion_offers_only_the_tools_this_config_lets_through(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    listed = tmp_path / "cline_mcp_settings.json"
    listed.write_text(json.dumps({"mcpServers": {"docs": server("docs"), "deploy": server("deploy")}}), encoding="utf-8")
    assert cli("--config", str(listed), "tools").returncode == 0  # the cache now has every tool of both
    entry = lambda name: "".join(f"{k} = {json.dumps(v)}\n" for k, v in server(name).items())  # noqa: E731
    codex = tmp_path / "config.toml"
    codex.write_text(f"[mcp_servers.docs]\n{entry('docs')}enabled_tools = [\"search\"]\n\n"
                     f"[mcp_servers.deploy]\n{entry('deploy')}enabled = false\n", encoding="utf-8")
    offered = cli("--config", str(codex), "--format", "codex", "_complete", "tools")
    assert offered.stdout == "mcp__docs__search\n", f"expected only docs' enabled tool (deploy is disabled): {offered}"
    cline = tmp_path / "other" / "cline_mcp_settings.json"
    cline.parent.mkdir()
    cline.write_text(json.dumps({"mcpServers": {"docs": server("docs"), "deploy": {**server("deploy"), "disabled": True}}}), encoding="utf-8")
    assert cli("--config", str(cline), "_complete", "tools").stdout == "mcp__docs__get_version\nmcp__docs__search\n"
