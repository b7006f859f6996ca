"""Exercise solutions: read one, apply it to a temporary copy of the course, run it in this process.

Every lesson's README ends with numbered exercises. Exercise N of lesson sNN has its
solution in ``exercises/sNN/N_<slug>/``:

    solution.py     the solution, as data and two functions (below)
    *.yaml, ...     files it uses, such as a scenario; they stay where they are

``solution.py`` may define:

    (docstring)     the answer in words, as the site shows it (markdown)
    EDITS           {"lessons/s19/code.py": [(old, new), ...], "mock_servers/catalog.py": [...]}:
                    each ``old`` must occur exactly once in that file; it becomes ``new``
    RUN             the lesson's command line, e.g. ("--scenario", "{here}/scenario.yaml");
                    ``{here}`` is the solution's folder
    solve(env)      code that answers the exercise; without it, ``env.run(*RUN)``
    check(result)   the exercise's own check, written with ``expect.py``'s helpers, so a
                    wrong answer fails with one sentence: expected ..., found ...
    HINT            where to look (the module, the function, the API to call), for ``--hint``
    wrong(result)   optional: a wrong answer made from the right one, for the test that holds
                    every check to its sentence (without it, the course as it is stands for one)
    SLOW            True when it starts servers (the test id then says ``slow``)

The lesson's own files are never touched. ``patched(solution)`` copies the lesson folder
(always) and ``harness/`` and ``mock_servers/`` (only when an edit touches one of them) to
a temporary folder, applies ``EDITS`` there, and while it lasts, imports ``harness`` and
``mock_servers`` from the copy and works in the copy's root, so a lesson run, and any
server it spawns (``python -m mock_servers.x``), sees the patched code. Leaving it puts
the real modules and the current folder back.

The site reads ``solution.py`` without importing it (``Solution.read`` uses ``ast``), so
building the site never runs a solution; ``tests/test_exercises.py`` runs them all.

**Your own answer** (``--mine``): ``python exercises/runner.py s31/1 --mine my/settings.json``
runs exercise 1's check on your file instead of the solution's change. A file stands for
the file of the solution with the same name (any name, when the solution changes or
brings only one file): one the solution edits (``lessons/s31/settings.json``) or one it
brings (its ``scenario.yaml``). A folder is your copy of the course: each file the solution
edits is read from there. ``--mine`` may be given once per file. A file the solution edits
that you do not give stays as the course has it; one it brings stays the solution's (a
scenario that exercises your change, say). It prints ``ok``, or the check's sentence (``expected 2 lines
starting '  <! ', found 1: ...``) in at most five lines. The solution itself (its words and
its change as a diff, or where your file differs from it) only with ``--show-solution``;
``--hint`` prints the exercise's hint, in the learner's language where
``exercises/sNN/hints.{zh,ja}.yaml`` translates it: ``--lang zh|ja|en``, else the locale
(``LANG=ja_JP.UTF-8``), as a program using gettext would read it.

Not handled: solutions that need a network, a terminal, or the live model.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import importlib.util
import io
import itertools
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from expect import show  # exercises/expect.py: the checks' sentences (this folder is on the path, as for the checks)

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
PACKAGES = ("harness", "mock_servers")  # copied together, so a spawned server runs the patched copy too
FOLDER = re.compile(r"^(\d+)_([a-z0-9_]+)$")
_counter = itertools.count(1)


class EditError(Exception):
    """An edit that does not apply to the current file: the solution is stale."""


@dataclass(frozen=True)
class Solution:
    lesson: str
    number: int
    folder: Path
    doc: str
    edits: dict[str, list[tuple[str, str]]]
    run: tuple[str, ...]
    slow: bool
    sources: dict[str, str]  # "solve", "check": their source text
    hint: str = ""
    files: tuple[Path, ...] = field(default=())  # the other files in the folder
    replaced: dict[str, str] = field(default_factory=dict)  # path -> whole text, instead of its edits (--mine)

    @property
    def id(self) -> str:
        return f"{self.lesson}-{self.folder.name}"

    @property
    def key(self) -> str:
        """How the command line names it: ``s31/1``."""
        return f"{self.lesson}/{self.number}"

    @classmethod
    def read(cls, folder: Path) -> Solution:
        """The solution in ``folder``, read with ``ast``: nothing in it runs."""
        match = FOLDER.match(folder.name)
        if not match:
            raise ValueError(f"{folder}: a solution folder is named N_slug (e.g. 1_add_a_tool)")
        path = folder / "solution.py"
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id in ("EDITS", "RUN", "SLOW", "HINT"):
                    values[node.targets[0].id] = ast.literal_eval(node.value)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("solve", "check"):
                sources[node.name] = ast.get_source_segment(text, node, padded=True) or ""
        if "check" not in sources:
            raise ValueError(f"{path}: defines no check(result)")
        if "solve" not in sources and "RUN" not in values:
            raise ValueError(f"{path}: defines neither RUN nor solve(env)")
        edits = {p: [tuple(pair) for pair in pairs] for p, pairs in values.get("EDITS", {}).items()}
        files = tuple(sorted(p for p in folder.iterdir() if p.is_file() and p.name != "solution.py"
                             and not p.name.endswith(".pyc")))
        return cls(folder.parent.name, int(match.group(1)), folder, ast.get_docstring(tree) or "", edits,
                   tuple(values.get("RUN", ())), bool(values.get("SLOW", False)), sources,
                   " ".join(str(values.get("HINT", "")).split()), files)

    def patched_text(self, rel: str) -> tuple[str, str]:
        """The file ``rel`` as it is now, and as the solution's edits leave it."""
        before = (ROOT / rel).read_text(encoding="utf-8")
        if rel in self.replaced:
            return before, self.replaced[rel]
        after = before
        for old, new in self.edits.get(rel, []):
            count = after.count(old)
            if count != 1:
                first = old.strip().splitlines()[0] if old.strip() else repr(old)
                raise EditError(f"{self.id}: {rel}: the text to replace occurs {count} times, not once: {first!r}")
            after = after.replace(old, new)
        return before, after

    def diffs(self) -> list[tuple[str, str]]:
        """(path, unified diff) for every edited file, against the current files."""
        out = []
        for rel in self.edits:
            before, after = self.patched_text(rel)
            diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=2)
            out.append((rel, "".join(diff)))
        return out


