"""Lesson READMEs and quizzes against the pinned runs: quoted output, section order, proofs (site/sitegen/).

A quote of what a lesson prints (a ```text block, or a code span that reads as a transcript
line) must be in that lesson's pinned files, so a README goes stale only with a failing
test; site/sitegen/quotes.py says what counts as a quote.
"""

from __future__ import annotations

import re
import sys

import pytest
from cases import ROOT

sys.path.insert(0, str(ROOT / "site"))
from sitegen import quiz, quotes, readme  # noqa: E402  (site/ is not a package)

LESSONS = sorted(p.name for p in (ROOT / "lessons").glob("s[0-9][0-9]") if (p / "README.md").is_file())


@pytest.mark.parametrize("lesson", LESSONS)
def test_quoted_output_is_in_the_pinned_run(lesson):
    problems = quotes.check(ROOT, lesson)
    assert not problems, "README quotes output the pinned run does not print:\n" + "\n".join(problems)


@pytest.mark.parametrize("lesson", LESSONS)
def test_sections_in_the_one_order(lesson):
    problem = readme.order_problem((ROOT / "lessons" / lesson / "README.md").read_text(encoding="utf-8"))
    assert problem is None, f"lessons/{lesson}/README.md: {problem}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_relative_links_name_files_that_exist(lesson):
    """A link to a lesson not written yet (s34) is plain text until its README exists."""
    folder = ROOT / "lessons" / lesson
    text = (folder / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(\s*<?([^)\s>]+)>?[^)]*\)", re.sub(r"(?s)```.*?```", "", text))
    broken = [t for t in targets if not re.match(r"^([a-z][a-z0-9+.-]*:|#)", t) and not (folder / t.split("#")[0]).exists()]
    assert not broken, f"lessons/{lesson}/README.md links to files that do not exist: {broken}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_quiz_proofs_are_in_the_pinned_transcript(lesson):
    problems = quiz.problems(ROOT, lesson)
    assert not problems, "the quiz is not valid against the pinned run:\n" + "\n".join(problems)


def test_the_quiz_check_catches_a_bad_proof(tmp_path):
    (tmp_path / "lessons" / "s19").mkdir(parents=True)
    (tmp_path / "tests" / "snapshots" / "s19").mkdir(parents=True)
    (tmp_path / "tests" / "snapshots" / "s19" / "default.transcript").write_text("user> hi\n  <- one\n", encoding="utf-8")
    q = "- question: q{n}\n  answer: a\n  proof: '{p}'\n"
    (tmp_path / "lessons" / "s19" / "quiz.yaml").write_text(
        q.format(n=1, p="  <- one") + q.format(n=2, p="  <- two") + q.format(n=3, p="user> hi") + "- question: q4\n", encoding="utf-8")
    problems = quiz.problems(tmp_path, "s19")
    assert len(problems) == 2 and "question 4" in problems[0] and "'answer': required" in problems[0], problems
    (tmp_path / "lessons" / "s19" / "quiz.yaml").write_text(q.format(n=1, p="  <- one") + q.format(n=2, p="  <- two")
                                                             + q.format(n=3, p="user> hi"), encoding="utf-8")
    assert quiz.problems(tmp_path, "s19") == ["lessons/s19/quiz.yaml: question 2: proof not in "
                                              "tests/snapshots/s19/default.transcript: '  <- two'"]


def test_the_check_catches_a_stale_quote(tmp_path):
    lesson = tmp_path / "lessons" / "s19"
    lesson.mkdir(parents=True)
    snaps = tmp_path / "tests" / "snapshots" / "s19"
    snaps.mkdir(parents=True)
    (snaps / "default.transcript").write_text("user> hi\n  -> a {}\n  <- one\n  -> b {}\n  <- two\n", encoding="utf-8")
    (lesson / "README.md").write_text(
        "ok:\n\n```text\n  -> a {}\n...\n  <- two\n```\n\nstale:\n\n```text\n  -> a {}\n  <- two\n```\n\n"
        "and `<- one` but not `<- three`.\n", encoding="utf-8")
    problems = quotes.check(tmp_path, "s19")
    assert [p.split(": ", 1)[1].split(" (")[0] for p in problems] == ["block not in the pinned run", "quote not in the pinned run"], problems
    assert ":11:" in problems[0] and "'<- three'" in problems[1], problems
