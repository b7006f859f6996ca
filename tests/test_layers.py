"""The harness's imports, read from the source (function-level imports included): no cycle, and none climbs a layer.

The layers are ARCHITECTURE's, top to bottom; a module may import its own layer and the
ones below. Imports under ``if TYPE_CHECKING:`` are annotations only and are not counted.
No module is loaded by a dotted string: ``importlib.import_module`` appears only where the
harness inspects the SDK (``sdk_compat``) or installs half of it (``sdk_half``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"

LAYERS = [  # top first; a prefix names a module or a package
    ("entry points", ["harness.__main__", "harness.app", "harness.conformance", "harness.lesson", "harness.survey",
                      "harness.commands"]),
    ("composition root", ["harness.stack", "harness.parts", "harness.toolsearch", "harness.toolindex", "harness.tasks",
                          "harness.apisearch", "harness.skilltool", "harness.slash", "harness.subagents"]),
    ("config", ["harness.config", "harness.reload", "harness.agents"]),
    ("the hub and what reads it", ["harness.hub", "harness.connect", "harness.pool", "harness.auth", "harness.resources",
                                   "harness.elicit", "harness.permissions", "harness.output", "harness.ask"]),
    ("one connection and its mechanisms", ["harness.connection", "harness.sessions", "harness.opening", "harness.calls",
                                           "harness.hooks", "harness.lifecycle", "harness.expiry", "harness.era",
                                           "harness.modern", "harness.cache", "harness.sdk_compat", "harness.skills"]),
    ("transports", ["harness.transports", "harness.guard", "harness.wire"]),
    ("the loop", ["harness.loop", "harness.model", "harness.naming", "harness.mcp_client", "harness.schemas"]),
    # Leaves: values and small helpers that import nothing above them. auth.clock is the connect clock that
    # stops during a sign-in (the era's handshake uses it); config.files is the one reader of outside files.
    ("values", ["harness", "harness.client", "harness.results", "harness.tools", "harness.spec", "harness.transcript",
                "harness.redact", "harness.errors", "harness.echo", "harness.nesting", "harness.jsonvalue", "harness.deadline", "harness.exits",
                "harness.signals", "harness.cli_types", "harness.sdk_half", "harness.auth.clock", "harness.config.files"]),
]


def modules() -> dict[str, Path]:
    found = {}
    for path in HARNESS.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The harness modules ``name`` imports at run time, wherever in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def resolve(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            test = node.test
            if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                    isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            for alias in node.names:
                if alias.name.startswith("harness") and (target := resolve(alias.name)):
                    found.add(target)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{base}" if base else up
            if not base.startswith("harness"):
                return
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in known else resolve(base)
                if target:
                    found.add(target)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def layer(name: str) -> int:
    best = (-1, -1)
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best[1]:
                best = (number, len(prefix))
    assert best[0] >= 0, f"{name} is in no layer of tests/test_layers.py: add it where it belongs"
    return best[0]


def test_the_imports_of_the_harness_form_no_cycle():
    edges = graph()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError(f"an import cycle: {' -> '.join(cycle)}")
            if target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


def test_no_module_imports_one_on_a_higher_layer():
    climbs = [f"{name} ({LAYERS[layer(name)][0]}) imports {target} ({LAYERS[layer(target)][0]})"
              for name, targets in sorted(graph().items()) for target in sorted(targets) if layer(target) < layer(name)]
    assert climbs == [], "expected imports to run downward only:\n" + "\n".join(climbs)


def test_no_module_is_loaded_by_a_dotted_string():
    loaders = sorted(str(path.relative_to(ROOT)) for path in HARNESS.rglob("*.py")
                     if "import_module(" in path.read_text(encoding="utf-8"))
    assert loaders == ["harness/sdk_compat.py"], f"expected dotted-string loading only in sdk_compat, found {loaders}"


def test_the_layer_check_catches_a_climb(tmp_path):
    # The checker itself: a low module importing the stack is reported.
    known = {"harness.spec": tmp_path / "spec.py", "harness.stack": tmp_path / "stack.py"}
    known["harness.spec"].write_text("def f():\n    from harness.stack import Stack\n", encoding="utf-8")
    assert imports("harness.spec", known["harness.spec"], known) == {"harness.stack"}
    assert layer("harness.stack") < layer("harness.spec")


def _classes() -> list[tuple[int, str]]:
    sizes = []
    for path in sorted(HARNESS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                sizes.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(ROOT)}:{node.name}"))
    return sizes


def test_no_class_of_the_harness_is_over_200_lines():
    big = [f"{where} ({lines} lines)" for lines, where in _classes() if lines > 200]
    assert big == [], f"expected every class at most 200 lines: split these into objects it holds: {big}"


def test_a_connection_is_a_few_objects_and_none_over_250_lines_with_what_it_inherits():
    import inspect

    from harness.calls import CallPath
    from harness.connection import MCPConnection
    from harness.opening import Opener
    from harness.sessions import SessionOwner

    for cls in (MCPConnection, SessionOwner, Opener, CallPath):
        lines = sum(len(inspect.getsource(base).splitlines()) for base in cls.__mro__ if base.__module__.startswith("harness"))
        assert lines <= 250, f"expected {cls.__name__} at most 250 lines with its bases, got {lines}"


ANY_AT_MOST = 120  # harness/'s uses of the name ``Any``: a JSON value is harness.jsonvalue's, an SDK object its own type


def _uses_of_any() -> dict[str, int]:
    found = {}
    for path in sorted(HARNESS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if uses := sum(isinstance(node, ast.Name) and node.id == "Any" for node in ast.walk(tree)):
            found[str(path.relative_to(ROOT))] = uses
    return found


def test_any_is_left_only_where_a_value_really_is_untyped():
    found = _uses_of_any()
    total = sum(found.values())
    most = ", ".join(f"{where} ({uses})" for where, uses in sorted(found.items(), key=lambda item: -item[1])[:10])
    assert total <= ANY_AT_MOST, (f"expected at most {ANY_AT_MOST} uses of Any in harness/ (JSON: harness.jsonvalue; an SDK "
                                  f"object: its type under TYPE_CHECKING), found {total}; the most in: {most}")


def _import_block(lines: list[str], first: int, last: int) -> tuple[int, int]:
    """The run of import lines (blank lines between them included) around lines ``first``..``last`` (0-based)."""
    def is_import(text: str) -> bool:
        return text.strip().startswith(("import ", "from "))

    while first > 0 and (is_import(lines[first - 1]) or (not lines[first - 1].strip() and first > 1 and is_import(lines[first - 2]))):
        first -= 1
    while last + 1 < len(lines) and (is_import(lines[last + 1]) or (
            not lines[last + 1].strip() and last + 2 < len(lines) and is_import(lines[last + 2]))):
        last += 1
    return first, last


def test_an_import_inside_a_function_says_why_it_is_not_at_the_top():
    # Start-up (--help, reading a config) must not load the SDK, httpx2, anthropic or pydantic: an import that waits
    # for its function says which of those it spares, on its line, on a line of its block, or in a comment just above.
    silent = []
    for path in sorted(HARNESS.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for function in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    first, last = _import_block(lines, node.lineno - 1, node.end_lineno - 1)
                    if not any("#" in line for line in lines[first:last + 1]) and not lines[first - 1].strip().startswith("#"):
                        silent.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert silent == [], ("expected every function-level import to say why it waits (or to move to the top of its "
                          "module):\n" + "\n".join(sorted(set(silent))))
