"""A config file's text into a document: JSON, JSON with comments (JSONC), TOML or YAML.

``decode(text, kind, shown)`` is the one place a config's text is parsed. Each error is
one line naming the file and where (``not valid JSON (line 2, column 3): ...``):

    json    strict JSON, through ``harness.nesting`` (its nesting limit)
    jsonc   what Zed and VS Code accept in their settings: ``//`` and ``/* */`` comments and
            trailing commas, stripped here (``strip_jsonc``), then strict JSON
    toml    ``tomllib`` (Codex's ``config.toml``)
    yaml    PyYAML's safe loader, with aliases refused: a file of a few KiB could otherwise
            expand to gigabytes (Continue, goose)

Introduced by issue 21 (every client's format). Not handled here: JSON5 beyond comments
and trailing commas (single quotes, unquoted keys), YAML tags.
"""

from __future__ import annotations

import json
from typing import Any

from harness import nesting
from harness.errors import ConfigError


def decode(text: str, kind: str, shown: str) -> Any:
    """The document in ``text``; a ``ConfigError`` naming ``shown`` if it does not parse."""
    if kind == "toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{shown}: not valid TOML: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{shown}: {nesting.too_deep()}") from None
    if kind == "yaml":
        return _yaml(text, shown)
    try:
        return nesting.loads(strip_jsonc(text) if kind == "jsonc" else text)
    except nesting.TooDeep as exc:
        raise ConfigError(f"{shown}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{shown}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None


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


def _yaml(text: str, shown: str) -> Any:
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.YAMLError(f"line {event.start_mark.line + 1}: an alias (*{event.anchor}): aliases are not read")
            return super().compose_node(parent, index)

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
