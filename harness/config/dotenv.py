"""dotenv: the ``KEY=VALUE`` lines of an ``envFile``, read as python-dotenv reads them.

python-dotenv's parser is the reference (its ``parse_stream``), rule by rule:

    A=abc # note        abc: an unquoted value ends at whitespace followed by ``#``
    A=abc#x             abc#x: a ``#`` with no whitespace before it is part of the value
    A=  # note          the empty string
    A = abc             abc: whitespace around ``=`` and after the value is dropped
    export A=1          1: an ``export`` prefix is ignored
    A="line1\\nline2"    a newline: double quotes decode \\n \\r \\t \\" \\' \\\\ \\a \\b \\f \\v
    A='a\\nb'            a\\nb as written: single quotes decode only \\' and \\\\
    A="two              a double- or single-quoted value may span lines
    lines"
    A="x" # note        x: a comment may follow a quoted value
    'A'=1               a key may be single-quoted
    A                   a key with no ``=`` has no value: it is not set
    # a comment         skipped, as blank lines are; a byte order mark at the start too

A line python-dotenv cannot parse (``A="x" junk``, a quote never closed) it skips with a
warning; here it is a ``DotenvError`` naming the line, which the config reader turns into
one error naming the file and the server (bad input is never half-used). Values are taken
as written: python-dotenv's optional ``${VAR}`` interpolation is a step after parsing,
which VS Code's and Cursor's own envFile readers do not take either.

Introduced by issue 36 (envFile, VS Code and Cursor; the line-at-a-time reader before it
dropped inline comments' rules and multi-line values). Not handled here: interpolation,
backquoted values (npm dotenv's), and keys or values that are not UTF-8 (read as U+FFFD).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_SPACE = re.compile(r"\s*")  # blank lines and indentation before a binding
_HSPACE = re.compile(r"[^\S\r\n]*")
_EXPORT = re.compile(r"(?:export[^\S\r\n]+)?")
_KEY = re.compile(r"'([^']+)'|([^=#\s]+)")
_EQUALS = re.compile(r"=[^\S\r\n]*")
_SINGLE = re.compile(r"'((?:\\'|[^'])*)'")
_DOUBLE = re.compile(r'"((?:\\"|[^"])*)"')
_UNQUOTED = re.compile(r"[^\r\n]*")
_COMMENT = re.compile(r"(?:[^\S\r\n]*#[^\r\n]*)?")
_END = re.compile(r"[^\S\r\n]*(?:\r\n|\n|\r|$)")
_REST = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)?")
_DOUBLE_ESCAPES = re.compile(r"\\([\\'\"abfnrtv])")
_SINGLE_ESCAPES = re.compile(r"\\([\\'])")
_DECODED = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class DotenvError(ValueError):
    """A line that is no dotenv binding: ``line`` is where it starts (1-based)."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}: not a KEY=VALUE line dotenv can read")
        self.line = line


def values(text: str) -> dict[str, str]:
    """Each key that has a value, with it (a later line wins, as in python-dotenv); ``DotenvError`` on a bad line."""
    return {key: value for key, value in bindings(text) if value is not None}


def bindings(text: str) -> Iterator[tuple[str, str | None]]:
    """Each ``(key, value)`` in order; the value is None for a key with no ``=``."""
    text = text.removeprefix("\ufeff")
    at = 0
    while True:
        at = _SPACE.match(text, at).end()
        if at >= len(text):
            return
        start = at
        at = _EXPORT.match(text, at).end()
        if text.startswith("#", at):  # a comment line
            at = _REST.match(text, at).end()
            continue
        found = _KEY.match(text, at)
        if found is None:
            raise DotenvError(_line(text, start))
        key, at = found.group(1) or found.group(2), _HSPACE.match(text, found.end()).end()
        value: str | None = None
        if text.startswith("=", at):
            equals = _EQUALS.match(text, at)
            value, at = _value(text, equals.end(), spaced=equals.end() - at > 1)
            if value is None:
                raise DotenvError(_line(text, start))
        at = _COMMENT.match(text, at).end()
        end = _END.match(text, at)
        if end is None:
            raise DotenvError(_line(text, start))
        at = end.end()
        yield key, value


def _value(text: str, at: int, spaced: bool) -> tuple[str | None, int]:
    """The value starting at ``at`` and where it ends; None if a quote is never closed."""
    first = text[at:at + 1]
    if first in ("'", '"'):
        quoted = (_SINGLE if first == "'" else _DOUBLE).match(text, at)
        if quoted is None:
            return None, at
        escapes = _SINGLE_ESCAPES if first == "'" else _DOUBLE_ESCAPES
        return escapes.sub(lambda m: _DECODED[m.group(1)], quoted.group(1)), quoted.end()
    if first in ("", "\n", "\r"):
        return "", at
    part = _UNQUOTED.match(text, at)
    raw = part.group(0)
    if spaced and raw.startswith("#"):  # `A=  # note`: only a comment
        return "", part.end()
    return re.sub(r"\s+#.*", "", raw).rstrip(), part.end()


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1 if "\r" not in text else len(re.findall(r"\r\n|\n|\r", text[:at])) + 1
