"""s21: safe tool names. Normalize, detect collisions, shorten, map back.

New here: model-facing names come from `harness.naming`. Characters outside
[A-Za-z0-9_-] become `_`; a name over 64 characters is cut and gets a stable hash
suffix (with a warning); two tools that would end up with one name are refused, naming
both, and the servers already connected keep working. Every name maps back to its
(server, tool) by lookup.

The `acme.wiki` server has a dotted name, tools with dots, spaces and accents, and one
very long tool name; `acme wiki` (with a space) normalizes onto the same names.

Not yet: pool order and de-duplication against built-ins (s22).

New module: harness/naming.py

Run: python lessons/s21/code.py            (offline, scripted model)
     python lessons/s21/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys

from harness import lesson, naming
from harness.connect import connect_tool
from harness.hub import Hub
from harness.loop import Turn
from harness.mcp_client import MockClient, agent_tools
from mock_servers.catalog import SERVERS

SYSTEM = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."


async def session(run: lesson.Run) -> None:
    accept = naming.checker(run.transcript.warning, run.transcript.note)  # the hub refuses collisions with it
    async with Hub(run.transcript, accept=accept) as hub:
        for name in SERVERS:
            hub.add(name, lambda name=name: MockClient.connect(SERVERS[name]()))
        builtins = run.workspace.tools() + [connect_tool(hub)]

        def pool() -> Turn:
            return Turn(SYSTEM, tuple(builtins + agent_tools(hub.clients.values(), naming.assign)))

        await run.agent(pool)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session)


if __name__ == "__main__":
    sys.exit(main())
