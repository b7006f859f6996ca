"""s19: a mock MCP client. The servers' tools join the built-ins.

New here: an MCP client that discovers a server's tools (a simulated `tools/list`) and
calls them (a simulated `tools/call`). Two in-process servers, `docs` and `deploy`, are
connected before the agent starts; their tools sit in the pool beside read_file,
write_file and list_dir as `mcp__{server}__{tool}`.

Not yet: connecting at run time (s20), safe names (s21), a rebuilt pool (s22), real
processes and transports (s23).

New module: harness/mcp_client.py

Run: python lessons/s19/code.py            (offline, scripted model)
     python lessons/s19/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys

from harness import lesson
from harness.hub import Hub
from harness.loop import Turn
from harness.mcp_client import MockClient, agent_tools
from mock_servers.catalog import SERVERS

SYSTEM = "You are a coding agent. Use the tools to answer; be brief."


async def session(run: lesson.Run) -> None:
    async with Hub(run.transcript) as hub:  # the one owner of the servers
        for name in ("docs", "deploy"):
            hub.add(name, lambda name=name: MockClient.connect(SERVERS[name]()))
            entry = await hub.connect(name)  # tools/list happens here
            run.transcript.note(f"connected '{name}': {', '.join(t['name'] for t in entry.tools)}")

        builtins = run.workspace.tools()

        def pool() -> Turn:
            return Turn(SYSTEM, tuple(builtins + agent_tools(hub.clients.values())))

        await run.agent(pool)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session)


if __name__ == "__main__":
    sys.exit(main())
