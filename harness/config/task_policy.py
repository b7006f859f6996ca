"""The ``tasks`` field of a server's entry: whether its long tools run as tasks (s39, ``harness.tasks``).

    "on"                 (the default) the tasks extension is declared; a task the server starts is
                         polled under the call timeout, which each new status starts again, and
                         cancelled (``tasks/cancel``) when it runs out
    "off"                not declared: the server answers every call itself, and a tool that runs
                         only as a task is left out, as before s39
    ["render_video"]     declared, and these tools are long: their tasks are polled for as long as
                         the server answers the polls, the call timeout started again at each one

2026-07-28 leaves the choice of a task to the server (SEP-2663: the client only declares that
it can follow one), so the field says whether the harness may be given tasks and how long it
waits for a tool's, not which calls become one.

``check`` raises ``ConfigError`` naming the server and the field, in these words; the part
(``harness.tasks.Tasks``) says it as a warning and keeps the default. Not handled here: what
following a task is (``harness.tasks``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.errors import ConfigError

FIELD = "tasks"


@dataclass(frozen=True)
class TaskPolicy:
    """Whether the extension is declared, and the tools whose tasks are waited for as long as they are polled."""

    declared: bool = True
    long: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, value: object, where: str) -> TaskPolicy:
        if value == "on":
            return cls()
        if value == "off":
            return cls(declared=False)
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return cls(long=frozenset(value))
        raise ConfigError(f"{where}: expected \"on\", \"off\" or a list of tool names (the long ones), not {value!r:.60}")


def policy(server: str, raw: Mapping[str, object]) -> TaskPolicy:
    """``server``'s policy from its entry as written, or ``ConfigError`` naming the server and the field."""
    if FIELD not in raw:
        return TaskPolicy()
    return TaskPolicy.parse(raw[FIELD], f"server '{server}': field '{FIELD}'")
