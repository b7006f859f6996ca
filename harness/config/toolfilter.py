"""The tools a config lets a server offer: Gemini CLI's ``includeTools``/``excludeTools``, Codex's
``enabled_tools``/``disabled_tools``, goose's ``available_tools``, Windsurf's ``disabledTools``.

The readers normalize each into ``ServerConfig.include_tools`` (only these; None: all) and
``exclude_tools`` (never these; exclusion wins, as in Gemini CLI and Codex). This module is
a connection mechanism (``harness.hooks.Mechanism``) that ``harness.config.wiring``
plugs in for a server with a filter (``of(server)``):

- ``on_listed``: every ``tools/list``, at connect and again after
  ``notifications/tools/list_changed`` (s30), is cut to the allowed tools, so the hub, the
  pool and the CLI's ``tools`` never see the others;
- ``around_call``: a call to a filtered tool is refused without reaching the server, whatever
  the model or the user typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.hooks import Mechanism, Proceed
from harness.jsonvalue import JSON
from harness.results import ToolResult

if TYPE_CHECKING:
    from harness.client import Host
    from harness.config.formats import ServerConfig


def allowed(name: str, include: Sequence[str] | None, exclude: Sequence[str]) -> bool:
    return name not in exclude and (include is None or name in include)


class ToolFilter(Mechanism):
    order = 90

    def __init__(self, include: Sequence[str] | None, exclude: Sequence[str]) -> None:
        self.include, self.exclude = include, tuple(exclude)
        self.name = ""

    def bind(self, host: Host) -> None:
        self.name = host.name

    def on_listed(self, tools: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
        return [t for t in tools if allowed(str(t.get("name")), self.include, self.exclude)]

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        if not allowed(tool, self.include, self.exclude):
            return ToolResult.failure(f"server '{self.name}': tool '{tool}' is not offered: its config leaves it out")
        return await proceed()


def of(server: ServerConfig) -> ToolFilter | None:
    """The filter ``server``'s config asks for, or None when it lets every tool through."""
    if server.include_tools is None and not server.exclude_tools:
        return None
    return ToolFilter(server.include_tools, server.exclude_tools)
