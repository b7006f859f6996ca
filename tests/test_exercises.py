"""Every exercise solution passes its exercise's own check (exercises/runner.py says how).

Each solution runs in this process, on a temporary copy of its lesson (and of harness/
and mock_servers/ when it edits them); the lesson's own files are never changed. The ids
of solutions that start servers end in ``slow`` and carry the ``slow`` marker:
``pytest -m "not slow"`` leaves them out, as it does the appendix server's CLI run (its server is
a child process; the leak check applies).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from cases import ROOT
from leaks import no_process_left  # noqa: F401  (the fixture)

sys.path.insert(0, str(ROOT / "exercises"))
import runner  # noqa: E402  (exercises/ is not a package; its runner is shared with the site)

SOLUTIONS = runner.solutions()
EXERCISE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def _numbers(lesson: str) -> list[int]:
    """The exercise numbers of a lesson's README (its '## Exercises' section)."""
    readme = (ROOT / "lessons" / lesson / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Exercises\s*$(.*?)(?=^## |\Z)", readme, re.MULTILINE | re.DOTALL)
    return [int(n) for n in EXERCISE.findall(section.group(1))] if section else []


@pytest.mark.parametrize("solution", [pytest.param(s, marks=pytest.mark.slow) if s.slow else s for s in SOLUTIONS],
                         ids=lambda s: s.id + ("-slow" if s.slow else ""))
def test_solution_passes_its_check(solution):
    runner.run_solution(solution)


def test_every_solution_answers_an_exercise_of_its_lesson():
    for solution in SOLUTIONS:
        assert solution.number in _numbers(solution.lesson), (
            f"{solution.folder.relative_to(ROOT)}: lessons/{solution.lesson}/README.md has no exercise {solution.number}")


@pytest.mark.parametrize("lesson", [f"s{n}" for n in range(19, 34)])
def test_every_exercise_has_a_solution(lesson):
    numbers = _numbers(lesson)
    assert 2 <= len(numbers) <= 3, f"lessons/{lesson}/README.md: expected 2 or 3 exercises, found {numbers}"
    solved = {s.number for s in SOLUTIONS if s.lesson == lesson}
    assert set(numbers) <= solved, f"{lesson}: exercises without a solution in exercises/{lesson}/: {sorted(set(numbers) - solved)}"


def test_solutions_leave_the_real_modules_in_place():
    import harness.naming

    before = harness.naming
    edits = next(s for s in SOLUTIONS if any(p.startswith(runner.PACKAGES) for p in s.edits))
    with runner.patched(edits):
        import harness.naming as inside
        assert inside is not before and str(inside.__file__).startswith(tempfile_root()), inside.__file__
    import harness.naming as after
    assert after is before, "leaving patched() must restore the modules that were imported before"


def tempfile_root() -> str:
    import tempfile

    return tempfile.gettempdir()


@pytest.mark.usefixtures("no_process_left")  # the glossary server is a child process of each command: slow, and none may be left
def test_appendix_server_through_the_cli(monkeypatch, tmp_path):
    """The appendix's glossary server, through the user CLI as the page says (in process; --home and
    --managed point at an empty folder, so this machine's own config is not read)."""
    import io
    import json

    from harness import app

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHON", sys.executable)

    def cli(*args: str) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        code = app.main(["--config", "exercises/appendix/own_server/mcp.json", "--home", str(tmp_path),
                         "--managed", str(tmp_path), *args], out, err)
        return code, out.getvalue() + err.getvalue()

    code, text = cli("tools", "--json")
    assert code == 0, text
    names = sorted(t["name"] for t in json.loads(text))
    assert names == ["mcp__glossary__add_term", "mcp__glossary__define"], names
    code, text = cli("call", "mcp__glossary__define", '{"term": "hub"}')
    assert code == 0 and text.startswith("hub: The one owner of the servers"), text
    code, text = cli("call", "mcp__glossary__define", '{"term": "loop"}')
    assert code == 1 and "no entry for 'loop'; known terms: hub, pool, scenario" in text, text


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "exercises/runner.py", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"})


def test_mine_checks_a_learners_copy_and_says_what_differs(tmp_path):
    """runner.py sNN/N --mine PATH: the exercise's check on the learner's file, not the solution's change."""
    solution = next(s for s in SOLUTIONS if s.key == "s31/1")
    right, wrong = tmp_path / "right" / "settings.json", tmp_path / "wrong" / "settings.json"
    for path, text in ((right, solution.patched_text("lessons/s31/settings.json")[1]),
                       (wrong, (ROOT / "lessons/s31/settings.json").read_text(encoding="utf-8"))):
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
    passed = _cli("s31/1", "--mine", str(right))
    assert passed.returncode == 0 and passed.stdout.startswith("ok    s31/1: your answer passes"), passed.stdout + passed.stderr
    failed = _cli("s31/1", "--mine", str(wrong))
    assert failed.returncode == 1 and failed.stdout.startswith("FAIL  s31/1: the check says:"), failed.stdout + failed.stderr
    assert "where yours differs from the solution's:" in failed.stdout, failed.stdout
    assert '-    "ask": [],' in failed.stdout and '+    "ask": ["mcp__notes__tidy"],' in failed.stdout, failed.stdout
    assert (ROOT / "lessons/s31/settings.json").read_text(encoding="utf-8") == wrong.read_text(encoding="utf-8"), "the lesson's file is untouched"


def test_mine_takes_a_scenario_by_any_name_when_it_is_the_only_file(tmp_path):
    solution = next(s for s in SOLUTIONS if s.key == "s20/1")
    mine = tmp_path / "my_answer.yaml"
    mine.write_text((solution.folder / "scenario.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    passed, report = runner.check_mine(solution, [mine])
    assert passed, report
    mine.write_text((ROOT / "lessons/s20/scenario.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    passed, report = runner.check_mine(solution, [mine])
    assert not passed and "--- solution: scenario.yaml" in report, report


def test_mine_refuses_what_it_cannot_check_in_one_line():
    words_only = next(s for s in SOLUTIONS if not s.edits and not s.files)
    done = _cli(words_only.key, "--mine", "README.md")
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {words_only.key}: its answer is a run"), done.stderr
    done = _cli("s31", "--mine", "README.md")
    assert done.returncode == 2 and "--mine goes with one exercise" in done.stderr, done.stderr
