"""Each lesson's quiz: questions about what its pinned run showed, from ``lessons/sNN/quiz.yaml``.

The file is a list of 3 to 5 questions::

    - question: Which tools could the model call on its first turn?
      answer: The three built-ins and the four MCP tools, built-ins first.
      proof: "tools (7): read_file, write_file, list_dir, mcp__docs__search, ..."
      case: default            # optional: the pinned case whose transcript proves it

``proof`` is what settles the answer: one line of the case's pinned transcript
(tests/snapshots/sNN/<case>.transcript), or several consecutive ones, written exactly
(``...`` on a line of its own stands for lines left out, as in a README quote). The page
folds each answer, with its proof and the line numbers it has in the file.
``problems(repo, lesson)`` lists what is wrong with a quiz; tests/test_readmes.py and the
site build fail on any.

Not handled: questions about the frames (ask about the transcript line that shows them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from sitegen import quotes
from sitegen.render import details, fence

MIN, MAX = 3, 5
FIELDS = {"question", "answer", "proof", "case"}


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    proof: str
    case: str = "default"


def path_of(repo: Path, lesson: str, lang: str = "en") -> Path:
    """``quiz.yaml``, or its translation ``quiz.{lang}.yaml`` (the same list, question and answer translated)."""
    return repo / "lessons" / lesson / ("quiz.yaml" if lang == "en" else f"quiz.{lang}.yaml")


# The words around each question, per language: the introduction, and where the proof is from
# (zh and ja as the translators first wrote them by hand).
WORDS = {
    "en": ("Questions about the pinned run above. Try each before you unfold it: the answer comes with the line "
           "of the run that proves it.", "The proof, from `{file}`{where}:", ", line {n}", ", lines {a}-{b}"),
    "zh": ("关于上面那次运行的问题。展开之前先自己答一答：每个答案都附有固定运行中证明它的那几行。",
           "证据，来自 `{file}`{where}：", " 第 {n} 行", " 第 {a}-{b} 行"),
    "ja": ("上の実行についての問題です。開く前に、まず自分で答えてみてください。答えには、それを裏づける固定実行の行が付いています。",
           "証拠（`{file}`{where}）：", " の {n} 行目", " の {a}-{b} 行目"),
}


def where(found: quotes.Found | None, lang: str = "en") -> str:
    """Where a proof is, in the page's language: ", lines 3-5", or "" if it was not found."""
    if found is None:
        return ""
    _, _, one, many = WORDS[lang]
    return one.format(n=found.first) if found.first == found.last else many.format(a=found.first, b=found.last)


def load(repo: Path, lesson: str, lang: str = "en") -> tuple[list[Question], list[str]]:
    """The questions, and what is wrong with the file (one line each)."""
    path = path_of(repo, lesson, lang)
    rel = path.relative_to(repo).as_posix()
    if not path.is_file():
        return [], [f"{rel}: missing (every lesson has a quiz)"]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        return [], [f"{rel}: not YAML: {str(exc).splitlines()[0]}"]
    if not isinstance(data, list) or not MIN <= len(data) <= MAX:
        return [], [f"{rel}: a list of {MIN} to {MAX} questions, not {type(data).__name__}"
                    + (f" of {len(data)}" if isinstance(data, list) else "")]
    found, problems = [], []
    for i, item in enumerate(data, 1):
        where = f"{rel}: question {i}"
        if not isinstance(item, dict):
            problems.append(f"{where}: a mapping with question, answer, proof")
            continue
        extra = set(item) - FIELDS
        missing = {"question", "answer", "proof"} - set(item)
        if extra or missing:
            problems.append(f"{where}: " + "; ".join([*(f"field {f!r}: required" for f in sorted(missing)),
                                                      *(f"field {f!r}: unknown" for f in sorted(extra))]))
            continue
        if not all(isinstance(item[f], str) and item[f].strip() for f in item):
            problems.append(f"{where}: every field is a non-empty string")
            continue
        found.append(Question(item["question"].strip(), item["answer"].strip(), item["proof"].rstrip("\n"),
                              item.get("case", "default")))
    return found, problems


def located(repo: Path, lesson: str, q: Question) -> quotes.Found | None:
    """Where the proof of ``q`` is in its pinned transcript (file and line numbers), or None."""
    quote = quotes.Quote(lesson, 0, q.proof, f"{lesson}/{q.case}.transcript", True)
    return quotes.locate(quote, quotes.files_for(repo, quote))


def problems(repo: Path, lesson: str) -> list[str]:
    questions, found = load(repo, lesson)
    rel = path_of(repo, lesson).relative_to(repo).as_posix()
    for i, q in enumerate(questions, 1):
        if not (repo / "tests" / "snapshots" / lesson / f"{q.case}.transcript").is_file():
            found.append(f"{rel}: question {i}: no pinned case {q.case!r} (tests/snapshots/{lesson}/{q.case}.transcript)")
        elif located(repo, lesson, q) is None:
            first = q.proof.split("\n")[0]
            found.append(f"{rel}: question {i}: proof not in tests/snapshots/{lesson}/{q.case}.transcript: {first!r}")
    return found


def section(repo: Path, lesson: str, lang: str = "en") -> str | None:
    """The quiz's markdown for the lesson page, or None if the lesson has no quiz file (in ``lang``: English's)."""
    questions, _ = load(repo, lesson, lang)
    if not questions and lang != "en":
        return section(repo, lesson)
    if not questions:
        return None
    intro, source, _, _ = WORDS[lang]
    parts = [intro]
    for i, q in enumerate(questions, 1):
        lead = source.format(file=f"tests/snapshots/{lesson}/{q.case}.transcript", where=where(located(repo, lesson, q), lang))
        proof = f"{lead}\n{{: .mcp-source }}\n\n" + fence(q.proof, "text")
        title = f"{i}. {q.question}".replace('"', "&quot;")
        parts.append(details("question", title, q.answer + "\n\n" + proof))
    return "\n\n".join(parts)
