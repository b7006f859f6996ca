"""The baseline for bench/run.py's `cli` section: N stdio servers through the plain SDK, all at once.

    python bench/gather_sdk.py CONFIG.json

Reads the same mcpServers file the CLI reads (plain stdio entries: command, args, env,
cwd; no variables), opens one ClientSession per server with asyncio.gather, each doing
initialize and tools/list, prints one line per server, and closes them. No harness import.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def one(name: str, entry: dict, ready: asyncio.Event, done: asyncio.Event, lines: list[str]) -> None:
    params = StdioServerParameters(command=entry["command"], args=entry.get("args", []), env=entry.get("env"), cwd=entry.get("cwd"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        lines.append(f"{name}: connected: {len(tools.tools)} tools")
        ready.set()
        await done.wait()  # each task closes what it opened


async def main(path: str) -> None:
    servers = json.load(open(path, encoding="utf-8"))["mcpServers"]
    done, lines = asyncio.Event(), []
    readies = {name: asyncio.Event() for name in servers}
    tasks = [asyncio.create_task(one(name, entry, readies[name], done, lines)) for name, entry in servers.items()]
    await asyncio.gather(*(r.wait() for r in readies.values()))
    print("\n".join(sorted(lines)))
    done.set()
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
