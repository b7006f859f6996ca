"""Markdown building blocks shared by the page generators."""

from __future__ import annotations

import re
import textwrap


def fence(text: str, lang: str, title: str | None = None) -> str:
    """A fenced block that survives backticks inside ``text``."""
    ticks = "`" * max(3, 1 + max(map(len, re.findall(r"`+", text)), default=0))
    head = f'{ticks}{lang}' + (f' title="{title}"' if title else "")
    return f"{head}\n{text.rstrip()}\n{ticks}"


def indent(text: str, by: int = 4) -> str:
    """Every line indented, blank ones included (tabs and details need their bodies whole)."""
    return textwrap.indent(text, " " * by, lambda _: True)


def tabs(items: list[tuple[str, str]]) -> str:
    """pymdownx.tabbed markup. A title is markdown, so ``__init__.py`` would turn bold: it is escaped."""
    escaped = [(re.sub(r"([_*`])", r"\\\1", title), body) for title, body in items]
    return "\n\n".join(f'=== "{title}"\n\n' + indent(body) for title, body in escaped)


def details(kind: str, title: str, body: str, open_: bool = False) -> str:
    """A pymdownx.details block: folded unless ``open_``."""
    return f'???{"+" if open_ else ""} {kind} "{title}"\n\n' + indent(body)


def admonition(kind: str, title: str, body: str) -> str:
    return f'!!! {kind} "{title}"\n\n' + indent(body)


def note(text: str) -> str:
    return admonition("note", "Not there yet", text)
