"""The tools a config lets a server offer: Gemini CLI's ``includeTools``/``excludeTools``, Codex's
``enabled_tools``/``disabled_tools``, goose's ``available_tools``, Windsurf's ``disabledTools``.

The readers normalize each into ``ServerConfig.include_tools`` (only these; None: all) and
``exclude_tools`` (never these; exclusion wins, as in Gemini CLI and Codex). This module is
a connection mechanism (``harness.hooks.Mechanism``) that ``harness.config.wiring``
plugs in for a server with a filter:

- ``listed``: every ``tools/list``, at connect and again after
  ``notifications/tools/list_changed`` (s30), is cut to the allowed tools, so the hub, the
  pool and the CLI's ``tools`` never see the others;
- ``call``: a call to a filtered tool is refused without reaching the server, whatever
  the model or the user typed.

Introduced by issue 21.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.hooks import Mechanism, Proceed
from harness.results import ToolResult

PLUG = "harness.config.toolfilter:plug"


def allowed(name: str, include: Sequence[str] | None, exclude: Sequence[str]) -> bool:
    return name not in exclude and (include is None or name in include)


class ToolFilter(Mechanism):
    def __init__(self, include: Sequence[str] | None, exclude: Sequence[str]) -> None:
        self.include, self.exclude = include, tuple(exclude)
        self.conn: Any = None

    def bind(self, conn: Any) -> None:
        self.conn = conn

    def listed(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [t for t in tools if allowed(str(t.get("name")), self.include, self.exclude)]

    async def call(self, tool: str, arguments: dict[str, Any], proceed: Proceed) -> ToolResult:
        if not allowed(tool, self.include, self.exclude):
            return ToolResult.failure(f"server '{self.conn.name}': tool '{tool}' is not offered: its config leaves it out")
        return await proceed()


def plug(options: dict[str, Any]) -> ToolFilter | None:
    """``Connections.open``'s ``tool_filter=(include, exclude)``: the mechanism, or none without one."""
    given = options.pop("tool_filter", None)
    return None if given is None else ToolFilter(*given)
