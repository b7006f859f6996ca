"""A config file's text into a document: JSON, JSON with comments (JSONC), TOML or YAML.

``decode(text, kind, shown)`` is the one place a config's text is parsed. Each error is
one line naming the file and where (``not valid JSON (line 2, column 3): ...``):

    json    strict JSON, through ``harness.nesting`` (its nesting limit)
    jsonc   what Zed and VS Code accept in their settings: ``//`` and ``/* */`` comments and
            trailing commas, stripped here (``strip_jsonc``), then strict JSON
    toml    ``tomllib`` (Codex's ``config.toml``)
    yaml    PyYAML's safe loader, with aliases refused: a file of a few KiB could otherwise
            expand to gigabytes (Continue, goose)

A key given twice in one object (two ``"tool"`` entries in ``mcpServers``) is a
``DuplicateKey`` warning naming the file, the line and the key, handed to ``warn``; the
document keeps the later one, as every client's own parser does (``JSON.parse``, VS
Code's and Zed's JSONC, PyYAML): the harness runs what the client the file was written
for would run, and says so, where refusing would make the two disagree. TOML forbids a
second key, and so does ``tomllib``: that file is refused, naming the line and the key.
``harness.commands.doctor`` lists each ``DuplicateKey`` as a problem.

Not handled here: JSON5 beyond comments
and trailing commas (single quotes, unquoted keys), YAML tags, a YAML key that is not a
plain scalar (its duplicates are not looked for).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from harness import echo, nesting
from harness.errors import ConfigError
from harness.jsonvalue import JSON, JSONObject

Warn = Callable[[str], None]


class DuplicateKey(str):
    """The warning line for a key given twice in one object; ``file``, ``line`` and ``key`` say where."""

    file: str
    line: int
    key: str

    @classmethod
    def of(cls, file: str, line: int, key: str, first: int) -> DuplicateKey:
        said = cls(f"{file}: line {line}: key {echo.name(key)} is given twice in one object (first on line {first}); "
                   "the later one is used")
        said.file, said.line, said.key = file, line, key
        return said


def decode(text: str, kind: str, shown: str, warn: Warn | None = None) -> JSON:
    """The document in ``text``; a ``ConfigError`` naming ``shown`` if it does not parse; each duplicate key to ``warn``."""
    if kind == "toml":
        import tomllib  # only for a TOML file (Codex)

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{shown}: not valid TOML: {_toml_twice(str(exc), text)}") from None
        except RecursionError:
            raise ConfigError(f"{shown}: {nesting.too_deep()}") from None
    if kind == "yaml":
        return _yaml(text, shown, warn)
    return loads_json(strip_jsonc(text) if kind == "jsonc" else text, shown, warn)


def loads_json(text: str, shown: str, warn: Warn | None = None) -> JSON:
    """Strict JSON (the nesting limit too), a ``ConfigError`` naming ``shown``; each duplicate key to ``warn``."""
    twice = False

    def pairs(items: list[tuple[str, JSON]]) -> JSONObject:
        nonlocal twice
        value = dict(items)
        twice = twice or len(value) != len(items)
        return value

    try:
        value = nesting.loads(text, object_pairs_hook=pairs)
    except nesting.TooDeep as exc:
        raise ConfigError(f"{shown}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{shown}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    if twice and warn is not None:  # rare: only then is the text scanned again for where
        for line, key, first in json_duplicates(text):
            warn(DuplicateKey.of(shown, line, key, first))
    return value


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],]')


def json_duplicates(text: str) -> list[tuple[int, str, int]]:
    """Each key of valid JSON ``text`` given again in the same object: (its line, the key, the line it was first on)."""
    found: list[tuple[int, str, int]] = []
    objects: list[dict[str, int] | None] = []  # per open container: the keys so far with their lines; None for an array
    expect_key, line, at = False, 1, 0
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token in "{[":
            objects.append({} if token == "{" else None)
            expect_key = token == "{"
        elif token in "}]":
            objects.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(objects) and objects[-1] is not None
        elif expect_key:
            line += text.count("\n", at, match.start())
            at = match.start()
            key, seen = json.loads(token), objects[-1]
            assert seen is not None
            if key in seen:
                found.append((line, key, seen[key]))
            seen[key] = line
            expect_key = False
    return found


def _toml_twice(message: str, text: str) -> str:
    """tomllib's "Cannot overwrite a value (at line 3, column 14)", with the key it means named."""
    where = re.search(r"\(at line (\d+), column \d+\)$", message)
    if where is None or not message.startswith(("Cannot overwrite", "Cannot declare")):
        return message
    number = int(where.group(1))
    lines = text.splitlines()
    said = lines[number - 1].strip() if number <= len(lines) else ""
    key = said.strip("[] ") if said.startswith("[") else said.partition("=")[0].strip()
    return f"line {number}: key {echo.name(key)} is given twice (TOML allows each key once): {message}"


def strip_jsonc(text: str) -> str:
    """``text`` with its comments blanked and its trailing commas dropped; strings, line and column numbers kept."""
    out: list[str] = []
    i, n = 0, len(text)
    pending = -1  # where in ``out`` the last comma is, while only blanks and comments follow it
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i, pending = j + 1, -1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))  # line numbers stay right
            i = j
        elif c == ",":
            pending = len(out)
            out.append(c)
            i += 1
        elif c in "}]" and pending >= 0:
            out[pending] = " "  # a trailing comma: JSON has none
            out.append(c)
            i, pending = i + 1, -1
        else:
            if not c.isspace():
                pending = -1
            out.append(c)
            i += 1
    return "".join(out)


def _yaml(text: str, shown: str, warn: Warn | None = None) -> JSON:
    import yaml  # PyYAML: only for a YAML file (Continue, goose)

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.YAMLError(f"line {event.start_mark.line + 1}: an alias (*{event.anchor}): aliases are not read")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
            seen: dict[str, int] = {}
            for key, _ in node.value:
                if warn is not None and isinstance(key, yaml.ScalarNode):
                    line = key.start_mark.line + 1
                    if key.value in seen:
                        warn(DuplicateKey.of(shown, line, key.value, seen[key.value]))
                    seen[key.value] = line
            return super().construct_mapping(node, deep)

    try:
        value = yaml.load(text, Loader=NoAliases)  # noqa: S506  (a safe loader, aliases refused)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" (line {where.line + 1}, column {where.column + 1})" if where is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{shown}: not valid YAML{at}: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{shown}: {nesting.too_deep()}") from None
    if nesting.depth(value, nesting.MAX_NESTING) > nesting.MAX_NESTING:
        raise ConfigError(f"{shown}: {nesting.too_deep()}")
    return value
