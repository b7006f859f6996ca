"""The sentences an exercise check fails with: what was expected, and what was found.

A check (``check(result)`` in ``exercises/sNN/N_slug/solution.py``) asserts with these
helpers instead of a bare ``assert``, so a wrong answer reads as one sentence a learner can
act on::

    expected 2 lines starting '  <! ', found 1: "  <! server 'deploy': ..."

and never as a raw tuple or a whole transcript. Each helper raises ``Mismatch`` (an
``AssertionError``), whose text is at most five lines, and whose first line starts
``expected`` and names what was ``found``. Values are shown cut to one short line.
``tests/test_exercises.py`` runs every check on a wrong answer and holds it to that form.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

WIDTH = 110  # a shown value is cut to this many characters


class Mismatch(AssertionError):
    """A check that failed: ``expected ..., found ...``, at most five lines."""


def show(value: Any, width: int = WIDTH) -> str:
    """``value`` on one line: its repr (a string's too), cut in the middle past ``width``, so
    both its start and its end (where an error line names what went wrong) stay in view."""
    text = repr(value)
    if len(text) <= width:
        return text
    half = (width - 5) // 2
    return f"{text[:half]} ... {text[-half:]}"


def _lines(run_or_lines: Any) -> list[str]:
    return list(run_or_lines.lines) if hasattr(run_or_lines, "lines") else list(run_or_lines)


def fail(expected: str, found: str) -> None:
    """The general form: ``expected EXPECTED, found FOUND``."""
    raise Mismatch(f"expected {expected}, found {found}")


def that(condition: Any, expected: str, found: str) -> None:
    """``fail(expected, found)`` unless ``condition`` holds."""
    if not condition:
        fail(expected, found)


def equal(found: Any, expected: Any, what: str) -> None:
    """``found == expected``, else: expected WHAT EXPECTED, found FOUND."""
    if found != expected:
        fail(f"{what} {show(expected)}", show(found))


def exit_code(run: Any, code: int) -> None:
    """The run ended with exit code ``code``; else the code it ended with and its last line."""
    if run.code != code:
        last = run.lines[-1] if run.lines else "(no output)"
        fail(f"exit code {code}", f"{run.code}, after the line {show(last)}")


def _nearest(line: str, lines: list[str]) -> str:
    close = difflib.get_close_matches(line, lines, n=1, cutoff=0.5)
    return f"the nearest is {show(close[0])}" if close else "no line like it"


def has_line(run_or_lines: Any, line: str, where: str = "in the run") -> None:
    """The exact ``line`` is printed; else the nearest line that is."""
    lines = _lines(run_or_lines)
    if line not in lines:
        fail(f"the line {show(line)} {where}", _nearest(line, lines))


def line_at(run_or_lines: Any, line: str, where: str = "in the run") -> int:
    """Where the exact ``line`` is (its index); fails as ``has_line`` does."""
    lines = _lines(run_or_lines)
    has_line(lines, line, where)
    return lines.index(line)


def count(items: Iterable[Any], n: int, what: str) -> list[Any]:
    """Exactly ``n`` items; else how many, and the first of them."""
    items = list(items)
    if len(items) != n:
        first = f": {show(items[0])}" if items else ""
        fail(f"{n} {what}", f"{len(items)}{first}")
    return items


def starting(run_or_lines: Any, prefix: str, n: int | None = None) -> list[str]:
    """The lines that start with ``prefix`` (exactly ``n`` of them, if given)."""
    found = [line for line in _lines(run_or_lines) if line.startswith(prefix)]
    if n is not None:
        count(found, n, f"line{'s' if n != 1 else ''} starting {show(prefix)}")
    return found


def first_starting(run_or_lines: Any, prefix: str) -> str:
    """The first line that starts with ``prefix``; else: expected one, found none."""
    found = starting(run_or_lines, prefix)
    that(found, f"a line starting {show(prefix)}", "none")
    return found[0]


def contains(text: str, part: str, what: str) -> None:
    """``part`` is in ``text``; else what ``text`` is."""
    if part not in text:
        fail(f"{what} to contain {show(part)}", show(text))


def none_of(items: Iterable[Any], test: Callable[[Any], bool], what: str) -> None:
    """No item passes ``test``; else how many did, and the first."""
    hits = [item for item in items if test(item)]
    if hits:
        fail(f"no {what}", f"{len(hits)}: {show(hits[0])}")
