"""Every lesson run in the registry is pinned by a snapshot, byte for byte.

The runs, ``--help`` and the missing key are run in this process (``main(argv, out)``).
Only the checks that a lesson imports no SDK before it must start a child process: they need
an interpreter that has imported nothing yet. One per lesson runs all of that lesson's cases.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest
from cases import APP_SNAPSHOTS, CASES, LESSONS, NAME, ROOT, SNAPSHOTS
from conftest import call_main, load_lesson, run_lesson
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN


SERVED = "s23"  # from s23 on, a lesson's servers are child processes: the leak check applies, and the case is slow


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.lesson >= SERVED else c for c in CASES],
                         ids=lambda c: c.id)
def test_snapshot(case, snapshot, tmp_path, request):
    """The run equals its pinned bytes, so every run equals every other (same run, same bytes).

    With --snapshot-update the case runs twice first and must give the same bytes both
    times, so a nondeterministic run is never pinned.
    """
    if case.lesson >= SERVED:
        request.getfixturevalue("no_process_left")
    frames = tmp_path / "frames.jsonl"
    argv = (*case.argv, "--frames", str(frames)) if "frames" in case.kinds else case.argv
    code, text = run_lesson(case.lesson, *argv)
    if request.config.getoption("snapshot_update"):
        again = run_lesson(case.lesson, *argv)
        assert again == (code, text), f"{case.id}: two runs differ; not pinning a nondeterministic transcript"
    assert code == case.exit_code, f"{case.id}: expected exit code {case.exit_code}, got {code}\n{text}"
    snapshot.snapshot_dir = SNAPSHOTS / case.lesson
    snapshot.assert_match(text, f"{case.name}.transcript")
    if "frames" in case.kinds:
        snapshot.assert_match(frames.read_text(encoding="utf-8"), f"{case.name}.frames")


def test_registry_is_well_formed():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), f"duplicate case ids: {ids}"
    for case in CASES:
        assert NAME.match(case.name), f"case name {case.name!r} must match {NAME.pattern}"
        assert case.lesson in LESSONS, f"case {case.id} names a lesson that does not exist"
    for path in APP_SNAPSHOTS:
        assert NAME.match(path.stem) and path.parent.parent == SNAPSHOTS, f"snapshot {path} must be SNAPSHOTS/<group>/<name>.<kind>"
    assert {c.lesson for c in CASES if c.name == "default"} == set(LESSONS), "every lesson needs a default case"


def test_no_orphaned_snapshots():
    owned = {path for case in CASES for path in case.files()} | set(APP_SNAPSHOTS)
    present = {p for p in SNAPSHOTS.rglob("*") if p.is_file()}
    assert present - owned == set(), f"snapshot files no case owns: {sorted(str(p.relative_to(ROOT)) for p in present - owned)}"
    assert owned - present == set(), f"registered snapshots missing: {sorted(str(p.relative_to(ROOT)) for p in owned - present)}"


def _python(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=RUN)


@pytest.mark.parametrize("lesson", LESSONS)
def test_help_works(lesson, capfd):
    code, stdout = call_main(load_lesson(lesson).main, ["--help"])
    assert code == 0, capfd.readouterr().err
    assert "--live" in stdout and lesson in stdout


@pytest.mark.parametrize("lesson", LESSONS)
def test_live_without_key_is_one_line_exit_2(lesson, capfd, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    capfd.readouterr()
    code, stdout = call_main(load_lesson(lesson).main, ["--live"])
    stderr = capfd.readouterr().err
    assert code == 2, f"expected exit 2, got {code}: {stderr}"
    assert stdout == ""
    assert stderr.count("\n") == 1 and "ANTHROPIC_API_KEY" in stderr, stderr
    assert "Traceback" not in stderr


OFFLINE_LESSONS = [lesson for lesson in LESSONS if lesson <= "s22"]
SDK = ("mcp", "mcp_types", "anthropic", "httpx", "httpx2", "pydantic")  # the clients; a mock server's constant may bring starlette (s26)
USAGE = [("--help",), ("--max-turns", "0"), ("--prompt", "hi")]  # help, a bad option, bad usage: answered before any SDK import
PROBE = """\
import importlib.util, io, sys
spec = importlib.util.spec_from_file_location('lesson', 'lessons/{lesson}/code.py')
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for argv in {runs!r}:
    try:
        code = module.main(list(argv), io.StringIO())
    except SystemExit as exc:
        code = exc.code
    heavy = sorted({{n.split('.')[0] for n in sys.modules}} & {sdk!r})
    print(repr((list(argv), code, heavy)), file=sys.stderr)
"""


@pytest.mark.parametrize("lesson", LESSONS)
def test_help_and_usage_errors_come_before_the_sdk_and_offline_lessons_import_none(lesson):
    """--help and a bad command line are answered before any SDK is imported (they take a tenth of the CPU);
    an offline lesson's whole run (s19-s22) imports none either.

    One fresh interpreter per lesson runs its cases in turn, each checked as soon as it
    returns: ``sys.modules`` only grows, so the first case that imports an SDK is the one
    named. The offline run comes last, after every usage case has been checked clean.
    """
    runs = [*USAGE, ()] if lesson in OFFLINE_LESSONS else USAGE
    result = _python("-c", PROBE.format(lesson=lesson, runs=runs, sdk=set(SDK)))
    seen = [line for line in result.stderr.splitlines() if line.startswith("([")]
    assert len(seen) == len(runs), f"{lesson}: expected one line per case {runs}, got {result.stderr!r}"
    for argv, line in zip(runs, seen):
        got, code, heavy = ast.literal_eval(line)
        expected = (0,) if argv == () else (0, 2)
        assert got == list(argv) and code in expected and heavy == [], \
            f"{lesson} {list(argv)}: expected exit {' or '.join(map(str, expected))} and no SDK imported, got exit {code}, {heavy}"
