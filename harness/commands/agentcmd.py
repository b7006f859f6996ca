"""``mcp-course agents [--json]``, and chat's subagents: s38's agent files on the user CLI.

- ``chat`` reads the agents of the project (``.claude/agents/*.md`` in the working folder) and
  of the user (``~/.claude/agents/``, under ``--home``), and offers the lead the ``task`` tool
  over them (``harness.subagents.Agents``). A file that does not load is a warning naming it
  and its field; the others load. With no agent file, chat is as before.
- ``agents`` lists each agent: where it comes from, its turn budget, the tools it would get
  now from the connected servers (its allowlist over them, as ``task`` would give them), and
  the servers only its file defines, which start only when it runs. ``--json`` gives the same
  as data.

A CLI extension (``harness.commands.extension``), imported when the parser is built: nothing
heavy at its top. Not handled here: the agents themselves (``harness.agents``, ``harness.subagents``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from harness.commands.extension import Command, Extension

if TYPE_CHECKING:
    from harness.agents import Found
    from harness.parts import Part
    from harness.stack import Stack

SHOWN = {"project": ".claude/agents", "user": "~/.claude/agents"}


class AgentCommands(Extension):
    """``agents`` and chat's ``task`` tool."""

    commands = (Command("agents", "list the subagents (.claude/agents, ~/.claude/agents) and the tools each would get now", json=True),)

    def parts(self, args: argparse.Namespace) -> list[Part]:
        if args.command != "chat":
            return []
        found = read(args)
        if not found.agents and not found.problems:
            return []
        from harness.subagents import Agents  # the loop and the pool: only for a chat with agent files

        return [Agents(list(found.agents.values()), warnings=(*found.problems, *found.notes))]

    async def run(self, args: argparse.Namespace, stack: Stack | None, out: TextIO, err: TextIO) -> int | None:
        if args.command != "agents" or stack is None:
            return None
        found = read(args)
        for line in (*found.problems, *found.notes):
            err.write(f"warning: {line}\n")
        rows = listing(found, stack)
        if args.json:
            out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        else:
            out.write(text(rows))
        return 0


EXTENSION = AgentCommands()


def read(args: argparse.Namespace) -> Found:
    """The agent files of the user (under ``--home``) and of the working folder's project."""
    from harness import agents  # YAML and the config readers: only for chat and agents

    return agents.load(agents.folders(args.home, Path.cwd()), shown=SHOWN)


def listing(found: Found, stack: Stack) -> list[dict[str, object]]:
    """One row per agent: what ``agents`` prints, and ``--json`` gives."""
    from harness.resources import WithResources  # the built-ins chat would offer (the resource tools): once connected
    from harness.subagents import allowed_tools  # the agent's pool, as the task tool builds it

    builtins = WithResources([], stack.hub)
    rows: list[dict[str, object]] = []
    for agent in found.agents.values():
        tools = allowed_tools(agent, builtins, stack.hub.clients)
        rows.append({"name": agent.name, "description": agent.description, "source": agent.source, "scope": agent.scope,
                     "max_turns": agent.max_turns, "servers": list(agent.servers) if agent.servers is not None else None,
                     "own_servers": [s.name for s in agent.inline], "tools": [t.name for t in tools],
                     "not_connected": {name: entry.state.value for name, entry in sorted(stack.hub.entries.items())
                                       if name not in stack.hub.clients and agent.may_use(name)},
                     "not_run": list(agent.ignored)})
    return rows


def text(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "no agents: none in .claude/agents or ~/.claude/agents\n"
    from harness import echo  # the description is a file's words: escaped and cut like any echo

    lines = []
    for row in rows:
        turns = f"{row['max_turns']} turns at most" if row["max_turns"] else "the default turn budget"
        lines.append(f"{row['name']}  {row['source']} ({row['scope']}), {turns}: {echo.line(str(row['description']), 200)}")
        tools = row["tools"]
        assert isinstance(tools, list)
        lines.append(f"  tools now ({len(tools)}): {', '.join(tools) if tools else 'none'}")
        waiting = row.get("not_connected")
        if isinstance(waiting, dict) and waiting:  # why a pool is smaller than the file says: servers it may use, not up
            lines.append(f"  not connected: {', '.join(f'{name} ({state})' for name, state in waiting.items())}")
        own = row["own_servers"]
        if own:
            assert isinstance(own, list)
            lines.append(f"  its own servers, started when it runs: {', '.join(own)}")
    return "\n".join(lines) + "\n"
