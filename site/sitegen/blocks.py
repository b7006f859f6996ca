"""The generated blocks of the READMEs, so a reader on a forge sees what the site shows.

A block sits between two HTML comments, and only ``python site/readme_blocks.py`` writes it::

    <!-- generated: quiz (from quiz.yaml; to change it, edit that and run python site/readme_blocks.py) -->
    ...
    <!-- end of generated: quiz -->

A lesson README (``lessons/sNN/README.md``) has:

- ``transcripts``, first in *Try it*: the quoted output is the ``--deterministic`` run, and
  how to compare yours with the pinned one;
- ``quiz``, the section *Check what you saw*: the questions of ``quiz.yaml``, each answer
  folded (``<details>``) with the pinned line that proves it;
- ``module``, last in *How it works*, from s27 on (where ``code.py`` is mostly a
  ``Stack(...)`` call): the lesson's own mechanism, as the site's Code tab finds it: each
  module that says ``Introduced by sNN`` (its public names, with their docstrings' first
  lines) and each symbol marked ``# lesson: sNN`` (its source, cut when long);
- ``check``, first in *Exercises*: how to check an answer (``--mine``), get the hint and
  see the solution, with this lesson's own exercise names.

The top-level README.md has ``path-run`` (the head of s19's pinned run), ``path-quiz``
(s19's first question), ``path-mine`` (what the runner prints for a wrong s19/2 answer,
run when the block is made) and ``suite`` (the test suite's time, from the records
``bench/suite.py --json`` wrote: ``bench/records/``). Outside its blocks the README states
no measured figure (tests/test_readmes.py).

Besides the blocks, the first use of each glossary term in a lesson README's prose links
to its definition in ``site/docs/glossary.md``, as the lesson page does
(sitegen/glossary.py). ``refresh(repo, path)`` is the file as the command would write it;
a block that is missing is put in its place.

A translation (``README.zh.md``, ``README.ja.md``: site/sitegen/i18n.py) keeps the English
page's blocks, markers and all; they are refreshed with the English contents, but the
quiz, which is written from ``quiz.{lang}.yaml`` with its introduction in that language.
"""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path

from sitegen import code as codeview
from sitegen import glossary, i18n, quiz
from sitegen.render import fence

COMMAND = "python site/readme_blocks.py"
BLOCK = re.compile(r"<!-- generated: (?P<kind>[\w-]+)\b[^>]*-->\n(?P<body>.*?)<!-- end of generated: (?P=kind) -->\n?", re.S)
GLOSSARY = "site/docs/glossary.md"
SOURCES = {"transcripts": "the pinned runs", "quiz": "quiz.yaml", "module": "the harness's lesson markers",
           "check": "exercises/", "path-run": "tests/snapshots/s19", "path-quiz": "lessons/s19/quiz.yaml",
           "path-mine": "exercises/runner.py", "suite": "bench/records/"}
FIRST_MODULE_LESSON = 27  # from here on, code.py is mostly a Stack(...) call
SYMBOL_LINES = 12  # a marked symbol longer than this is cut
OUTLINE_LINES = 14  # one module's outline, at most
MAX_SYMBOLS = 3  # marked symbols shown; the rest are named


def wrap(kind: str, body: str) -> str:
    head = f"<!-- generated: {kind} (from {SOURCES[kind]}; to change it, change that and run {COMMAND}) -->"
    return f"{head}\n{body.strip()}\n<!-- end of generated: {kind} -->\n"


# --- lesson READMEs ---------------------------------------------------------------------

def transcripts(name: str) -> str:
    return (f"The output quoted in this README is the pinned run, `python lessons/{name}/code.py --deterministic`: "
            "each port, the temporary workspace and the interpreter are placeholders there (`<port>`, `<workspace>`, "
            "`python`), and a run without `--deterministic` prints the real ones. To compare yours with the pinned one:\n\n"
            + fence(f"python lessons/{name}/code.py --deterministic | diff - tests/snapshots/{name}/default.transcript",
                    "sh")
            + "\n\nNo output from `diff` means your run is the pinned run, line for line.")


INTRO = {"en": "Questions about the run above. Try each before you unfold it: the answer comes with the line of the "
                "pinned run that proves it.", "zh": quiz.WORDS["zh"][0], "ja": quiz.WORDS["ja"][0]}


