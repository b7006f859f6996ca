"""A tool's definition: what an approval is for, and which parts of it changed between two listings.

A server may list a tool again (after ``notifications/tools/list_changed``, a reconnect, a
reload) under the same name with another description, schema or annotations: the tool
the user said "always" to ("Reads a file") can come back as "Deletes every file in your
home folder" with ``destructiveHint: true``. So an answer is kept with the definition it
was given for (``of``), and ``changes`` names what differs, in the words a note or a
question shows: ``description``, ``inputSchema``, ``annotations.destructiveHint``.

Introduced by s30 (the relist note after ``list_changed`` names a tool redefined under
its name, ``harness.resources``); s31 keeps each "always" answer with its definition
(``harness.permissions``). Not handled here: whether a change is harmless (a fixed
typo asks again too: a definition is the same or it is not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness import echo
from harness.jsonvalue import JSONMapping, JSONObject

PARTS = ("title", "description", "inputSchema", "outputSchema", "annotations")  # of a tools/list entry


def of(tool: Any) -> JSONObject:
    """The definition of a ``harness.tools.Tool`` (or of a listing entry) in a listing's shape, to compare."""
    if isinstance(tool, Mapping):
        return {part: tool.get(part) for part in PARTS if tool.get(part) is not None}
    return {"description": tool.description, "inputSchema": dict(tool.input_schema), "annotations": dict(tool.annotations)}


def changes(before: JSONMapping, after: JSONMapping) -> list[str]:
    """The parts that differ between two definitions (``of``'s shape), each annotation by its own name."""
    found: list[str] = []
    for part in PARTS:
        old, new = before.get(part), after.get(part)
        if old == new:
            continue
        if part == "annotations" and isinstance(old or {}, Mapping) and isinstance(new or {}, Mapping):
            old, new = old or {}, new or {}
            found += [f"annotations.{echo.line(str(k), 60)}" for k in sorted({*old, *new}, key=str) if old.get(k) != new.get(k)]
        else:
            found.append(part)
    return found