def solutions(lesson: str | None = None) -> list[Solution]:
    """Every solution, in lesson and exercise order (one lesson's, if named)."""
    folders = sorted(EXERCISES.glob(f"{lesson or 's[0-9][0-9]'}/[0-9]*_*/solution.py"))
    found = [Solution.read(p.parent) for p in folders]
    return sorted(found, key=lambda s: (s.lesson, s.number))


@dataclass(frozen=True)
class Run:
    """One in-process run of a (patched) lesson."""

    code: int
    text: str
    frames: str = ""

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def lines_without(self, prefix: str) -> list[str]:
        """The lines, less those that start with ``prefix`` (``"  ok "``: s31's decision lines, in a check that is not about them)."""
        return [line for line in self.lines if not line.startswith(prefix)]


class Env:
    """What ``solve(env)`` gets: the patched copy, and a way to run its lesson."""

    def __init__(self, solution: Solution, root: Path) -> None:
        self.solution = solution
        self.root = root  # the copy's root: its lessons/sNN, and harness/, mock_servers/ if patched
        self.here = solution.folder
        self.lesson_dir = root / "lessons" / solution.lesson

    def pinned(self, name: str = "default.transcript") -> str:
        """The lesson's pinned file ``tests/snapshots/<lesson>/<name>``, from the course itself (a --mine run's folder is a copy)."""
        return (ROOT / "tests" / "snapshots" / self.solution.lesson / name).read_text(encoding="utf-8")

    def argv(self, *argv: str) -> list[str]:
        return [a.replace("{here}", str(self.here)) for a in argv]

    def lesson(self) -> ModuleType:
        """The copy's code.py, imported under a fresh name."""
        path = self.lesson_dir / "code.py"
        spec = importlib.util.spec_from_file_location(f"exercise_{self.solution.lesson}_{next(_counter)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def run(self, *argv: str, frames: bool = False) -> Run:
        """The copy's lesson, run as the snapshot tests run lessons (``--deterministic``)."""
        args = self.argv(*argv)
        with tempfile.TemporaryDirectory(prefix="exercise-frames-") as tmp:
            path = Path(tmp) / "frames.jsonl"
            if frames:
                args += ["--frames", str(path)]
            out = io.StringIO()
            code = self.lesson().main([*args, "--deterministic"], out)
            wire = path.read_text(encoding="utf-8") if frames and path.is_file() else ""
        return Run(code, out.getvalue(), wire)


@contextmanager
def patched(solution: Solution) -> Iterator[Env]:
    """A temporary copy with the solution's edits applied, imported in place of the real one."""
    with tempfile.TemporaryDirectory(prefix=f"exercise-{solution.lesson}-") as tmp:
        root = Path(tmp)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(ROOT / "lessons" / solution.lesson, root / "lessons" / solution.lesson, ignore=ignore)
        packages = PACKAGES if any(rel.split("/")[0] in PACKAGES for rel in solution.edits) else ()
        for package in packages:
            shutil.copytree(ROOT / package, root / package, ignore=ignore)
        for rel in solution.edits:
            if not rel.startswith((f"lessons/{solution.lesson}/", *(p + "/" for p in packages))):
                raise EditError(f"{solution.id}: edits {rel}, which is neither its lesson nor harness/ nor mock_servers/")
            (root / rel).write_text(solution.patched_text(rel)[1], encoding="utf-8")
        with _imported_from(root, packages):
            yield Env(solution, root)


@contextmanager
def _imported_from(root: Path, packages: tuple[str, ...]) -> Iterator[None]:
    """While inside, ``import harness`` (and ``mock_servers``) finds the copy under ``root``."""
    if not packages:
        yield
        return

    def ours(name: str) -> bool:
        return name.split(".")[0] in packages

    saved = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    cwd = os.getcwd()
    os.chdir(root)  # `python -m mock_servers.x` (serve_http) finds its package in the current folder first
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if ours(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
        importlib.invalidate_caches()


def load_module(solution: Solution) -> ModuleType:
    """``solution.py`` itself, imported (for its solve and check)."""
    path = solution.folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{solution.lesson}_{solution.number}_{next(_counter)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_solution(solution: Solution) -> Any:
    """Apply, solve, check. Returns what ``solve`` returned; an AssertionError means the check failed."""
    with patched(solution) as env:
        module = load_module(solution)
        solve = getattr(module, "solve", None)
        result = solve(env) if solve else env.run(*solution.run)
        module.check(result)
    return result


class MineError(Exception):
    """A ``--mine`` that cannot be used as given: one line, exit code 2."""


def find(which: str | None) -> list[Solution]:
    """Every solution, one lesson's (``s31``) or one (``s31/1``); a ``MineError`` if none matches."""
    lesson, _, number = (which or "").partition("/")
    if which and not re.fullmatch(r"s\d\d(/\d+)?", which):
        raise MineError(f"'{which}': name a lesson (s31) or an exercise (s31/1)")
    found = [s for s in solutions(lesson or None) if not number or s.number == int(number)]
    if not found:
        raise MineError(f"'{which}': no such exercise solution (exercises/{lesson}/ has "
                        f"{', '.join(s.key for s in solutions(lesson or None)) or 'none'})")
    return found


def _target(solution: Solution, path: Path) -> tuple[str, str]:
    """What the learner's file ``path`` stands for: ("edit", its path in the course) or ("file", a file the solution brings)."""
    options = [("edit", rel) for rel in solution.edits] + [("file", f.name) for f in solution.files]
    if not options:
        raise MineError(f"{solution.key}: its answer is a run and a few words, not a changed file: "
                        f"python exercises/runner.py {solution.key} runs the solution")
    if len(options) == 1:
        return options[0]
    named = [o for o in options if Path(o[1]).name == path.name]
    if len(named) == 1:
        return named[0]
    raise MineError(f"{path}: which file is this? {solution.key}'s answer changes {', '.join(o[1] for o in options)}: "
                    f"give your copy the same file name")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MineError(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None


@contextmanager
def mine(solution: Solution, paths: list[Path]) -> Iterator[tuple[Solution, list[str]]]:
    """The solution with the learner's files in place of its change, and notes on what was not given."""
    replaced: dict[str, str] = {}
    brought: dict[str, str] = {}
    for path in paths:
        if path.is_dir():  # the learner's copy of the course
            given = {rel: _read(path / rel) for rel in solution.edits if (path / rel).is_file()}
            if not given:
                raise MineError(f"{path}: holds none of the files {solution.key} changes ({', '.join(solution.edits) or 'none'})")
            replaced.update(given)
            continue
        if not path.is_file():
            raise MineError(f"--mine: no such file: {path}")
        kind, target = _target(solution, path)
        (replaced if kind == "edit" else brought)[target] = _read(path)
    notes = [f"{rel}: not given, so as the course has it" for rel in solution.edits if rel not in replaced]
    notes += [f"{f.name}: not given, so the solution's" for f in solution.files if f.name not in brought]
    for rel in solution.edits:
        replaced.setdefault(rel, (ROOT / rel).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="exercise-mine-") as tmp:
        folder = Path(tmp) / solution.folder.name
        shutil.copytree(solution.folder, folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for name, text in brought.items():
            (folder / name).write_text(text, encoding="utf-8")
        yours = dataclasses.replace(solution, folder=folder, replaced=replaced,
                                    files=tuple(folder / f.name for f in solution.files))
        yield yours, notes


def unchanged(solution: Solution) -> list[Path]:
    """What a learner who changed nothing would give ``--mine``: the course's own files.

    Those the solution edits; or, for an answer that is a scenario alone, the lesson's own
    ``scenario.yaml``. Empty when the answer is a run and a few words (its ``wrong(result)``
    then stands for a wrong answer).
    """
    paths = [ROOT / rel for rel in solution.edits]
    if not paths and [f.name for f in solution.files] == ["scenario.yaml"]:
        paths = [ROOT / "lessons" / solution.lesson / "scenario.yaml"]
    return paths


def differences(solution: Solution, yours: Solution, lines: int = 30) -> str:
    """Where the learner's files differ from the solution's (a unified diff, cut at ``lines``)."""
    pairs = [(rel, solution.patched_text(rel)[1], yours.replaced[rel]) for rel in solution.edits]
    pairs += [(f.name, f.read_text(encoding="utf-8"), (yours.folder / f.name).read_text(encoding="utf-8")) for f in solution.files]
    out: list[str] = []
    for name, theirs, mine_ in pairs:
        if theirs != mine_:
            out += difflib.unified_diff(theirs.splitlines(), mine_.splitlines(), f"solution: {name}", f"yours: {name}", n=1, lineterm="")
    return "\n".join(out[:lines] + ([f"... ({len(out) - lines} more lines)"] if len(out) > lines else []))


MAX_LINES = 5  # a failing check's report, at most


def failure(exc: BaseException) -> str:
    """What a failed check says, in at most ``MAX_LINES`` lines.

    A check's own sentence (an ``expect.Mismatch``, or any ``AssertionError`` with a text)
    is kept as it is, cut to five lines; anything else means the changed lesson did not run
    to the check, and that is said in one line, with the error's first line.
    """
    text = str(exc).strip()
    if isinstance(exc, AssertionError) and text:
        lines = text.splitlines()
        return "\n".join(lines[:MAX_LINES - 1] + ["..."] if len(lines) > MAX_LINES else lines)
    first = text.splitlines()[0] if text else "(no message)"
    return f"expected the changed lesson to run to the check, found {type(exc).__name__}: {show(first)[1:-1]}"


def check_mine(solution: Solution, paths: list[Path], show_solution: bool = False) -> tuple[bool, str]:
    """Run ``solution``'s check on the learner's files: (passed, the report to print)."""
    with mine(solution, paths) as (yours, notes):
        try:
            run_solution(yours)
            passed, report = True, f"ok    {solution.key}: your answer passes the exercise's check"
        except Exception as exc:  # noqa: BLE001 (a report: the check's sentence, or what your change broke)
            said = failure(exc)
            for path in paths:  # a file of yours is named as you gave it, not as its temporary copy
                if path.is_file() and (kind_target := _target(solution, path))[0] == "file":
                    said = said.replace(str(yours.folder / kind_target[1]), str(path))
            passed, report = False, f"FAIL  {solution.key}: {_indent(said).lstrip()}"
        lines = [report] + [f"      ({note})" for note in notes]
        if not passed and show_solution and (diff := differences(solution, yours)):
            lines += ["      where yours differs from the solution's:", _indent(diff)]
        elif not passed:
            lines.append(f"      (--hint: where to look; --show-solution: where yours differs from the solution's)")
    return passed, "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("      " + line for line in text.splitlines())


LANGS = ("en", "zh", "ja")  # the hints' languages: English (HINT), and hints.{lang}.yaml beside the solutions


def language(environ: dict[str, str]) -> str:
    """The learner's language as gettext finds it (LANGUAGE's first entry, then LC_ALL, LC_MESSAGES, LANG):
    ``zh`` for ``zh_CN.UTF-8``, ``ja`` for ``ja_JP.UTF-8``; English for anything else, C and unset included."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").split(":")[0]
        if value:
            code = value.split("_")[0].split(".")[0].lower()
            return code if code in LANGS else "en"
    return "en"


def translated_hint(solution: Solution, lang: str) -> str | None:
    """The hint from ``exercises/sNN/hints.{lang}.yaml`` (keyed by the solution's folder name), if there is one."""
    import yaml  # only for a translated hint: the runner reads nothing else but Python

    path = solution.folder.parent / f"hints.{lang}.yaml"
    if lang == "en" or not path.is_file():
        return None
    try:
        found = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        return None  # site/translations.py --check names a broken hints file; the learner still gets English
    text = found.get(solution.folder.name) if isinstance(found, dict) else None
    return text.strip() if isinstance(text, str) and text.strip() else None


def hint(solution: Solution, lang: str = "en") -> str:
    """The hint in ``lang`` where it is translated, else the English ``HINT``."""
    text = translated_hint(solution, lang) or solution.hint
    return f"hint  {solution.key}: {text or 'none beyond the exercise text in its README'}"


def solution_text(solution: Solution) -> str:
    """The answer in words, then the change as a diff against the current files."""
    parts = [f"solution  {solution.key} ({solution.folder.relative_to(ROOT)}):", "", solution.doc.strip()]
    for rel, diff in solution.diffs():
        parts += ["", diff.rstrip("\n")]
    parts += ["", f"files it brings: {', '.join(f.name for f in solution.files)}"] if solution.files else []
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    """python exercises/runner.py [sNN | sNN/N] [--mine PATH]... [--hint] [--show-solution]: run the solutions, or check your own answer."""
    import argparse

    parser = argparse.ArgumentParser(prog="python exercises/runner.py", description=main.__doc__)
    parser.add_argument("which", nargs="?", help="a lesson (s31) or one exercise (s31/1); default: every solution")
    parser.add_argument("--mine", type=Path, action="append", metavar="PATH",
                        help="your changed file (or scenario, or your copy of the course), checked instead of the solution's")
    parser.add_argument("--hint", action="store_true", help="print the exercise's hint (where to look, which API)")
    parser.add_argument("--show-solution", action="store_true",
                        help="print the solution (with --mine: where your files differ from it)")
    parser.add_argument("--lang", choices=LANGS, help="the hint's language (default: from LANGUAGE, LC_ALL, "
                        "LC_MESSAGES or LANG, as gettext reads them; English where a hint is not translated)")
    args = parser.parse_args(argv)
    try:
        found = find(args.which)
        one = len(found) == 1 and "/" in (args.which or "")
        for flag, given in (("--mine", args.mine), ("--hint", args.hint), ("--show-solution", args.show_solution)):
            if given and not one:
                raise MineError(f"{flag} goes with one exercise, named as sNN/N (e.g. s31/1)")
        if args.hint:
            print(hint(found[0], args.lang or language(dict(os.environ))), flush=True)
            if not args.mine and not args.show_solution:
                return 0
        if args.mine:
            passed, report = check_mine(found[0], args.mine, show_solution=args.show_solution)
            print(report, flush=True)
            return 0 if passed else 1
        if args.show_solution:
            print(solution_text(found[0]), flush=True)
            return 0
    except MineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for item in found:
        try:
            run_solution(item)
            line = f"ok    {item.id}"
        except Exception as exc:  # noqa: BLE001 (a report, not a handler)
            failed += 1
            line = f"FAIL  {item.id}: {failure(exc)}"
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # python exercises/runner.py | head: the reader left
        sys.stderr.close()
        sys.exit(0)
