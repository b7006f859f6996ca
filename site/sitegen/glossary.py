"""The glossary's terms, linked from their first use on each lesson page.

site/docs/glossary.md holds the definitions: one ``### term {#anchor}`` heading each,
with the spellings to link on the next line, ``<!-- matches: tool pool, pools, pool -->``
(longest first wins where two overlap). ``link(markdown, href)`` turns the first use of
each term in a page's prose into a link to its definition. It leaves alone fenced blocks,
code spans, headings, existing links, HTML, and the marker lines of tabs and admonitions,
so nothing inside code or a diagram changes.

Not handled: a term split across two lines, and reference-style links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ENTRY = re.compile(r"^### (?P<title>.+?) \{#(?P<anchor>[a-z0-9-]+)\}\s*\n<!--\s*matches:\s*(?P<matches>.+?)\s*-->", re.M)
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.M | re.S)
# Spans of a prose line that must stay as they are: code, links and images, HTML tags, URLs.
PROTECTED = re.compile(r"`+[^`]*`+|!?\[[^\]]*\]\([^)]*\)|\[[^\]]*\]|<[^>]+>|https?://\S+|\{[^}]*\}")
SKIP_LINE = re.compile(r"^\s*(#|<|===|\?\?\?|!!!|\||$)")


@dataclass(frozen=True)
class Term:
    anchor: str
    pattern: re.Pattern


def terms(page: Path) -> list[Term]:
    found = []
    for entry in ENTRY.finditer(page.read_text(encoding="utf-8")):
        words = sorted((w.strip() for w in entry["matches"].split(",") if w.strip()), key=len, reverse=True)
        alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s") for w in words)
        found.append(Term(entry["anchor"], re.compile(rf"(?<![\w/.$`-])({alternatives})(?![\w/`-])", re.I)))
    return found


def link(markdown: str, href: str, glossary: list[Term]) -> str:
    """``markdown`` with the first use of each term linked to ``href#anchor`` (a term it links already is left as it is)."""
    todo = [term for term in glossary if f"]({href}#{term.anchor})" not in markdown]
    out, at = [], 0
    for fence in FENCE.finditer(markdown):
        out.append(_prose(markdown[at:fence.start()], href, todo))
        out.append(fence.group(0))
        at = fence.end()
    out.append(_prose(markdown[at:], href, todo))
    return "".join(out)


def _prose(text: str, href: str, todo: list[Term]) -> str:
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not todo or SKIP_LINE.match(line) or line.startswith("    "):
            continue
        spans = [(m.start(), m.end()) for m in PROTECTED.finditer(line)]
        for term in list(todo):
            match = next((m for m in term.pattern.finditer(line)
                          if not any(a <= m.start() < b or a < m.end() <= b for a, b in spans)), None)
            if match is None:
                continue
            new = f"[{match.group(1)}]({href}#{term.anchor})"
            line = line[:match.start()] + new + line[match.end():]
            shift = len(new) - (match.end() - match.start())
            spans = [(a + shift if a >= match.end() else a, b + shift if b >= match.end() else b) for a, b in spans]
            spans.append((match.start(), match.start() + len(new)))
            todo.remove(term)
        lines[n] = line
    return "\n".join(lines)
