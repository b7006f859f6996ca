"""The one section order of a lesson README (shared/HOUSE_STYLE.md), checked by tests/test_readmes.py.

A README is ``# sNN: title``, an introduction, then exactly these ``##`` sections in this
order. *Check what you saw* is the quiz, a block generated from ``quiz.yaml``
(sitegen/blocks.py), so a reader off the site has it; the site puts its own quiz after the
viewer instead, and adds the goal box, the viewer, the code and the pinned run.
"""

from __future__ import annotations

import re

SECTIONS = ("How it works", "What changed", "Try it", "Check what you saw", "How real runtimes do it", "Exercises", "What's next")
HEADING = re.compile(r"^(#{1,2}) (.+?)\s*$", re.MULTILINE)


def sections(readme: str) -> list[str]:
    """The ``##`` headings outside fenced blocks, in order."""
    prose = re.sub(r"^[ \t]*(`{3,}).*?^[ \t]*\1[ \t]*$", "", readme, flags=re.M | re.S)
    return [m.group(2) for m in HEADING.finditer(prose) if m.group(1) == "##"]


def order_problem(readme: str) -> str | None:
    found = sections(readme)
    if tuple(found) == SECTIONS:
        return None
    return f"sections {found}, expected {list(SECTIONS)}"
