"""The ``connect_mcp`` tool: the model connects a server at run time.

In s19 the servers were connected before the agent started. Here the model decides: it
calls ``connect_mcp`` with a server name, the harness connects and discovers its tools,
and from the next turn on those tools are in the pool (the loop asks for the pool every
turn). The answers are the ones a model can act on:

    Connected to 'docs'. Discovered 2 tools: search, get_version
    'docs' is already connected
    unknown server 'jira'; available: deploy, docs          (an error result)

``accept`` lets a later lesson veto a connection before it joins (s21 refuses a server
whose tool names would collide with ones already in the pool); the veto's message goes
back to the model and the already-connected servers are untouched.

Introduced by s20. Not handled here: disconnecting, configuration files (s27), connection
states and retries (s28).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from harness.errors import HarnessError, ToolError
from harness.mcp_client import Client
from harness.tools import Tool

Connector = Callable[[], Awaitable[Client]]
Accept = Callable[[Mapping[str, Client]], None]


def connect_tool(available: Mapping[str, Connector], clients: MutableMapping[str, Client], accept: Accept | None = None) -> Tool:
    """A ``connect_mcp`` tool that adds to ``clients`` from the servers in ``available``."""

    async def connect_mcp(args: dict[str, Any]) -> str:
        name = args.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("argument 'name': expected a server name")
        if name in clients:
            return f"'{name}' is already connected"
        if name not in available:
            raise ToolError(f"unknown server '{name}'; available: {', '.join(sorted(available))}")
        client = await available[name]()
        if accept is not None:
            try:
                accept({**clients, name: client})
            except HarnessError as exc:
                # A refused client must not linger: from s23 on it is a live process.
                close = getattr(client, "aclose", None)
                if close is not None:
                    await close()
                raise ToolError(f"'{name}' not connected: {exc}") from None
        clients[name] = client
        tools = [t["name"] for t in client.tools]
        return f"Connected to '{name}'. Discovered {len(tools)} tool{'' if len(tools) == 1 else 's'}: {', '.join(tools)}"

    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "server name, one of: " + ", ".join(sorted(available))}},
        "required": ["name"],
    }
    return Tool("connect_mcp", "Connect an MCP server by name; its tools become available from the next turn.", schema, connect_mcp)
