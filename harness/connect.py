"""The ``connect_mcp`` tool: the model connects a server at run time.

In s19 the servers were connected before the agent started. Here the model decides: it
calls ``connect_mcp`` with a server name, the harness connects and discovers its tools,
and from the next turn on those tools are in the pool (the loop asks for the pool every
turn). The answers are the ones a model can act on:

    Connected to 'docs'. Discovered 2 tools: search, get_version
    'docs' is already connected
    unknown server 'jira'; available: deploy, docs          (an error result)

The tool owns nothing: the servers it may connect are the hub's entries, and it asks the
hub to connect them. A server the hub refuses (s21: its tool names would collide) or
that fails to start is an error result naming why; the servers already connected are
untouched, and a failed server can be asked for again.

Introduced by s20. Not handled here: disconnecting, configuration files (s27), connection
states and retries (s28).
"""

from __future__ import annotations

from typing import Any

from harness.errors import ServerError, ToolError
from harness.hub import LIVE, OFF, Hub
from harness.spec import State
from harness.tools import Tool


def connect_tool(hub: Hub) -> Tool:
    """A ``connect_mcp`` tool that asks ``hub`` to connect one of its servers."""

    async def connect_mcp(args: dict[str, Any]) -> str:
        name = args.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("argument 'name': expected a server name")
        entry = hub.entries.get(name)
        if entry is None:
            raise ToolError(f"unknown server '{name}'; available: {', '.join(sorted(hub.entries))}")
        if entry.state in LIVE:
            return f"'{name}' is already connected"
        if entry.state in OFF:
            raise ToolError(f"'{name}' is {entry.state.value}: {entry.error}")
        entry = await hub.connect(name)
        if entry.state is State.FAILED:
            error = entry.error
            raise ToolError(str(error) if isinstance(error, ServerError) else f"'{name}' not connected: {error}")
        tools = [t["name"] for t in entry.tools]
        if entry.state is State.NEEDS_AUTH:
            return f"'{name}' needs authorization: call its {', '.join(tools)} tool to sign in"
        return f"Connected to '{name}'. Discovered {len(tools)} tool{'' if len(tools) == 1 else 's'}: {', '.join(tools)}"

    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "server name, one of: " + ", ".join(sorted(hub.entries))}},
        "required": ["name"],
    }
    # concurrent: two servers asked for in one turn start together; the hub still joins them in call order.
    return Tool("connect_mcp", "Connect an MCP server by name; its tools become available from the next turn.", schema, connect_mcp,
                concurrent=True)
