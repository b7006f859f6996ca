"""The ``connect_mcp`` tool: the model connects a server at run time.

In s19 the servers were connected before the agent started. Here the model decides: it
calls ``connect_mcp`` with a server name, the harness connects and discovers its tools,
and from the next turn on those tools are in the pool (the loop asks for the pool every
turn). The answers are the ones a model can act on:

    Connected to 'docs'. Discovered 2 tools: mcp__docs__search, mcp__docs__get_version
    'docs' is already connected
    unknown server 'jira'; available: deploy, docs          (an error result)

The tools are listed by the names the model calls them by, not as the server spelled them:
a server's own name may hold newlines, a U+202E that reverses the text after it, a
sentence addressed to the model, or 200 characters, and none of that is a name the model
can call. Everything else this tool repeats (the server name it was asked for, the names
of the servers that exist, an error) is shown through ``harness.echo``: control and bidi
characters escaped, and cut with a stated cut, so a 100 KB name or a NUL byte never
reaches the model or the terminal as it came.

The tool owns nothing: the servers it may connect are the hub's entries, and it asks the
hub to connect them. A server the hub refuses (s21: its tool names would collide) or
that fails to start is an error result naming why; the servers already connected are
untouched, and a failed server can be asked for again.

Introduced by s20. Not handled here: disconnecting, configuration files (s27), connection
states and retries (s28).
"""

from __future__ import annotations


from harness import echo, naming
from harness.errors import ServerError, ToolError
from harness.hub import LIVE, OFF, Hub
from harness.jsonvalue import JSONObject
from harness.mcp_client import Namer
from harness.spec import State
from harness.tools import Tool

LISTED = 100  # tool names in one reply; a server with more says how many more


def connect_tool(hub: Hub, namer: Namer | None = None) -> Tool:
    """A ``connect_mcp`` tool that asks ``hub`` to connect one of its servers.

    ``namer`` makes the model-facing names the reply lists. The default is
    ``harness.naming.assign``, the names every pool from s21 on uses, and the only ones
    the Messages API accepts; s20's pool still glues names as given, which is the same
    for its servers (it has no odd names: s21 is where they come in).
    """

    async def connect_mcp(args: JSONObject) -> str:
        name = args.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("argument 'name': expected a server name")
        entry = hub.entries.get(name)
        if entry is None:
            raise ToolError(f"unknown server {echo.name(name)}; available: {echo.names(sorted(hub.entries))}")
        shown = echo.name(name)
        if entry.state in LIVE:
            return f"{shown} is already connected"
        if entry.state in OFF:
            raise ToolError(echo.text(f"{shown} is {entry.state.value}: {entry.error}"))
        entry = await hub.connect(name)
        if entry.state is State.FAILED:
            error = entry.error
            raise ToolError(echo.text(str(error) if isinstance(error, ServerError) else f"{shown} not connected: {error}"))
        tools = _model_facing(name, [t["name"] for t in entry.tools], namer)
        if entry.state is State.NEEDS_AUTH:
            return f"{shown} needs authorization: call its {echo.names(tools)} tool to sign in"
        return f"Connected to {shown}. Discovered {len(tools)} tool{'' if len(tools) == 1 else 's'}: {echo.names(tools, LISTED)}"

    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "server name, one of: " + echo.names(sorted(hub.entries))}},
        "required": ["name"],
    }
    # concurrent: two servers asked for in one turn start together; the hub still joins them in call order.
    return Tool("connect_mcp", "Connect an MCP server by name; its tools become available from the next turn.", schema, connect_mcp,
                concurrent=True)


def _model_facing(server: str, tools: list[str], namer: Namer | None) -> list[str]:
    if namer is None:
        # Imported here, not at the top: naming is s21's module, and s20's page shows this
        # one. The reply must name what the model can call, and only naming's names can be.

        namer = naming.assign
    # One pair at a time: a name is a function of its pair, and a collision is the hub's
    # to refuse (s21's checker), not this reply's to raise.
    return [namer([(server, tool)])[(server, tool)] for tool in dict.fromkeys(tools)]  # a tool listed twice is listed once
