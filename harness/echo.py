"""Text from strangers, made safe to echo: control and bidi characters escaped, length capped.

A server names its tools, describes them and words its errors as it likes; a model (or a
config file) names the server to connect. When the harness repeats such text, to the model
in a tool result or to the terminal in a transcript line, it passes through here first:

- every character that is invisible or rearranges the text around it is shown escaped,
  Python-style: controls (``\\x00``, ``\\x1b``), newlines and tabs (``\\n``, ``\\t``), bidi
  overrides and isolates (``\\u202e``, ``\\u2066``), zero-width and other format characters
  (``\\u200b``, ``\\ufeff``), line and paragraph separators, lone surrogates, private-use and
  unassigned code points. Letters of every script, accents and emoji pass unchanged;
- ``name(text)`` is for one identifier inside a sentence: the result is quoted, a backslash
  is doubled (so ``\\u202e`` typed by the server and a real U+202E never look alike), and at
  most ``NAME_CHARS`` characters of it are shown, followed by the stated cut
  ``... (cut: 102400 characters)``;
- ``text(message)`` is for a message of several lines (an error naming a server's stderr):
  its line breaks are the harness's own layout and stay, everything else is escaped as
  above, and at most ``TEXT_CHARS`` characters are shown, with the same stated cut;
- ``line(text)`` is for text that must stay on one line (a tool's description in a list):
  line breaks are escaped too;
- ``terminal(text)`` is for whatever goes out to a terminal as it is, whole: every line of
  a transcript (``harness.transcript``), every write of the user CLI
  (``harness.terminal``) and every question asked on the terminal (``harness.ask``) pass
  it, so a server's text reaches no terminal raw by any path.

A cut is counted in characters of the original, and never splits an escape.

Used from s19 on: ``harness.mcp_client`` (a call refused before it is sent), ``harness.naming``,
``harness.schemas`` and ``harness.pool`` show names and text through it, and so do the
guard (a dropped tool, a bad answer), the file tools (a model-given path), the HTTP
transports (an error body) and auth (the authorization server's refusal): one escaper
and one cut marker. Not handled here: confusable letters (a Cyrillic ``а`` for a
Latin ``a``): they are real letters, and the model-facing names (``harness.naming``) are
plain ASCII anyway.
"""

from __future__ import annotations

import sys
import unicodedata

NAME_CHARS = 128  # the longest tool name the MCP spec (2025-11-25) recommends; a model-facing one is at most 64
TEXT_CHARS = 2000  # an error message with a stderr tail of a few lines fits; a flood does not
_SHOWN = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# Cc controls, Cf format (bidi, zero-width, BOM), Cs lone surrogates, Co private use, Cn
# unassigned, Zl/Zp line and paragraph separators (U+2028 and U+2029 break lines in editors).
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def char(c: str) -> str:
    """One character as it is echoed: itself, or its escape."""
    if c in _SHOWN:
        return _SHOWN[c]
    if c.isascii() and c.isprintable():  # the common case, without a Unicode table lookup
        return c
    if unicodedata.category(c) not in _HIDDEN:
        return c
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown(text: str, limit: int, keep: str = "", double_backslash: bool = False) -> str:
    # str.isprintable is False for every category hidden here (and for spaces other than " "):
    # text it passes needs no escape, and is checked at C speed.
    if len(text) <= limit and (text.replace(keep, "") if keep else text).isprintable() and not (double_backslash and "\\" in text):
        return text
    parts: list[str] = []
    used = 0
    for i, c in enumerate(text):
        piece = c if c in keep else "\\\\" if double_backslash and c == "\\" else char(c)
        if used + len(piece) > limit:
            return "".join(parts) + f"... (cut: {len(text)} characters)"
        parts.append(piece)
        used += len(piece)
    return "".join(parts)


def name(value: object, limit: int = NAME_CHARS) -> str:
    """One name, quoted, escaped and cut: ``'docs'``, ``'evil\\u202etxt'``, ``'aaa...' (cut: 102400 characters)``."""
    text = value if isinstance(value, str) else repr(value)
    shown = _shown(text, limit, double_backslash=True)
    body, cut, rest = shown.partition("... (cut: ")
    return f"'{body}...' (cut: {rest}" if cut else f"'{body}'"


def count(n: int, noun: str) -> str:
    """``1 tool``, ``2 tools``: a number and its noun (one that takes an s)."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def names(values: list[str], limit: int = 100) -> str:
    """Several names, comma-separated (each unquoted when it is plain ASCII), at most ``limit`` of them."""
    shown = [v if _plain(v) else name(v) for v in values[:limit]]
    more = len(values) - limit
    return ", ".join(shown) + (f", and {more} more" if more > 0 else "")


def text(value: str, limit: int = TEXT_CHARS) -> str:
    """A message, escaped except for its line breaks, and cut at ``limit`` characters."""
    return _shown(value, limit, keep="\n")


def terminal(value: str) -> str:
    """Text on its way to a terminal, whole: escaped except for its line breaks, never cut.

    For what the harness writes out as it is (a transcript's lines, the CLI's streams, a
    question): a bare carriage return, a screen clear or a bidi override in it is shown
    as its escape, so it can neither overwrite a line nor rearrange one. A line break
    written ``\r\n`` is a line break.
    """
    return _shown(value.replace("\r\n", "\n") if "\r" in value else value, sys.maxsize, keep="\n")


def line(value: str, limit: int = TEXT_CHARS) -> str:
    """Text on one line: escaped, line breaks included, and cut at ``limit`` characters."""
    return _shown(value, limit)


def _plain(value: str) -> bool:
    return 0 < len(value) <= NAME_CHARS and all(c.isalnum() and c.isascii() or c in "_-." for c in value)
