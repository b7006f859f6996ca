"""s20: connect_mcp. The model connects a server at run time.

New here: a `connect_mcp` tool. The agent starts with only the built-ins and
connect_mcp; when the model connects `docs` or `deploy`, the server's tools are
discovered and appear in the pool from the next turn. Connecting twice answers "already
connected"; an unknown name answers with the list of servers that exist.

Not yet: safe names (s21), pool order and de-duplication (s22).

New module: harness/connect.py

Run: python lessons/s20/code.py            (offline, scripted model)
     python lessons/s20/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys

from harness import lesson
from harness.connect import connect_tool
from harness.hub import Hub
from harness.loop import Turn
from harness.mcp_client import MockClient, agent_tools
from mock_servers.catalog import SERVERS

SYSTEM = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."


async def session(run: lesson.Run) -> None:
    async with Hub(run.transcript) as hub:
        for name in ("docs", "deploy"):  # known to the hub, not connected: connect_mcp does that
            hub.add(name, lambda name=name: MockClient.connect(SERVERS[name]()))
        builtins = run.workspace.tools() + [connect_tool(hub)]

        def pool() -> Turn:  # asked every turn, so a new server's tools show up next turn
            return Turn(SYSTEM, tuple(builtins + agent_tools(hub.clients.values())))

        await run.agent(pool)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session)


if __name__ == "__main__":
    sys.exit(main())
