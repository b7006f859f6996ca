"""The translations (zh, ja) beside each English page, and what keeps them true to it.

English is the source. Beside each page a learner reads is its translation, by suffix:

    lessons/sNN/README.md      -> lessons/sNN/README.zh.md, README.ja.md
    site/docs/X.md             -> site/docs/X.zh.md, X.ja.md (appendix/ too)
    README.md (the top level)  -> README.zh.md, README.ja.md: its introduction and its first
                                  section (the Quickstart and the path through the course)

A lesson README and the top-level README start with the language line (``LANGUAGE_LINE``)
and a blank line; a translation then has its stamp on line 3 (a site page, which has the
site's language switcher instead, on line 1)::

    <!-- translation of README.md, sha256:<hash of the English prose> -->

The hash is of the English *prose*: the text without the language line, without the
contents of fenced blocks and generated blocks (their fences and markers stay, so adding
one counts) and with the glossary links that ``site/readme_blocks.py`` writes reduced to
their text. Regenerated excerpts and line numbers therefore leave a translation current;
an edited English sentence makes it stale. Fenced blocks are checked another way: a
translation's must be byte-identical to the English page's, in the same order, and so
must its generated blocks' markers and, but for the quiz (from ``quiz.{lang}.yaml``),
their contents, and each ``<!-- excerpt: -->`` and ``<!-- source: -->`` line of a site page
(what the page includes from a pinned run or the code when the site is built).
Headings: the same levels in the same order, each ``{#id}`` of the English kept. Links:
each relative link resolves from the translation's folder, a page that has a translation
is linked in the translation's own language (a site page links a lesson as
``lessons/sNN.md``, which the build makes in its language), and an anchor into a page
names a heading of that page. Quizzes (``quiz.{lang}.yaml``: the same questions, proofs
byte-identical) and exercise hints (``hints.{lang}.yaml``: one per exercise folder) are
checked beside the pages.

``problems(repo)`` lists what is wrong, one line per page and problem, naming the page;
``stamped(repo, pair)`` is a translation with its hash written in. ``site/translations.py``
is the command for both.

Not handled: reference-style link definitions, anchors into pages other than markdown, and
indented (not fenced) code blocks, which are compared as prose.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

from sitegen import quiz

LANGS = ("zh", "ja")
NAMES = {"en": "English", "zh": "中文", "ja": "日本語"}
LANGUAGE_LINE = "[English](README.md) · [中文](README.zh.md) · [日本語](README.ja.md)"
STAMP = re.compile(r"^<!-- translation of (?P<source>[\w./-]+), sha256:(?P<hash>[0-9a-f]+) -->$")
BLOCK = re.compile(r"^(?P<head><!-- generated: (?P<kind>[\w-]+)\b[^>]*-->)\n(?P<body>.*?)^<!-- end of generated: (?P=kind) -->$",
                   re.S | re.M)
PER_LANGUAGE_BLOCKS = {"quiz", "path-quiz"}  # written from quiz.{lang}.yaml; the others are the English ones
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
HEADING_ID = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}\s*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
SITE_LESSON = re.compile(r"^lessons/(s\d\d)\.md$")  # a site page's link to a lesson page (site/lesson_pages.py)
INCLUDE = re.compile(r"^\s*<!-- (?:excerpt|source): ")
GLOSSARY_LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./)*site/docs/glossary\.md#[a-z0-9-]+\)")


@dataclass(frozen=True)
class Pair:
    """One English page and its translation into ``lang`` (which may not exist yet)."""

    source: Path
    lang: str
    root: bool = False  # the top-level README: only its introduction and first section are translated

    @property
    def path(self) -> Path:
        return translation_of(self.source, self.lang)

    @property
    def stamp_line(self) -> int:
        """The 0-based line of the stamp: after the language line on a README, first on a site page."""
        return 2 if self.source.name == "README.md" else 0


def translation_of(source: Path, lang: str) -> Path:
    return source.with_name(f"{source.stem}.{lang}{source.suffix}")


def is_translation(path: Path) -> bool:
    return any(path.name.endswith(f".{lang}.md") for lang in LANGS)


def sources(repo: Path) -> list[Path]:
    """Every English page that has translations: the top-level README, each lesson's, each site page."""
    docs = repo / "site" / "docs"
    return [repo / "README.md", *sorted((repo / "lessons").glob("s[0-9][0-9]/README.md")),
            *sorted(p for p in docs.rglob("*.md") if not is_translation(p))]