def quiz_block(repo: Path, name: str, only: int | None = None, lang: str = "en") -> str:
    questions, _ = quiz.load(repo, name, lang)
    parts = [] if only else [INTRO[lang]]
    for i, q in enumerate(questions, 1):
        if only and i != only:
            continue
        lead = quiz.WORDS[lang][1].format(file=f"tests/snapshots/{name}/{q.case}.transcript",
                                          where=quiz.where(quiz.located(repo, name, q), lang))
        named = f"<!-- from: {name}/{q.case}.transcript -->\n" if q.case != "default" else ""
        parts.append(f"<details><summary>{i}. {html.escape(q.question, quote=False)}</summary>\n\n{q.answer}\n\n"
                     f"{lead}\n\n{named}{fence(q.proof, 'text')}\n\n</details>")
    return "\n\n".join(parts)


def _signature(lines: list[str], node: ast.AST) -> list[str]:
    """A definition's header lines as written (no decorators), up to its docstring or body."""
    body = node.body[0]
    end = body.lineno - 1 if body.lineno > node.lineno else node.lineno
    header = lines[node.lineno - 1:end]
    if body.lineno == node.lineno:  # a one-line definition: keep up to the colon
        header = [header[0][:header[0].index(":", len(header[0].split("(")[0])) + 1]] if ":" in header[0] else header
    return [h.rstrip() for h in header]


def _stub(lines: list[str], node: ast.AST, indent: str = "") -> list[str]:
    """The definition's header as the file has it (a method's keeps its indent), then its docstring's first line."""
    doc = (ast.get_docstring(node) or "").strip().split("\n")[0]
    head = _signature(lines, node)
    inner = indent + "    "
    return head + ([f'{inner}"""{doc}"""'] if doc else []) + ([f"{inner}..."] if not isinstance(node, ast.ClassDef) else [])


def outline(path: Path) -> list[str]:
    """A module's public functions and classes (with their public methods), as stubs with one docstring line."""
    text = path.read_text(encoding="utf-8")
    lines, out = text.splitlines(), []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            out += _stub(lines, node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            out += _stub(lines, node)
            methods = [m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and not m.name.startswith("_")]
            for method in methods:
                out += _stub(lines, method, "    ")
            if not methods:
                out.append("    ...")
    return out


def _short(source: str) -> list[str]:
    """A symbol's source without the comments above it, its docstring cut to its first line."""
    lines = source.splitlines()
    while lines and lines[0].lstrip().startswith("#"):
        lines.pop(0)
    text = "\n".join(lines)
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, IndexError):
        return lines
    body = getattr(node, "body", None)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str) and body[0].end_lineno > body[0].lineno:
        doc, first = body[0], lines[body[0].lineno - 1]
        indent = first[:len(first) - len(first.lstrip())]
        summary = body[0].value.value.strip().split("\n")[0]
        lines = lines[:doc.lineno - 1] + [f'{indent}"""{summary}"""'] + lines[doc.end_lineno:]
    return lines


def _cut(lines: list[str], limit: int, rel: str) -> list[str]:
    if len(lines) <= limit:
        return lines
    return lines[:limit - 1] + [f"# ... {len(lines) - limit + 1} more lines: see {rel}"]


def module_block(repo: Path, name: str, found: codeview.Mechanisms) -> str | None:
    code = (repo / "lessons" / name / "code.py").read_text(encoding="utf-8")
    modules = list(dict.fromkeys(codeview.new_modules(code, repo) + found.modules.get(name, [])))
    parts = []
    for rel in modules:
        doc = (ast.get_docstring(ast.parse((repo / rel).read_text(encoding="utf-8"))) or "").strip().split("\n")[0]
        stubs = outline(repo / rel)
        if not stubs:
            continue
        parts.append(f"`{rel}`" + (f": {doc}" if doc else "") + "\n\n" + fence("\n".join(_cut(stubs, OUTLINE_LINES, rel)), "python"))
    marked = [(rel, symbol) for rel, symbol in found.symbols.get(name, []) if rel not in modules]
    for rel, symbol in marked[:MAX_SYMBOLS]:
        for symbol, first, last, text in codeview.excerpt(repo / rel, [symbol]):
            body = _cut(_short(text), SYMBOL_LINES, f"{rel} lines {first}-{last}")
            parts.append(f"`{rel}`, `{symbol}` (lines {first}-{last}, marked `# lesson: {name}`):\n\n" + fence("\n".join(body), "python"))
    if len(marked) > MAX_SYMBOLS:
        parts.append("Also marked for it: " + ", ".join(f"`{symbol}` (`{rel}`)" for rel, symbol in marked[MAX_SYMBOLS:]) + ".")
    if not parts:
        return None
    intro = (f"The mechanism lives in the harness, not in `code.py`. What {name} adds there: each module it "
             "introduced, by its public names and the first line of each docstring, and each symbol marked "
             f"`# lesson: {name}` in an older module. The site's Code tab shows them whole.")
    return intro + "\n\n" + "\n\n".join(parts)


