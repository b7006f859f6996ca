"""A stdio MCP server whose ``tools/list`` answers only after SECONDS: for the list-timeout test.

    python tests/servers/slow_list.py SECONDS
"""

import sys

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

DELAY = float(sys.argv[1])


async def list_tools(ctx, params) -> types.ListToolsResult:
    await anyio.sleep(DELAY)
    return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])


async def main() -> None:
    server = Server("slow-list", on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
