"""The ``toolSearch`` field of a server's entry: whether its tools are deferred (s36, ``harness.toolsearch``).

    on        defer the server's tools: sent with ``defer_loading``, loaded by ``tool_search``
    server    defer them as ``on`` does, found by the Messages API's own search tool
              (``tool_search_tool_bm25``, run on Anthropic's side): a live model only
    off       send them loaded, as s22 does
    auto      defer when the MCP tool definitions pass 10% of the model's context, or at 30 tools
    auto:N    the same at N% (N from 1 to 100)

The same values are the stack's policy (``--tool-search``) for a server without the field.
``check`` is what ``harness.config.fields`` runs when a file is read, so a bad value fails
that server alone, in these words. Not handled here: what deferring does (``harness.toolsearch``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError, UsageError

FIELD = "toolSearch"
AUTO_PERCENT = 10
KINDS = ("auto", "on", "server", "off")
ACCEPTED = "auto, auto:N (N a percent, 1 to 100), on, server or off"
WORDS = {"true": "on", "false": "off"}  # what Claude Code's ENABLE_TOOL_SEARCH takes for on and off


@dataclass(frozen=True)
class Mode:
    """``on``, ``off``, or ``auto`` with its threshold in percent of the context."""

    kind: str
    percent: int = AUTO_PERCENT

    @classmethod
    def parse(cls, text: object, where: str) -> Mode:
        value = text.strip().lower() if isinstance(text, str) else None
        if value in KINDS:
            return cls(value)
        if value is not None and value.startswith("auto:") and value[5:].isdigit() and 0 < int(value[5:]) <= 100:
            return cls("auto", int(value[5:]))
        meant = _meant(value) if value is not None else None
        raise ConfigError(f"{where}: expected {ACCEPTED}, not {text!r:.40}" + (f" (did you mean '{meant}'?)" if meant else ""))

    @property
    def defers(self) -> bool | None:
        """Whether this mode defers whatever the sizes (``on``, ``server``: True; ``off``: False); None for ``auto``."""
        return None if self.kind == "auto" else self.kind != "off"

    def __str__(self) -> str:
        return f"auto:{self.percent}" if self.kind == "auto" else self.kind


def _meant(value: str) -> str | None:
    """The value a near miss meant: Claude Code's ENABLE_TOOL_SEARCH words (true, false), or a misspelt one."""
    import difflib  # only for a bad value

    return WORDS.get(value) or next(iter(difflib.get_close_matches(value, KINDS, n=1, cutoff=0.7)), None)


def check(servers: Sequence[Any]) -> None:
    """Each server's ``toolSearch`` field, or ``ConfigError`` naming the server and the field."""
    for server in servers:
        if FIELD in server.raw:
            Mode.parse(server.raw[FIELD], f"server '{server.name}': field '{FIELD}'")


def live_only(text: str | None, live: bool, option: str = "--tool-search") -> None:
    """``UsageError`` for ``server`` without a live model: no scripted model can run the API's search."""
    if text is not None and not live and Mode.parse(text, option).kind == "server":
        raise UsageError(f"{option} server needs --live: the Messages API runs that search, and the scripted model "
                         "cannot (offline, use on: the harness's own tool_search)")


def argument(text: str) -> str:
    """``--tool-search``'s value, checked as the command line is parsed (argparse's ``type=``)."""
    try:
        Mode.parse(text, "--tool-search")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--tool-search: ")) from None
    return text
