r"""Excerpts of pinned files and source code in hand-written pages, read at build time.

Two HTML comments in a page under site/docs/ are replaced when the site is built:

    <!-- excerpt: s19/default.transcript /^tools \\(/ -->            one line: the first that matches
    <!-- excerpt: s19/default.transcript /^  -> mcp__deploy__status/ 4 -->   4 lines from there
    <!-- excerpt: s22/default.transcript /^system\\| Connected/ to /^pool:/ -->  up to the line matching the end
    <!-- excerpt: s23/default.frames /"method": "initialize"/ 2 as wire -->    frames, printed as --wire prints them
    <!-- excerpt: lessons/s19/scenario.yaml /^prompt:/ 7 -->        any file of the repository
    <!-- excerpt: README.md /^# 1\./ to /pytest$/ as sh -->         highlighted as a language named
    <!-- source: mock_servers/docs.py -->                           a whole source file
    <!-- source: mock_servers/serve.py build main -->               named symbols of it

A path that starts with ``sNN/`` is in tests/snapshots/; any other is relative to the
repository root. Patterns are Python regular expressions, searched line by line. Each
excerpt is a fenced block with a caption naming the file and lines, so it can be checked
against its source and can never go stale silently: a file or pattern that is not found
raises ``ExcerptError``, which the hook logs as a warning (a failed ``--strict`` build).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sitegen.code import Missing, excerpt
from sitegen import words
from sitegen.render import fence

EXCERPT = re.compile(r"<!--\s*excerpt:\s*(?P<file>\S+)\s+/(?P<start>.+?)/(?:\s+(?P<count>\d+)|\s+to\s+/(?P<end>.+?)/)?"
                     r"(?:\s+as\s+(?P<lang>[a-z]+))?\s*-->")
SOURCE = re.compile(r"<!--\s*source:\s*(?P<file>\S+)(?P<symbols>(?:\s+[A-Za-z_][\w.]*)*)\s*-->")


class ExcerptError(Exception):
    pass


def _path(repo: Path, name: str) -> tuple[Path, str]:
    rel = f"tests/snapshots/{name}" if re.match(r"^s\d\d/", name) else name
    path = (repo / rel).resolve()
    if repo not in path.parents or not path.is_file():
        raise ExcerptError(f"excerpt: no file {rel}")
    return path, rel


def _wire(line: str) -> str:
    from harness.transcript import render  # the one rendering of a frame, as --wire prints it

    return render(json.loads(line))


def lines_of(repo: Path, name: str, start: str, count: int | None = None, end: str | None = None) -> tuple[str, list[str], int]:
    """(repo-relative path, the lines, the first line's number)."""
    path, rel = _path(repo, name)
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next((i for i, line in enumerate(lines) if re.search(start, line)), None)
    if first is None:
        raise ExcerptError(f"excerpt: no line of {rel} matches /{start}/")
    if end is not None:
        last = next((i for i in range(first, len(lines)) if re.search(end, lines[i])), None)
        if last is None:
            raise ExcerptError(f"excerpt: no line of {rel} after line {first + 1} matches /{end}/")
        return rel, lines[first:last + 1], first + 1
    return rel, lines[first:first + (count or 1)], first + 1


def caption(rel: str, first: int, count: int, extra: str = "", lang: str = "en") -> str:
    return f"<p class=\"mcp-source\">{words.source(lang, f'<code>{rel}</code>', first, first + count - 1, extra)}</p>"


def expand(markdown: str, repo: Path, lang: str = "en") -> str:
    """Replace every excerpt and source comment in ``markdown`` (captioned in ``lang``: a zh or ja page's)."""
    page = lang

    def one_excerpt(match: re.Match) -> str:
        rel, lines, first = lines_of(repo, match["file"], match["start"], int(match["count"]) if match["count"] else None, match["end"])
        wire = match["lang"] == "wire"
        text = "\n".join(_wire(line) for line in lines) if wire else "\n".join(lines)
        lang = "text" if wire or rel.endswith((".transcript", ".frames")) else Path(rel).suffix.lstrip(".") or "text"
        lang = {"py": "python", "yml": "yaml", "frames": "json"}.get(lang, lang)
        if match["lang"] and not wire:
            lang = match["lang"]
        note = words.SOURCE[page]["wire"] if wire else ""
        return caption(rel, first, len(lines), note, page) + "\n\n" + fence(text, lang)

    def one_source(match: re.Match) -> str:
        path, rel = _path(repo, match["file"])
        symbols = match["symbols"].split()
        if not symbols:
            text = path.read_text(encoding="utf-8")
            whole = words.SOURCE[page]["whole"].format(file=f"<code>{rel}</code>")
            return f"<p class=\"mcp-source\">{whole}</p>\n\n" + fence(text, "python")
        try:
            parts = excerpt(path, symbols)
        except Missing as exc:
            raise ExcerptError(f"source: {rel}: {exc}") from None
        return "\n\n".join(caption(rel, first, last - first + 1, f" (<code>{symbol}</code>)", page) + "\n\n" + fence(text, "python")
                           for symbol, first, last, text in parts)

    return SOURCE.sub(one_source, EXCERPT.sub(one_excerpt, markdown))
