"""A stdio MCP server for the call-timeout tests: ``work`` reports progress while it works.

    python tests/servers/progress.py

``work(steps, every)`` sends ``steps`` progress notifications ``every`` seconds apart, then
answers; ``quiet(seconds)`` waits without a word, then answers.
"""

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("progress")


@server.tool()
async def work(steps: int, every: float, ctx: Context) -> str:
    for step in range(1, steps + 1):
        await anyio.sleep(every)
        await ctx.report_progress(step, steps, f"step {step}")
    return f"done after {steps} steps"


@server.tool()
async def quiet(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "done"


if __name__ == "__main__":
    server.run("stdio")