def check_block(repo: Path, name: str) -> str | None:
    import runner  # exercises/runner.py (sitegen puts exercises/ on the path)

    found = runner.solutions(name)
    if not found:
        return None
    with_file = next((s for s in found if s.edits or s.files), None)
    rows = []
    if with_file:
        target = next(iter(with_file.edits), None) or with_file.files[0].name
        mine = f"my/{Path(target).name}"
        what = f"your edited copy of {target}" if with_file.edits else f"your {Path(target).name}"
        rows.append((f"python exercises/runner.py {with_file.key} --mine {mine}", what))
    key = (with_file or found[0]).key
    rows += [(f"python exercises/runner.py {key} --hint", "where to look, and the API it needs"),
             (f"python exercises/runner.py {key} --show-solution", "the answer (with --mine: where yours differs)"),
             (f"python exercises/runner.py {name}", "every solution of this lesson, checked")]
    width = max(len(c) for c, _ in rows) + 2
    block = fence("\n".join(f"{c.ljust(width)}# {w}" for c, w in rows), "sh")
    words = [s.key for s in found if not s.edits and not s.files]
    tail = (f" The answers to {', '.join(words)} are a run and a few words: the runner runs the solution's own check,"
            " and `--hint` says where to look." if words else "")
    return (f"Solutions are in `exercises/{name}/`. Check your answer with the runner: a wrong one is told in one "
            f"sentence, what the check expected and what it found, and the solution stays hidden unless you ask."
            + tail + "\n\n" + block)


# --- the top-level README ---------------------------------------------------------------

def path_run(repo: Path, lines: int = 20) -> str:
    head = (repo / "tests" / "snapshots" / "s19" / "default.transcript").read_text(encoding="utf-8").splitlines()
    shown = head[:lines] + (["..."] if len(head) > lines else [])
    what = f"the first {lines} of its {len(head)} lines" if len(head) > lines else f"all {len(head)} lines"
    return (f"What it prints ({what}, as `tests/snapshots/s19/default.transcript` pins them):\n\n"
            + fence("\n".join(shown), "text"))


def path_mine(repo: Path) -> str:
    import runner

    solution = next(s for s in runner.solutions("s19") if s.number == 2)
    _, report = runner.check_mine(solution, [repo / "lessons" / "s19" / "scenario.yaml"])
    return fence(f"$ python exercises/runner.py s19/2 --mine lessons/s19/scenario.yaml\n{report}", "text")


RECORDS = {"suite": ("the whole suite", "python bench/suite.py --json bench/records/suite.json"),
           "fast-lane": ("the fast lane (`-m \"not slow\"`)",
                         "python bench/suite.py --json bench/records/fast-lane.json -- -m \"not slow\"")}


def suite(repo: Path) -> str:
    rows = ["| run | tests | wall | CPU | load average (1 min): start, end, highest | recorded with |", "|---|---|---:|---:|---|---|"]
    cpus = "?"
    for stem, (what, command) in RECORDS.items():
        path = repo / "bench" / "records" / f"{stem}.json"
        if not path.is_file():
            continue
        run = json.loads(path.read_text(encoding="utf-8"))["runs"][-1]
        cpus = run.get("cpus", cpus)
        rows.append(f"| {what} | {run['summary']} | {run['wall_s']:.0f} s | {run['cpu_s']:.0f} s | "
                    f"{run['load_start']}, {run['load_end']}, {run['load_max']} | `{command}` |")
    return (f"The last recorded runs, on the development machine ({cpus} CPUs), with the load beside them; a busier "
            "machine is slower, not red:\n\n" + "\n".join(rows))


# --- putting them in place --------------------------------------------------------------

def _lesson_blocks(repo: Path, name: str, found: codeview.Mechanisms) -> dict[str, str | None]:
    number = int(name[1:])
    return {"transcripts": transcripts(name), "quiz": quiz_block(repo, name) or None,
            "module": module_block(repo, name, found) if number >= FIRST_MODULE_LESSON else None,
            "check": check_block(repo, name)}


def _readme_blocks(repo: Path) -> dict[str, str | None]:
    return {"path-run": path_run(repo), "path-quiz": quiz_block(repo, "s19", only=1), "path-mine": path_mine(repo),
            "suite": suite(repo)}


def _section_end(text: str, heading: str) -> int:
    start = text.index(f"\n## {heading}\n")
    nxt = text.find("\n## ", start + 1)
    return len(text) if nxt < 0 else nxt + 1


