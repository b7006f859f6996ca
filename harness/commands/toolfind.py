"""``tools --search QUERY [--limit N]`` and chat's ``--tool-search POLICY``: s36's tool search on the user CLI.

- ``tools --search "send a direct message"`` ranks the connected servers' tools as
  ``tool_search`` would (``harness.toolindex``: the three query forms, name, searchHint,
  parameters and description), each with its score and why it matched; ``--json`` gives the
  same as data. Every tool is searched, deferred or not: this is the user looking, not the model.
- ``chat --tool-search auto|auto:N|on|off`` puts ``harness.toolsearch.ToolSearch`` in chat's
  stack with that policy; without the flag chat's pool is s22's, every definition loaded.

A CLI extension (``harness.commands.extension``), imported when the parser is built: nothing
heavy at the top. Not handled here: the model's side (``harness.toolsearch``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from harness import echo
from harness.cli_types import positive
from harness.commands.extension import Extension
from harness.config.search_policy import argument

if TYPE_CHECKING:
    from harness.parts import Part
    from harness.stack import Stack


class ToolFind(Extension):
    """``tools --search`` and ``chat --tool-search``."""

    def options(self, parsers: Mapping[str, argparse.ArgumentParser]) -> None:
        options(parsers["tools"], parsers["chat"])

    def parts(self, args: argparse.Namespace) -> list[Part]:
        return parts(args)

    async def run(self, args: argparse.Namespace, stack: Stack, out: TextIO, err: TextIO) -> int | None:
        if args.command != "tools" or not args.search:
            return None
        from harness import naming  # the names the model would see: only once servers are connected

        return listed(stack.hub, naming.assign(naming.pairs(stack.hub.clients.values())), args, out)


EXTENSION = ToolFind()


def options(tools: argparse.ArgumentParser, chat: argparse.ArgumentParser) -> None:
    """The options: ``--search`` and ``--limit`` for ``tools``, ``--tool-search`` for ``chat``."""
    tools.add_argument("--search", metavar="QUERY", help="rank the tools for QUERY: keywords, +word (must be in the name), or select:a,b")
    tools.add_argument("--limit", type=positive, default=10, metavar="N", help="with --search: at most N matches (default: 10)")
    chat.add_argument("--tool-search", type=argument, metavar="POLICY",
                      help="defer MCP tools and offer tool_search: auto, auto:N (N%% of the context), on or off (default: every tool loaded)")


def parts(args: argparse.Namespace) -> list[Part]:
    """The stack part chat's ``--tool-search`` asks for (none without it)."""
    policy = vars(args).get("tool_search")
    if policy is None:
        return []
    from harness.toolsearch import ToolSearch  # the loop's types and the index: only when chat asks for the part

    return [ToolSearch(policy)]


def listed(hub: Any, names: Any, args: argparse.Namespace, out: TextIO) -> int:
    """``tools --search``: the ranked matches among the connected servers' tools, or a line saying there are none."""
    from harness.toolindex import Doc, Index, Query  # the index: only for tools --search, not at every parse

    index, descriptions = Index(), {}
    for server, client in hub.clients.items():
        docs = []
        for listing in client.tools:
            name = names.get((server, listing["name"]))
            if name is None:
                continue
            meta = listing.get("_meta") or {}
            hint = " ".join(meta["anthropic/searchHint"].split()) if isinstance(meta.get("anthropic/searchHint"), str) else ""
            schema = listing.get("inputSchema") or {}
            docs.append(Doc(name, server, listing["name"], listing.get("description") or "", hint, tuple(schema.get("properties") or ())))
            descriptions[name] = listing.get("description") or ""
        index.update(server, docs)
    query = Query.parse(args.search)
    matches = index.search(query, args.limit)
    if args.json:
        rows = [{"name": m.name, "server": index.doc(m.name).server, "score": m.score, "why": {f: list(w) for f, w in m.why.items() if w}}
                for m in matches]
        out.write(json.dumps(rows, indent=1) + "\n")
        return 0
    if not matches:
        out.write(f"no tool matches {echo.line(args.search, 200)!r} among {len(index)} tools\n")
        return 0
    width = max(len(m.name) for m in matches)
    for m in matches:
        out.write(f"{m.name:<{width}}  {m.score:6.2f}  {m.explained()}\n    {echo.line(descriptions[m.name], 200)}\n")
    return 0
