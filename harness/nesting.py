"""JSON from outside, read with a nesting limit: ``loads(text)``, or ``TooDeep``.

Python's own parser gives up with a ``RecursionError`` somewhere near a thousand levels,
and what sits above it rarely expects one: a config file, a call's arguments or an
``--answer`` nested that deep ended runs with a traceback. Every place that parses JSON
a person, a file or a model wrote goes through ``loads``, which refuses nesting past
``MAX_NESTING`` levels, a named limit, with one ``ValueError`` that says so. Frames from
servers are bounded where they are read (``harness.guard``).

Not handled here: YAML (``harness.model`` bounds the
scenario loader itself).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

MAX_NESTING = 100  # levels of arrays and objects; real configs and arguments use under ten


class TooDeep(ValueError):
    """JSON nested past the limit: the text, file or argument is refused whole."""


def loads(text: str | bytes, limit: int = MAX_NESTING, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """``json.loads``, refusing nesting past ``limit`` levels (``TooDeep``); a syntax error is ``json.JSONDecodeError``."""
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise TooDeep(too_deep(limit)) from None
    if depth(value, limit) > limit:
        raise TooDeep(too_deep(limit))
    return value


def depth(value: Any, stop: int | None = None) -> int:
    """How deep arrays and objects nest in ``value`` (a scalar: 0), without recursion; stops counting past ``stop``."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if stop is not None and deepest > stop:
            return deepest
        todo.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def too_deep(limit: int = MAX_NESTING) -> str:
    return f"nested deeper than {limit} levels (nesting limit)"
