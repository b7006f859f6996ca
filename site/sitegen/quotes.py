"""Output a lesson README quotes, checked against the pinned runs, so a stale quote fails.

A README quotes what its lesson prints in two ways, and both are checked against the
lesson's pinned files (tests/snapshots/sNN/: every ``.transcript``, and every ``.frames``
as ``--wire`` prints it):

- a ```` ```text ```` block (indented too, inside a list): its lines must be consecutive
  lines of one pinned file. A line that is just ``...`` stands for lines left out. An HTML
  comment ``<!-- from: s22/cached.transcript -->`` on the line before the block names the
  file (another lesson's too); without one, the lesson's files are tried, default first;
- an inline code span that reads as a transcript line (it starts with ``user>``,
  ``assistant>``, ``system|``, ``tools (``, ``pool:``, ``note:``, ``warning:``,
  ``error:``, ``state:``, ``->``, ``<-``, ``<!``, ``Connected to``...) or names a file the
  run writes (``003-media-report.txt``): it must be part of one line of those files
  (``...`` inside it stands for text left out). One that quotes another lesson's run
  names that lesson on its line or the line before (``s22's `note: the model sees:` ``).

``check(repo, lesson)`` lists what does not match; tests/test_readmes.py fails on it, and
the site build (``captioned``) fails on it too and gives each block a caption naming the
file and lines it came from.

Not handled: output quoted in prose without backticks, and code spans inside tables
that split a line with ``|`` (write them without the pipe).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sitegen import words

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})text[ \t]*\n(?P<body>.*?)^(?P=indent)(?P=ticks)[ \t]*$", re.M | re.S)
FROM = re.compile(r"<!--\s*from:\s*(?P<file>s\d\d/[\w.]+)\s*-->\s*\n\s*\Z")
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
OUTPUT_SPAN = re.compile(r"^(user>|assistant>|system\||tools \(\d|pool: [+-]|note: |warning: |error: |state: |http: |auth: "
                         r"|log: |-> |<- |<! |\?\? |Connected to |Discovered \d)|\b\d{3}-[\w-]+\.\w+$")
GAP = "..."


@dataclass(frozen=True)
class Quote:
    lesson: str
    line: int  # the README line the quote starts on
    text: str
    named: str | None  # "s22/cached.transcript", if the README said which file
    block: bool
    others: tuple[str, ...] = ()  # for a span: the lessons named on its line or the line before


@dataclass(frozen=True)
class Found:
    file: str  # "s22/cached.transcript"
    first: int
    last: int


def pinned(repo: Path, lesson: str) -> dict[str, list[str]]:
    """The lesson's pinned files as lines, default first; frames as --wire prints them."""
    folder = repo / "tests" / "snapshots" / lesson
    files = sorted((p for p in folder.glob("*.*") if p.suffix in {".transcript", ".frames"}),
                   key=lambda p: (p.stem != "default", p.stem, p.suffix != ".transcript"))
    return {f"{lesson}/{p.name}": _lines(p) for p in files}


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix != ".frames":
        return lines
    import json

    from harness.transcript import render  # the one rendering of a frame, as --wire prints it

    return [render(json.loads(line)) for line in lines if line.strip()]


def quotes(readme: str, lesson: str) -> list[Quote]:
    found = []
    for match in FENCE.finditer(readme):
        indent = len(match["indent"])
        body = "\n".join(line[indent:] for line in match["body"].rstrip("\n").split("\n"))
        named = FROM.search(readme[:match.start()])
        found.append(Quote(lesson, readme.count("\n", 0, match.start()) + 1, body, named["file"] if named else None, True))
    fenced = [(m.start(), m.end()) for m in re.finditer(r"^[ \t]*(`{3,}).*?^[ \t]*\1[ \t]*$", readme, re.M | re.S)]
    for match in SPAN.finditer(readme):
        if any(a <= match.start() < b for a, b in fenced):
            continue
        text = match.group(1).strip()
        if OUTPUT_SPAN.search(text):
            line = readme.count("\n", 0, match.start()) + 1
            near = "\n".join(readme.split("\n")[max(0, line - 2):line])
            others = tuple(sorted(set(re.findall(r"\b(s\d\d)'s\b", near)) - {lesson}))
            found.append(Quote(lesson, line, text, None, False, others))
    return found


def locate(quote: Quote, files: dict[str, list[str]]) -> Found | None:
    """Where the quote is in the pinned files, or None."""
    if not quote.block:
        parts = [part.strip() for part in quote.text.split(GAP) if part.strip()]
        for name, lines in files.items():
            for i, line in enumerate(lines):
                if re.search(".*?".join(map(re.escape, parts)), line):
                    return Found(name, i + 1, i + 1)
        return None
    want = [line.rstrip() for line in quote.text.split("\n")]
    for name, lines in files.items():
        lines = [line.rstrip() for line in lines]
        for start in range(len(lines)):
            end = _match(want, lines, start)
            if end is not None:
                return Found(name, start + 1, end)
    return None


def _match(want: list[str], lines: list[str], at: int) -> int | None:
    """The last line (1-based) if ``want`` matches ``lines`` from index ``at``; ``...`` skips one or more."""
    if not want:
        return at
    head, rest = want[0], want[1:]
    if head == GAP:
        for skip in range(at + 1, len(lines) + 1):
            end = _match(rest, lines, skip)
            if end is not None:
                return end
        return None
    if at < len(lines) and lines[at] == head:
        return _match(rest, lines, at + 1) if rest else at + 1
    return None


def files_for(repo: Path, quote: Quote) -> dict[str, list[str]]:
    if quote.named:
        lesson, _, name = quote.named.partition("/")
        return {k: v for k, v in pinned(repo, lesson).items() if k == quote.named}
    files = pinned(repo, quote.lesson)
    for other in quote.others:
        files.update(pinned(repo, other))
    return files


def check(repo: Path, lesson: str) -> list[str]:
    """Every quote of lessons/<lesson>/README.md that is not in the pinned run, as one line each."""
    readme = repo / "lessons" / lesson / "README.md"
    if not readme.is_file():
        return []
    problems = []
    for quote in quotes(readme.read_text(encoding="utf-8"), lesson):
        files = files_for(repo, quote)
        if quote.named and not files:
            problems.append(f"lessons/{lesson}/README.md:{quote.line}: no pinned file tests/snapshots/{quote.named}")
        elif locate(quote, files) is None:
            where = quote.named or f"tests/snapshots/{lesson}/"
            first = quote.text.split("\n")[0]
            kind = "block" if quote.block else "quote"
            problems.append(f"lessons/{lesson}/README.md:{quote.line}: {kind} not in the pinned run ({where}): {first!r}")
    return problems


def captioned(readme: str, lesson: str, repo: Path, lang: str = "en") -> str:
    """``readme`` with a caption over each text block naming the pinned file and lines it is from (in ``lang``)."""
    def one(match: re.Match) -> str:
        named = FROM.search(readme[:match.start()])
        indent = len(match["indent"])
        body = "\n".join(line[indent:] for line in match["body"].rstrip("\n").split("\n"))
        quote = Quote(lesson, 0, body, named["file"] if named else None, True)
        found = locate(quote, files_for(repo, quote))
        if found is None:
            return match.group(0)
        said = words.source(lang, f"`tests/snapshots/{found.file}`", found.first, found.last)
        return f'{match["indent"]}{said}\n{match["indent"]}{{: .mcp-source }}\n\n' + match.group(0)

    return FENCE.sub(one, readme)