def pairs(repo: Path) -> list[Pair]:
    return [Pair(src, lang, root=src == repo / "README.md") for src in sources(repo) for lang in LANGS]


# --- reading a page ---------------------------------------------------------------------

def fenced(text: str) -> list[tuple[int, int]]:
    """The fenced blocks as (first line, last line), 0-based and inclusive; an unclosed one runs to the end."""
    lines, found, i = text.split("\n"), [], 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        mark, j = opened["mark"], i + 1
        while j < len(lines) and not re.match(rf"^[ \t]*{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", lines[j]):
            j += 1
        found.append((i, min(j, len(lines) - 1)))
        i = j + 1
    return found


def fences(text: str) -> list[str]:
    """Each fenced block, fences included, exactly as written."""
    lines = text.split("\n")
    return ["\n".join(lines[a:b + 1]) for a, b in fenced(text)]


def _outside_fences(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside a fenced block and outside a generated block."""
    inside = {n for a, b in fenced(text) for n in range(a, b + 1)}
    for block in BLOCK.finditer(text):
        first = text.count("\n", 0, block.start())
        inside.update(range(first, first + block.group(0).count("\n") + 1))
    return [(n, line) for n, line in enumerate(text.split("\n")) if n not in inside]


def headings(text: str) -> list[tuple[int, str, str | None]]:
    """Each heading outside fenced and generated blocks: (level, text, its ``{#id}`` or None)."""
    found = []
    for _, line in _outside_fences(text):
        match = HEADING.match(line)
        if match:
            anchor = HEADING_ID.search(match[2])
            found.append((len(match[1]), HEADING_ID.sub("", match[2]).strip(), anchor[1] if anchor else None))
    return found


def anchors(text: str) -> set[str]:
    """The ids a page's headings get: each ``{#id}``, else the toc extension's slug of its text."""
    return {anchor or slug(title) for _, title, anchor in headings(text)}


def slug(title: str) -> str:
    """The id Python-Markdown's toc extension gives a heading (its default ``slugify``, ASCII only)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def includes(text: str) -> list[str]:
    """The lines a hand-written page includes a pinned file or a source symbol with (site/sitegen/excerpts.py)."""
    return [line.strip() for _, line in _outside_fences(text) if INCLUDE.match(line)]


def generated(text: str) -> list[tuple[str, str, str]]:
    """Each generated block: (kind, its opening marker, its contents)."""
    return [(m["kind"], m["head"], m["body"]) for m in BLOCK.finditer(text)]


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of each inline link outside fenced blocks, generated blocks and inline code."""
    found = []
    for n, line in _outside_fences(text):
        for match in INLINE_LINK.finditer(INLINE_CODE.sub("", line)):
            found.append((n + 1, match[1]))
    return found


def english_part(pair: Pair, text: str) -> str:
    """What of the English page is translated: all of it, or the top-level README up to its second section."""
    if not pair.root:
        return text
    starts = [m.start() for m in re.finditer(r"^## ", text, re.M)]
    return text[:starts[1]] if len(starts) > 1 else text


def prose(text: str) -> str:
    """The English text the stamp hashes (see the module docstring)."""
    if text.startswith(LANGUAGE_LINE + "\n"):
        text = text[len(LANGUAGE_LINE) + 1:].lstrip("\n")
    text = _without_generated(text)
    lines = text.split("\n")
    for a, b in reversed(fenced(text)):
        lines[a:b + 1] = [lines[a].strip()[:3]]
    return GLOSSARY_LINK.sub(r"\1", "\n".join(lines))


def digest(english: str) -> str:
    return hashlib.sha256(prose(english).encode("utf-8")).hexdigest()


# --- checking a translation -------------------------------------------------------------

def _rel(repo: Path, path: Path) -> str:
    return path.relative_to(repo).as_posix()


def _without_generated(text: str) -> str:
    """The text with each generated block's contents left out (its markers kept)."""
    return BLOCK.sub(lambda m: f"{m['head']}\n<!-- end of generated: {m['kind']} -->", text)


def _structure(pair: Pair, english: str, text: str, where: str) -> list[str]:
    problems = []
    theirs, ours = headings(english), headings(text)
    if [h[0] for h in theirs] != [h[0] for h in ours]:
        problems.append(f"{where}: headings: levels {''.join(str(h[0]) for h in ours)}, "
                        f"expected {''.join(str(h[0]) for h in theirs)} as in English (one digit a heading)")
    for (_, title, anchor), (_, mine, kept) in zip(theirs, ours):
        if anchor and kept != anchor:
            problems.append(f"{where}: heading {mine!r}: expected the English id {{#{anchor}}}")
    prefix = re.match(r"s\d\d:", theirs[0][1]) if theirs else None
    if prefix and ours and not ours[0][1].startswith(prefix[0]):
        problems.append(f"{where}: title {ours[0][1]!r}: expected it to start {prefix[0]!r}")
    theirs_f, ours_f = fences(_without_generated(english)), fences(_without_generated(text))  # those: compared below
    if len(theirs_f) != len(ours_f):
        problems.append(f"{where}: {len(ours_f)} fenced blocks, expected {len(theirs_f)} as in English")
    for i, (a, b) in enumerate(zip(theirs_f, ours_f), 1):
        if a != b:
            problems.append(f"{where}: fenced block {i} differs from English: {b.splitlines()[0]!r} ... "
                            f"(expected a byte-identical copy of {a.splitlines()[0]!r} ...)")
            break
    theirs_x, ours_x = includes(english), includes(text)
    if theirs_x != ours_x:
        problems.append(f"{where}: excerpts {ours_x}, expected {theirs_x}: each <!-- excerpt: --> and <!-- source: --> "
                        "line of the English page, byte for byte and in order")
    theirs_g, ours_g = generated(english), generated(text)
    if [(k, h) for k, h, _ in theirs_g] != [(k, h) for k, h, _ in ours_g]:
        problems.append(f"{where}: generated blocks {[k for k, _, _ in ours_g]}, expected {[k for k, _, _ in theirs_g]} "
                        "with the English markers")
    for (kind, _, a), (_, _, b) in zip(theirs_g, ours_g):
        if kind not in PER_LANGUAGE_BLOCKS and a != b:
            problems.append(f"{where}: generated block {kind!r} differs from English: run python site/readme_blocks.py")
    return problems


def _links(repo: Path, pair: Pair, text: str, where: str) -> list[str]:
    problems, known = [], {p for p in sources(repo)}
    folder = pair.path.parent
    for line, target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("/"):
            continue
        path, _, anchor = target.partition("#")
        resolved = (folder / path).resolve() if path else pair.path
        page = SITE_LESSON.match(path) if folder == repo / "site" / "docs" else None
        if page:  # lesson_pages.py makes the page, in the language being built; it exists with its lesson folder
            if not (repo / "lessons" / page[1]).is_dir():
                problems.append(f"{where}:{line}: link {target!r}: no lesson folder lessons/{page[1]}")
            continue
        if path and not resolved.exists():
            problems.append(f"{where}:{line}: link {target!r}: no such file")
            continue
        if line == 1 and pair.stamp_line == 2:  # the language line links the English page on purpose
            continue
        if pair.root and resolved == pair.source:  # the top-level README's untranslated rest is read in English
            continue
        if resolved in known and resolved.suffix == ".md":
            problems.append(f"{where}:{line}: link {target!r}: the English page; expected "
                            f"{translation_of(Path(path), pair.lang).as_posix()} (the {NAMES[pair.lang]} one)")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text(encoding="utf-8")):
            problems.append(f"{where}:{line}: link {target!r}: no heading with id {anchor!r} in {_rel(repo, resolved)}")
    return problems


def missing(repo: Path, pair: Pair) -> list[str]:
    if pair.path.is_file():
        return []
    return [f"{_rel(repo, pair.path)}: missing (the {NAMES[pair.lang]} translation of {_rel(repo, pair.source)})"]


def _texts(pair: Pair) -> tuple[str, str]:
    return english_part(pair, pair.source.read_text(encoding="utf-8")), pair.path.read_text(encoding="utf-8")


def stamp_problems(repo: Path, pair: Pair) -> list[str]:
    """The language line and the stamp: present, and the stamp the hash of the English prose as it is now."""
    where, (english, text) = _rel(repo, pair.path), _texts(pair)
    lines, problems = text.split("\n"), []
    if pair.stamp_line == 2 and lines[:2] != [LANGUAGE_LINE, ""]:
        problems.append(f"{where}: line 1: expected the language line {LANGUAGE_LINE!r} and a blank line")
    stamp = STAMP.match(lines[pair.stamp_line]) if len(lines) > pair.stamp_line else None
    if not stamp or stamp["source"] != pair.source.name:
        problems.append(f"{where}: line {pair.stamp_line + 1}: expected the stamp "
                        f"'<!-- translation of {pair.source.name}, sha256:... -->'")
    elif stamp["hash"] != digest(english):
        problems.append(f"{where}: stale: {_rel(repo, pair.source)} changed since it was translated "
                        f"(stamp {stamp['hash'][:12]}, English now {digest(english)[:12]}); update the translation, "
                        "then run python site/translations.py --stamp")
    return problems


def structure_problems(repo: Path, pair: Pair) -> list[str]:
    english, text = _texts(pair)
    return _structure(pair, english, text, _rel(repo, pair.path))


def link_problems(repo: Path, pair: Pair) -> list[str]:
    return _links(repo, pair, _texts(pair)[1], _rel(repo, pair.path))


def unreadable(repo: Path, pair: Pair) -> list[str]:
    """A translation (or its English page) that is not UTF-8 text, named with where it stops being so."""
    for path in (pair.source, pair.path):
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            return [f"{_rel(repo, path)}: not UTF-8 text ({exc.reason} at byte {exc.start})"]
    return []


def check(repo: Path, pair: Pair) -> list[str]:
    """What is wrong with one translation: missing, unreadable, unstamped, stale, structurally different, a broken link."""
    if not pair.path.is_file():
        return missing(repo, pair)
    return unreadable(repo, pair) or (stamp_problems(repo, pair) + structure_problems(repo, pair) + link_problems(repo, pair))


# --- quizzes and hints ------------------------------------------------------------------

def quiz_problems(repo: Path, lesson: str, lang: str) -> list[str]:
    """``quiz.{lang}.yaml``: the English list in the same order, each proof (and case) byte-identical."""
    path = quiz.path_of(repo, lesson, lang)
    rel = _rel(repo, path)
    if not quiz.path_of(repo, lesson).is_file():
        return []
    if not path.is_file():
        return [f"{rel}: missing (the {NAMES[lang]} translation of lessons/{lesson}/quiz.yaml)"]
    (theirs, _), (ours, problems) = quiz.load(repo, lesson), quiz.load(repo, lesson, lang)
    if not problems and len(ours) != len(theirs):
        problems.append(f"{rel}: {len(ours)} questions, expected {len(theirs)} as in quiz.yaml")
    for i, (a, b) in enumerate(zip(theirs, ours), 1):
        if (a.proof, a.case) != (b.proof, b.case):
            problems.append(f"{rel}: question {i}: proof and case must be byte-identical to quiz.yaml's")
    return problems


def hint_problems(repo: Path, lesson: str, lang: str) -> list[str]:
    """``exercises/sNN/hints.{lang}.yaml``: a translated hint for each exercise folder, and nothing else."""
    folders = sorted(p.name for p in (repo / "exercises" / lesson).glob("[0-9]_*") if (p / "solution.py").is_file())
    if not folders:
        return []
    path = repo / "exercises" / lesson / f"hints.{lang}.yaml"
    rel = _rel(repo, path)
    if not path.is_file():
        return [f"{rel}: missing (the {NAMES[lang]} hints of exercises/{lesson}/)"]
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        return [f"{rel}: not YAML: {str(exc).splitlines()[0]}"]
    if not isinstance(data, dict) or not all(isinstance(v, str) and v.strip() for v in data.values()):
        return [f"{rel}: expected a mapping from each exercise folder to its hint (a non-empty string)"]
    problems = [f"{rel}: no hint for {name}" for name in folders if name not in data]
    return problems + [f"{rel}: {name!r} is no exercise folder of exercises/{lesson}/" for name in data if name not in folders]


def lessons(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / "lessons").glob("s[0-9][0-9]") if p.is_dir())


def problems(repo: Path) -> list[str]:
    """Everything ``site/translations.py --check`` reports: pages, then quizzes and hints."""
    found = [p for pair in pairs(repo) for p in check(repo, pair)]
    for lesson in lessons(repo):
        for lang in LANGS:
            found += quiz_problems(repo, lesson, lang) + hint_problems(repo, lesson, lang)
    return found


def stamped(repo: Path, pair: Pair) -> str | None:
    """The translation with its stamp set to the English page's hash (None if it has no stamp line)."""
    if not pair.path.is_file() or unreadable(repo, pair):
        return None
    lines = pair.path.read_text(encoding="utf-8").split("\n")
    if len(lines) <= pair.stamp_line or not STAMP.match(lines[pair.stamp_line]):
        return None
    english = english_part(pair, pair.source.read_text(encoding="utf-8"))
    lines[pair.stamp_line] = f"<!-- translation of {pair.source.name}, sha256:{digest(english)} -->"
    return "\n".join(lines)
