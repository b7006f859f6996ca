"""What a lesson page shows of Python files.

- ``new_modules(code)``: every ``harness/...py`` path on the ``New module:`` line of a
  lesson's code.py docstring (s23 names three), in the order given, if the file exists.
- ``Mechanisms.find(repo)``: what each lesson added to the harness, found in the code
  itself, so a module split or a symbol moved to another file needs no edit here:
  - a module whose docstring says ``Introduced by sNN`` is sNN's, shown whole;
  - a definition (function, class, method, assignment) with a ``# lesson: sNN`` comment
    right above it (among the comments and decorators above it; ``# lesson: s28, s29``
    for two) carries sNN's mechanism in a module an earlier lesson introduced.
  A ``# lesson:`` comment with no definition under it is a problem, and so is a marker
  inside a function; the build fails on either.
- ``excerpt(path, symbols)``: the source of named symbols of a module (``Hub.add``,
  ``LIMITS``, ``_Expired``), each with the line numbers it has in the file. A symbol
  that is not there raises ``Missing``.
- ``folded_diff(old, new)``: the unified diff of two code.py files after every docstring
  is folded to its first line, so a diff opens with the code that changed, not with
  prose; ``docstring_diff`` is the rest, shown apart.

Not handled: symbols inside functions, and overloads (the first definition is shown).
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

HARNESS_PATH = re.compile(r"\bharness/[A-Za-z0-9_/]+\.py\b")
NEW_MODULE_LINE = re.compile(r"^New modules?:(.*)$", re.MULTILINE)


INTRODUCED = re.compile(r"\bIntroduced by (s\d\d)\b")
LESSON_MARK = re.compile(r"^\s*#\s*lesson:\s*(.*?)\s*$")
LESSON_NAME = re.compile(r"^s\d\d$")


class Missing(Exception):
    """A symbol a page wants to show is not in the file (renamed or removed)."""


def new_modules(code: str | None, repo: Path) -> list[str]:
    """Repo-relative paths named on the ``New module:`` line, that exist."""
    match = NEW_MODULE_LINE.search(code or "")
    if not match:
        return []
    paths = dict.fromkeys(HARNESS_PATH.findall(match.group(1)))
    return [p for p in paths if (repo / p).is_file()]


class Mechanisms:
    """What each lesson added to the harness: whole modules and marked symbols, by lesson."""

    def __init__(self) -> None:
        self.modules: dict[str, list[str]] = {}  # lesson -> repo-relative module paths
        self.symbols: dict[str, list[tuple[str, str]]] = {}  # lesson -> (path, dotted symbol)
        self.problems: list[str] = []

    @classmethod
    def find(cls, repo: Path, package: str = "harness") -> "Mechanisms":
        found = cls()
        for path in sorted((repo / package).rglob("*.py")):
            found._read(path, path.relative_to(repo).as_posix())
        return found

    def _read(self, path: Path, rel: str) -> None:
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            self.problems.append(f"{rel}: does not parse: {exc.msg}")
            return
        intro = INTRODUCED.search(ast.get_docstring(tree) or "")
        if intro:
            self.modules.setdefault(intro.group(1), []).append(rel)
        lines = text.splitlines()
        marks = {i + 1: m.group(1) for i, line in enumerate(lines) if (m := LESSON_MARK.match(line))}
        used: set[int] = set()
        for symbol, node in _definitions(tree).items():
            line = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
            while line >= 1 and lines[line - 1].strip().startswith("#"):
                if line in marks:
                    used.add(line)
                    for lesson in re.split(r"[\s,]+", marks[line]):
                        if not LESSON_NAME.match(lesson):
                            self.problems.append(f"{rel}:{line}: '# lesson: {marks[line]}': {lesson!r} is not a lesson name (sNN)")
                        else:
                            self.symbols.setdefault(lesson, []).append((rel, symbol))
                line -= 1
        for line in sorted(set(marks) - used):
            self.problems.append(f"{rel}:{line}: '# lesson: {marks[line]}' is not right above a definition "
                                 "(module or class level) of this file")


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level and class-level definitions by dotted name (``Hub``, ``Hub.add``, ``LIMITS``)."""
    found: dict[str, ast.AST] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            for name in names:
                found.setdefault(prefix + name, node)
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


def excerpt(path: Path, symbols: list[str]) -> list[tuple[str, int, int, str]]:
    """(symbol, first line, last line, source) for each symbol, decorators and comments above it included."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    defs = _definitions(ast.parse(text))
    out = []
    for symbol in symbols:
        node = defs.get(symbol)
        if node is None:
            raise Missing(f"{path.name} has no {symbol}")
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        while first > 1 and lines[first - 2].strip().startswith("#"):  # the comment that explains it
            first -= 1
        last = node.end_lineno or node.lineno
        body = "\n".join(lines[first - 1:last])
        indent = min((len(l) - len(l.lstrip()) for l in body.splitlines() if l.strip()), default=0)
        out.append((symbol, first, last, "\n".join(l[indent:] for l in body.splitlines())))
    return out


def _docstring_nodes(tree: ast.Module) -> list[ast.Constant]:
    nodes = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                nodes.append(first.value)
    return nodes


def fold_docstrings(source: str) -> str:
    """Every docstring cut to its first line: ``\"\"\"s19: a mock MCP client. ...\"\"\"`` (``...`` if it had more)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines()
    for node in sorted(_docstring_nodes(tree), key=lambda n: n.lineno, reverse=True):
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if start == end:
            continue
        head = lines[start]
        indent = head[:len(head) - len(head.lstrip())]
        quote = '"""' if '"""' in head else "'''"
        summary = next((l.strip() for l in node.value.splitlines() if l.strip()), "")
        lines[start:end + 1] = [f"{indent}{quote}{summary} ...{quote}"]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def unified(old: str, new: str, old_name: str, new_name: str, context: int = 3) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        old_name, new_name, n=context))


def folded_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """The diff with every docstring folded to its first line."""
    return unified(fold_docstrings(old), fold_docstrings(new), old_name, new_name)


def docstring_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """The diff of the module docstrings alone (what folding hid at the top)."""
    def doc(source: str) -> str:
        try:
            return (ast.get_docstring(ast.parse(source), clean=False) or "") + "\n"
        except SyntaxError:
            return ""
    return unified(doc(old), doc(new), old_name, new_name)


def changed_lines(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff."""
    added = sum(1 for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++"))
    removed = sum(1 for l in diff.splitlines() if l.startswith("-") and not l.startswith("---"))
    return added, removed
