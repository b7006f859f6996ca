"""``convert``: every client's config file into every other format and back, through the CLI, reads as the same servers,
or each difference is a ``lost:`` line naming its server and field; nothing is started.

The files converted are the config tests' own: one per client in ``tests/configs/`` (remote servers, headers,
variables, inputs, env files, timeouts, tool filters, servers turned off), and the third-party files CI runs
(``.ci/third_party/formats/``, ``.ci/third_party/*.mcp.json``, ``tests/app/cline_mcp_settings.json``). Each is
converted as a user would, ``mcp-course convert --from FILE --to FORMAT --output FILE``, into a file named as the
target client names it (so reading it back finds its format by its name), then back into the source's format.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import re
from pathlib import Path

import pytest

from harness import app
from harness.config import convert

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "tests" / "configs"
NAMES = {"claude-code": ".mcp.json", "claude-desktop": "claude_desktop_config.json", "cline": "cline_mcp_settings.json",
         "vscode": ".vscode/mcp.json", "cursor": ".cursor/mcp.json", "windsurf": "mcp_config.json",
         "gemini": ".gemini/settings.json", "zed": ".zed/settings.json", "codex": ".codex/config.toml",
         "continue": ".continue/config.yaml", "goose": "goose/config.yaml"}
SOURCES = [(fmt, CONFIGS / fmt / name) for fmt, name in NAMES.items()] + [
    (fmt, ROOT / ".ci" / "third_party" / "formats" / fmt / name) for fmt, name in NAMES.items()
    if (ROOT / ".ci" / "third_party" / "formats" / fmt / name).exists()] + [
    ("claude-code", ROOT / ".ci" / "third_party" / "memory.mcp.json"), ("claude-code", ROOT / ".ci" / "third_party" / "everything-http.mcp.json"),
    ("cline", ROOT / "tests" / "app" / "cline_mcp_settings.json")]
# The field of convert.Server each loss line's "what" is about.
FIELDS = {"transport": "transport", "command": "command", "args": "args", "env": "env", "cwd": "cwd", "url": "url",
          "headers": "headers", "disabled": "disabled", "timeouts": "timeouts", "include": "include", "exclude": "exclude",
          "envFile": "env_file"}


def cli(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with contextlib.redirect_stderr(err):  # argparse's usage errors go to sys.stderr
            code = app.main(list(argv), out, err)
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code if isinstance(stop.code, int) else 2
    finally:
        os.chdir(before)
    return code, out.getvalue(), err.getvalue()


def losses(err: str) -> list[tuple[str, str]]:
    """Each ``lost:`` line as (server, field); a line that names no server and field fails the test."""
    found = []
    for line in err.splitlines():
        assert line.startswith("lost: "), f"expected only lost: lines on stderr, got {line!r}"
        named = re.search(r"server '([^']+)': ([^:]+?)(?::| \(|$)", line)
        assert named, f"expected a lost: line to name a server and a field, got {line!r}"
        found.append((named.group(1), named.group(2).strip()))
    return found


def field_of(what: str) -> str:
    """A loss line's "what" (``env.TOKEN``, ``timeouts.call``, ``${input:...}``) as the Server field it is about."""
    if what.startswith("${input"):  # the line says ${input:...}, cut at its colon
        return "inputs"
    return FIELDS.get(what.split(".")[0], what)


def converted(source: Path, target: str, folder: Path) -> tuple[Path, list[tuple[str, str]], int]:
    path = folder / NAMES[target]
    path.parent.mkdir(parents=True, exist_ok=True)
    code, out, err = cli("convert", "--from", str(source), "--to", target, "--output", str(path))
    lost = losses("\n".join(line for line in err.splitlines() if not line.endswith(f"written as {target}")))
    assert code == (1 if lost else 0), f"expected exit {1 if lost else 0} for {source} -> {target}, got {code}: {err}"
    assert out == "", f"with --output nothing goes to stdout, got {out!r}"
    return path, lost, code


def table(servers: list[convert.Server]) -> dict[str, dict[str, object]]:
    return {s.name: {k: v for k, v in dataclasses.asdict(s).items() if k != "name"} for s in servers}


