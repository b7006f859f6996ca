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
import expect  # noqa: E402  (exercises/expect.py: the sentences a check fails with)
import runner  # noqa: E402  (exercises/ is not a package; its runner is shared with the site)

SOLUTIONS = runner.solutions()
EXERCISE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def _numbers(lesson: str) -> list[int]:
    """The exercise numbers of a lesson's README (its '## Exercises' section)."""
    readme = (ROOT / "lessons" / lesson / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Exercises\s*$(.*?)(?=^## |\Z)", readme, re.MULTILINE | re.DOTALL)
    return [int(n) for n in EXERCISE.findall(section.group(1))] if section else []


SENTENCE = re.compile(r"^expected \S.*, found \S")  # the first line of every failed check (exercises/expect.py)


def wrong_answer_message(solution: runner.Solution, result) -> str:
    """What the check says to a wrong answer: the course as it is (``runner.unchanged``), or ``wrong(result)``."""
    module = runner.load_module(solution)
    try:
        if hasattr(module, "wrong"):
            module.check(module.wrong(result))
        else:
            paths = runner.unchanged(solution)
            assert paths, f"{solution.key}: nothing a learner could give --mine: its solution.py needs a wrong(result)"
            with runner.mine(solution, paths) as (yours, _):
                runner.run_solution(yours)
    except expect.Mismatch as exc:
        return runner.failure(exc)
    except Exception as exc:  # noqa: BLE001 (named in the failure below)
        raise AssertionError(f"{solution.key}: a wrong answer should fail with an expect.Mismatch (expected ..., found ...), "
                             f"found {type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{solution.key}: expected the wrong answer to fail the check, found that it passes")


def assert_teaches(key: str, message: str) -> None:
    lines = message.splitlines()
    assert 1 <= len(lines) <= runner.MAX_LINES, f"{key}: expected 1 to {runner.MAX_LINES} lines, found {len(lines)}:\n{message}"
    assert SENTENCE.match(lines[0]), f"{key}: expected a first line 'expected ..., found ...', found {lines[0]!r}"


@pytest.mark.parametrize("solution", [pytest.param(s, marks=pytest.mark.slow) if s.slow else s for s in SOLUTIONS],
                         ids=lambda s: s.id + ("-slow" if s.slow else ""))
def test_solution_passes_its_check_and_a_wrong_answer_is_told_why(solution):
    """The solution passes; a wrong answer (the course unchanged, or wrong(result)) fails with one sentence."""
    result = runner.run_solution(solution)
    assert_teaches(solution.key, wrong_answer_message(solution, result))


def test_every_exercise_has_a_hint():
    missing = [s.key for s in SOLUTIONS if len(s.hint) < 20]
    assert not missing, f"expected a HINT in every solution.py (where to look, which API), found none in {missing}"


def test_the_sentence_check_catches_a_bare_assert():
    """A check that fails with a raw value, as a bare ``assert x, x`` does, is not a sentence."""
    with pytest.raises(AssertionError, match="expected a first line"):
        assert_teaches("s31/1", runner.failure(AssertionError(({"add_note": "ask"}, "ask rule mcp__notes__tidy"))))
    with pytest.raises(AssertionError, match="expected 1 to 5 lines"):
        assert_teaches("s19/2", runner.failure(AssertionError("expected 2, found 1:\n" + "user> ...\n" * 9)) + "\nmore")


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
    assert failed.returncode == 1 and failed.stdout.startswith("FAIL  s31/1: expected tidy, once its ask rule is gone, allowed"), (
        failed.stdout + failed.stderr)
    assert "found 'ask' (ask rule mcp__notes__tidy)" in failed.stdout, failed.stdout
    assert "differs" not in failed.stdout.replace("--show-solution: where yours differs", ""), "the solution only when asked"
    assert failed.stdout.count("\n") <= 5, f"expected at most 5 lines, found:\n{failed.stdout}"
    shown = _cli("s31/1", "--mine", str(wrong), "--show-solution")
    assert "where yours differs from the solution's:" in shown.stdout, shown.stdout
    assert '-    "ask": [],' in shown.stdout and '+    "ask": ["mcp__notes__tidy"],' in shown.stdout, shown.stdout
    assert (ROOT / "lessons/s31/settings.json").read_text(encoding="utf-8") == wrong.read_text(encoding="utf-8"), "the lesson's file is untouched"


def test_hint_and_show_solution_print_what_they_name():
    hint = _cli("s22/1", "--hint")
    assert hint.returncode == 0 and hint.stdout.startswith("hint  s22/1: ") and "Tool(" in hint.stdout, hint.stdout + hint.stderr
    shown = _cli("s31/1", "--show-solution")
    assert shown.returncode == 0 and '+    "ask": [],' in shown.stdout and "server-wide rule" in shown.stdout, shown.stdout + shown.stderr
    refused = _cli("s31", "--hint")
    assert refused.returncode == 2 and "--hint goes with one exercise" in refused.stderr, refused.stderr


def test_mine_takes_a_scenario_by_any_name_when_it_is_the_only_file(tmp_path):
    solution = next(s for s in SOLUTIONS if s.key == "s20/1")
    mine = tmp_path / "my_answer.yaml"
    mine.write_text((solution.folder / "scenario.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    passed, report = runner.check_mine(solution, [mine])
    assert passed, report
    mine.write_text((ROOT / "lessons/s20/scenario.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    passed, report = runner.check_mine(solution, [mine])
    assert not passed and report.startswith("FAIL  s20/1: expected exit code 1, found 0"), report
    passed, report = runner.check_mine(solution, [mine], show_solution=True)
    assert not passed and "--- solution: scenario.yaml" in report, report


def test_mine_refuses_what_it_cannot_check_in_one_line():
    words_only = next(s for s in SOLUTIONS if not s.edits and not s.files)
    done = _cli(words_only.key, "--mine", "README.md")
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {words_only.key}: its answer is a run"), done.stderr
    done = _cli("s31", "--mine", "README.md")
    assert done.returncode == 2 and "--mine goes with one exercise" in done.stderr, done.stderr
