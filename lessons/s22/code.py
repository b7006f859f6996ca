"""s22: the tool pool, rebuilt every turn. No cache.

New here: `harness.pool` assembles the pool the same way every turn: built-ins sorted
first, MCP tools sorted after, unique by name with built-ins winning, and each MCP
tool's annotations written into its description as (readOnly) or (destructive). The
system prompt is rebuilt every turn too, so it names the servers connected now.

Run it with --cached to see why: the first turn's pool is frozen, the model connects
`docs`, and its call to mcp__docs__search is refused because the cached pool lacks it.

Not yet: real processes and transports (s23).

New module: harness/pool.py

Run: python lessons/s22/code.py            (offline, scripted model)
     python lessons/s22/code.py --cached   (the stale-pool bug)
     python lessons/s22/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys

from harness import lesson, naming, pool
from harness.connect import connect_tool
from harness.hub import Hub
from harness.mcp_client import MockClient
from mock_servers.catalog import SERVERS

BASE = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."


async def session(run: lesson.Run) -> None:
    accept = naming.checker(run.transcript.warning, run.transcript.note)
    async with Hub(run.transcript, accept=accept) as hub:
        for name in SERVERS:
            hub.add(name, lambda name=name: MockClient.connect(SERVERS[name]()))
        builtins = run.workspace.tools() + [connect_tool(hub)]
        # Everything the model sees, rebuilt every turn from what is connected now.
        turn = pool.rebuilt(BASE, builtins, hub.clients, report=run.transcript.note)
        await run.agent(pool.cached(turn) if run.args.cached else turn)


def options(parser) -> None:
    parser.add_argument("--cached", action="store_true", help="freeze the first turn's pool (the stale-pool bug)")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
