"""Every lesson run in the registry is pinned by a snapshot, byte for byte.

The runs, ``--help`` and the missing key are run in this process (``main(argv, out)``).
Only the check that an offline lesson imports no SDK starts a child process: it needs an
interpreter that has imported nothing yet.
"""

from __future__ import annotations

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


@pytest.mark.parametrize("lesson", OFFLINE_LESSONS)
def test_offline_lessons_import_neither_mcp_nor_anthropic(lesson):
    probe = (
        "import importlib.util, io, sys\n"
        f"spec = importlib.util.spec_from_file_location('lesson', 'lessons/{lesson}/code.py')\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "code = module.main([], io.StringIO())\n"
        "heavy = sorted(n for n in sys.modules if n.split('.')[0] in ('mcp', 'anthropic', 'httpx', 'pydantic'))\n"
        "print(code, heavy)\n"
    )
    result = _python("-c", probe)
    assert result.stdout.strip() == "0 []", f"{lesson}: expected exit 0 and no heavy imports, got {result.stdout!r} {result.stderr}"


SDK = ("mcp", "mcp_types", "anthropic", "httpx", "httpx2", "pydantic")  # the clients; a mock server's constant may bring starlette (s26)


@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("argv", [("--help",), ("--max-turns", "0"), ("--prompt", "hi")], ids=["help", "bad_option", "usage"])
def test_help_and_usage_errors_come_before_the_sdk(lesson, argv):
    """--help and a bad command line are answered before any SDK is imported (they take a tenth of the CPU)."""
    probe = (
        "import importlib.util, io, sys\n"
        f"spec = importlib.util.spec_from_file_location('lesson', 'lessons/{lesson}/code.py')\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "try:\n"
        f"    code = module.main({list(argv)!r}, io.StringIO())\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        f"heavy = sorted({{n.split('.')[0] for n in sys.modules}} & {set(SDK)!r})\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    result = _python("-c", probe)
    assert result.stderr.strip().splitlines()[-1] in ("0 []", "2 []"), f"{lesson} {argv}: expected exit 0 or 2 and no SDK imported, got {result.stderr!r}"
