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

sys.path[:0] = [str(ROOT / "site"), str(ROOT / "exercises")]
from sitegen import blocks, i18n, quiz, quotes, readme  # noqa: E402  (site/ is not a package)

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
    """A link to a lesson not written yet (s34) is plain text until its README exists.

    The language line (line 1) links the translations; tests/test_translations.py says which are missing."""
    folder = ROOT / "lessons" / lesson
    text = (folder / "README.md").read_text(encoding="utf-8").removeprefix(i18n.LANGUAGE_LINE)
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


def test_generated_blocks_are_what_the_command_writes():
    """Quizzes, the s27-on module excerpts, the check commands, glossary links, the README's path and figures."""
    stale = blocks.stale(ROOT)
    assert not stale, (f"expected every README's generated blocks to be fresh, found stale: {', '.join(stale)}; "
                       f"run: {blocks.COMMAND}")


def test_every_lesson_readme_says_its_transcripts_are_deterministic_output():
    for lesson in LESSONS:
        text = (ROOT / "lessons" / lesson / "README.md").read_text(encoding="utf-8")
        assert f"python lessons/{lesson}/code.py --deterministic | diff - tests/snapshots/{lesson}/default.transcript" in text, (
            f"lessons/{lesson}/README.md: expected the transcripts block (how to compare a run), found none; run: {blocks.COMMAND}")


UNWRITTEN = re.compile(r"\b(s\d\d)\b[^.;:\n]{0,40}?\b(planned|not (?:yet )?written|unwritten|being written)\b", re.I)


def unwritten_claims(text: str, written: set[str]) -> list[str]:
    """Each place ``text`` calls a lesson that exists planned or not written (one line: the words)."""
    flat = " ".join(text.split())
    return [m.group(0) for m in UNWRITTEN.finditer(flat) if m.group(1) in written]


def test_no_page_calls_a_written_lesson_unwritten():
    written = {p.parent.name for p in (ROOT / "lessons").glob("s[0-9][0-9]/README.md")}
    pages = [ROOT / "README.md", ROOT / "harness" / "README.md", ROOT / "exercises" / "README.md",
             *sorted((ROOT / "lessons").glob("s[0-9][0-9]/README.md")), *sorted((ROOT / "site" / "docs").rglob("*.md"))]
    found = [f"{p.relative_to(ROOT)}: {claim!r}" for p in pages for claim in unwritten_claims(p.read_text(encoding="utf-8"), written)]
    assert not found, "expected no written lesson called planned or unwritten, found:\n" + "\n".join(found)


def test_the_unwritten_check_catches_one():
    assert unwritten_claims("the others negotiate theirs (s34, not written yet as a\nlesson)", {"s34"}) == ["s34, not written"]
    assert unwritten_claims("Lesson s34 (planned) negotiates", {"s34"}) == ["s34 (planned"]
    assert unwritten_claims("Lesson s36 (planned) negotiates", {"s34"}) == []


# A measured figure: a time, or a count of tests. Defaults and design values live in tables
# (the lessons' table, the CLI's), which this leaves alone.
FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s|us|µs|seconds?|minutes?)\b|\b\d+ tests\b")


def unrecorded_figures(text: str) -> list[str]:
    """Measured figures in ``text`` outside its generated blocks, fenced code and table rows."""
    prose = blocks.BLOCK.sub("", text)
    prose = re.sub(r"(?ms)^[ \t]*(`{3,}).*?^[ \t]*\1[ \t]*$", "", prose)
    lines = [line for line in prose.splitlines() if not line.lstrip().startswith("|")]
    return [m.group(0) + f" (in {line.strip()[:60]!r})" for line in lines for m in FIGURE.finditer(line)]


def test_the_readme_states_no_figure_the_suite_or_bench_did_not_record():
    """Figures are in the README's generated blocks, from bench/records/ (bench/suite.py --json); none elsewhere."""
    found = unrecorded_figures((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not found, ("expected every measured figure of README.md in a generated block (from bench/records/), "
                       "found outside one:\n" + "\n".join(found))


def test_the_figure_check_catches_one():
    text = ("The fast lane (522 tests in 9 s) is quick.\n\n| a | 30 s |\n\n"
            + blocks.wrap("suite", "| the whole suite | 1030 passed | 109 s |"))
    assert [f.split(" (in")[0] for f in unrecorded_figures(text)] == ["522 tests", "9 s"], unrecorded_figures(text)


@pytest.mark.parametrize("lesson", LESSONS)
def test_no_sequence_diagram_line_holds_a_semicolon(lesson):
    # Mermaid ends a statement at ';', so a message that holds one is a parse error and the diagram is not drawn:
    # the browser check finds it, minutes later; this says it at once, naming the line.
    text = (ROOT / "lessons" / lesson / "README.md").read_text(encoding="utf-8")
    found = [f"{lesson}/README.md: {line.strip()}" for block in re.findall(r"```mermaid\n(.*?)```", text, re.S)
             if "sequenceDiagram" in block for line in block.splitlines() if ";" in line and not line.strip().startswith("%%")]
    assert found == [], f"expected no ';' in a sequence diagram (mermaid ends a statement there), found {found}"