def _place(text: str, kind: str, block: str) -> str:
    """Put a missing lesson block where it belongs."""
    if kind == "transcripts":
        at = text.index("\n## Try it\n") + len("\n## Try it\n")
        return text[:at] + "\n" + block + text[at:]
    if kind == "quiz":
        at = _section_end(text, "Try it")
        return text[:at] + "## Check what you saw\n\n" + block + "\n" + text[at:]
    if kind == "module":
        at = _section_end(text, "How it works")
        return text[:at] + block + "\n" + text[at:]
    if kind == "check":
        at = text.index("\n## Exercises\n") + len("\n## Exercises\n")
        rest = re.sub(r"\A\nSolutions are in `exercises/s\d\d/`[^\n]*(?:\n(?!\n)[^\n]*)*\n", "\n", text[at:])
        return text[:at] + "\n" + block + "\n" + rest.lstrip("\n")
    raise ValueError(f"no place for a {kind} block")


def _link_glossary(repo: Path, text: str, readme: Path) -> str:
    """The first use of each glossary term outside the blocks, linked to site/docs/glossary.md."""
    blocks: list[str] = []

    def hold(match: re.Match) -> str:
        blocks.append(match.group(0))
        return f"<!-- block {len(blocks) - 1} -->\n"

    held = BLOCK.sub(hold, text)
    href = Path(*[".."] * len(readme.parent.relative_to(repo).parts), GLOSSARY).as_posix()
    terms = glossary.terms(repo / GLOSSARY)
    unlinked = re.sub(rf"\[([^\]]+)\]\({re.escape(href)}#[a-z0-9-]+\)", r"\1", held)  # linked afresh: always the first use
    linked = glossary.link(unlinked, href, terms)
    return re.sub(r"<!-- block (\d+) -->\n", lambda m: blocks[int(m.group(1))], linked)


def _translated(lang: str, wanted: dict[str, str | None], repo: Path, lesson: str | None) -> dict[str, str | None]:
    """A translation's blocks: the English ones, but the quiz from ``quiz.{lang}.yaml`` (English's until it exists)."""
    if not quiz.path_of(repo, lesson or "s19", lang).is_file():
        return wanted
    if lesson and wanted.get("quiz"):
        return wanted | {"quiz": quiz_block(repo, lesson, lang=lang)}
    if not lesson:
        return wanted | {"path-quiz": quiz_block(repo, "s19", only=1, lang=lang)}
    return wanted


def refresh(repo: Path, path: Path, found: codeview.Mechanisms | None = None) -> str:
    """``path`` (a README, or a translation of one) as ``python site/readme_blocks.py`` writes it.

    A translation (``README.zh.md``) gets only the blocks it has refreshed: where one is
    missing, site/translations.py --check says so, and the translator places it."""
    text = path.read_text(encoding="utf-8")
    lesson = path.parent.name if path.parent.parent == repo / "lessons" else None
    lang = next((lang for lang in i18n.LANGS if path.name == f"README.{lang}.md"), "en")
    if lesson:
        wanted = _lesson_blocks(repo, lesson, found or codeview.Mechanisms.find(repo))
    else:
        wanted = _readme_blocks(repo)
    if lang != "en":
        present = {m["kind"] for m in BLOCK.finditer(text)}
        wanted = {kind: body for kind, body in _translated(lang, wanted, repo, lesson).items() if kind in present}
    present = {m["kind"] for m in BLOCK.finditer(text)}
    for kind, body in wanted.items():
        if body is None:
            text = BLOCK.sub(lambda m: "" if m["kind"] == kind else m.group(0), text)
        elif kind in present:
            text = BLOCK.sub(lambda m: wrap(kind, body) if m["kind"] == kind else m.group(0), text)
        elif lesson:
            text = _place(text, kind, wrap(kind, body))
    if lesson and lang == "en":  # a translation links the glossary in its own language, by hand
        text = _link_glossary(repo, text, path)
    return text


def readmes(repo: Path) -> list[Path]:
    """Every README with generated blocks: the top-level one, then each lesson's; each followed by its translations."""
    english = [repo / "README.md", *sorted(p for p in (repo / "lessons").glob("s[0-9][0-9]/README.md"))]
    return [p for e in english for p in [e, *(i18n.translation_of(e, lang) for lang in i18n.LANGS)] if p.is_file()]


def stale(repo: Path) -> list[str]:
    """The READMEs whose text is not what the command would write (repo-relative)."""
    found = codeview.Mechanisms.find(repo)
    return [p.relative_to(repo).as_posix() for p in readmes(repo) if refresh(repo, p, found) != p.read_text(encoding="utf-8")]