@pytest.mark.parametrize("source_format, source", SOURCES, ids=[f"{f}:{p.relative_to(ROOT)}" for f, p in SOURCES])
def test_each_config_to_every_other_format_and_back_reads_as_the_same_servers_or_names_what_was_lost(source_format, source, tmp_path):
    first, inputs, unread = convert.read(source)
    assert first, f"expected {source} to have servers"
    before = table(first)
    for target in NAMES:
        if target == source_format:
            continue
        there, lost_there, _ = converted(source, target, tmp_path / target)
        back, lost_back, _ = converted(there, source_format, tmp_path / target / "back")
        named = set(lost_there + lost_back) | {(s, "*") for s, _ in losses("\n".join(f"lost: {u}" for u in unread))}
        again, inputs_again, _ = convert.read(back)
        after = table(again)
        for name, fields in before.items():
            if name not in after:
                assert any(s == name for s, _ in named), f"{source} -> {target} -> back: server '{name}' is gone, and no lost: line names it"
                continue
            for key, value in fields.items():
                if after[name][key] != value:
                    assert (name, key) in {(s, field_of(w)) for s, w in named}, (
                        f"{source} -> {target} -> back: server '{name}' field '{key}' was {value!r}, is {after[name][key]!r}, "
                        f"and no lost: line names it (lines: {sorted(named)})")
        assert set(after) <= set(before), f"{source} -> {target} -> back: servers appeared: {set(after) - set(before)}"
        if inputs != inputs_again:
            assert any(field_of(w) == "inputs" for _, w in named), f"{source} -> {target} -> back: VS Code's inputs changed unnamed"


def test_a_conversion_that_loses_nothing_exits_0_and_prints_the_file(tmp_path):
    source = tmp_path / ".mcp.json"
    source.write_text('{"mcpServers": {"docs": {"command": "python", "args": ["-m", "docs"], "env": {"T": "${T}"}}}}')
    code, out, err = cli("convert", "--from", str(source), "--to", "cline")
    assert (code, err) == (0, ""), f"expected exit 0 and no lost: line, got {code}: {err}"
    assert '"T": "${env:T}"' in out, f"expected Cline's ${{env:VAR}} on stdout, got {out}"


def test_what_the_target_cannot_express_is_named_one_line_each(tmp_path):
    code, out, err = cli("convert", "--from", str(CONFIGS / "vscode" / ".vscode" / "mcp.json"), "--to", "windsurf")
    assert code == 1, f"expected exit 1 (something lost), got {code}: {err}"
    lines = err.splitlines()
    assert "lost: server 'search': ${input:...}: a VS Code input; windsurf asks for none, so it is written as it is" in lines, lines
    assert any(line.startswith("lost: server 'search': envFile: windsurf has no such setting") for line in lines), lines
    assert "from-the-file" not in out + err, "an env file's values are never copied into the converted file"
    code, out, err = cli("convert", "--from", str(CONFIGS / "claude-code" / ".mcp.json"), "--to", "claude-desktop")
    assert code == 1 and "lost: server 'api': transport: claude-desktop starts local servers only" in err, err
    assert '"api"' not in out and "Bearer" not in out, f"a server the target cannot hold is left out whole, got {out}"


def test_output_is_never_written_over_an_existing_file_without_force(tmp_path):
    source, target = CONFIGS / "claude-desktop" / "claude_desktop_config.json", tmp_path / "cline_mcp_settings.json"
    target.write_text("kept\n")
    code, out, err = cli("convert", "--from", str(source), "--to", "cline", "--output", str(target))
    assert code == 2 and "the file exists (give --force to replace it)" in err, err
    assert target.read_text() == "kept\n", "the existing file is untouched"
    code, out, err = cli("convert", "--from", str(source), "--to", "cline", "--output", str(target), "--force")
    assert code == 0, err
    assert '"timeout": 15' in target.read_text(), "with --force the file is replaced"
    assert [p.name for p in tmp_path.iterdir()] == ["cline_mcp_settings.json"], "no temporary file is left beside it"


def test_a_source_that_cannot_be_read_is_an_error_naming_it(tmp_path):
    broken = tmp_path / ".mcp.json"
    broken.write_text('{"mcpServers": {"docs": ')
    code, out, err = cli("convert", "--from", str(broken), "--to", "zed")
    assert (code, out) == (2, "") and err.startswith(f"error: {broken}: "), err
    code, out, err = cli("convert", "--from", str(tmp_path / "none.json"), "--to", "zed")
    assert code == 2 and "none.json: no such file" in err, err
    code, out, err = cli("convert", "--from", str(broken), "--to", "notepad")
    assert code == 2 and "invalid choice: 'notepad'" in err, err
