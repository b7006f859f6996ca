"""A mock MCP client: discovery (``tools/list``) and calls (``tools/call``) in process.

MCP gives an agent two verbs for tools: ask a server what it offers, then call one.
``MockClient`` does exactly that against a server that is a Python object in this
process, so s19 can show the whole flow with no subprocess and no network. From s23 on,
real clients with the same three members (``name``, ``tools``, ``call_tool``: the
``Client`` protocol of ``harness.client``) replace it.

``agent_tools`` turns every connected client's tools into ``Tool`` values for the agent
loop, named ``mcp__{server}__{tool}``. How names are made is a parameter: s19 glues the
strings together; s21 passes the normalizing namer from ``harness.naming``. Each tool is
offered with an input schema the Messages API accepts (``harness.schemas.offered``: a
server's top-level ``anyOf``/``oneOf``/``allOf`` would make the API refuse every request),
and each call is checked against the server's own schema before it is sent
(``harness.schemas.checker``): a call that breaks it is a ``ToolError`` the model reads.

Introduced by s19. Not handled here: real transports (s23-s25), resources and prompts
(s30), non-text results (s32).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from harness import echo, schemas
from harness.client import Client
from harness.errors import ToolError
from harness.jsonvalue import JSONObject
from harness.results import ToolResult, text_block
from harness.tools import Tool

Pair = tuple[str, str]  # (server name, tool name) as the server spells them
Namer = Callable[[list[Pair]], Mapping[Pair, str]]
__all__ = ["Client", "MockClient", "Namer", "Pair", "agent_tools", "as_tool", "plain_names"]


class MockClient:
    """An MCP client whose server lives in this process (a ``mock_servers.catalog.ServerDef``)."""

    def __init__(self, server: Any) -> None:
        self.name: str = server.name
        self._server = server
        self.tools: list[JSONObject] = []

    @classmethod
    async def connect(cls, server: Any) -> MockClient:
        client = cls(server)
        await client.list_tools()
        return client

    async def list_tools(self) -> list[JSONObject]:
        """Simulates ``tools/list``: the server describes its tools."""
        self.tools = [tool.listing() for tool in self._server.tools]
        return self.tools

    async def call_tool(self, tool: str, arguments: JSONObject) -> ToolResult:
        """Simulates ``tools/call``; a server-side failure is a result with ``is_error``, as in MCP."""
        definition = self._server.tool(tool)
        if definition is None:
            raise ToolError(f"server '{self.name}': unknown tool '{tool}'")
        try:
            return ToolResult((text_block(definition.handler(arguments)),))
        except ValueError as exc:  # the server rejected the input: an MCP error result
            return ToolResult((text_block(str(exc)),), is_error=True, origin=f"server '{self.name}': tool '{tool}'")


def plain_names(pairs: list[Pair]) -> dict[Pair, str]:
    """s19's naming: glue the strings together, trusting that they are already safe."""
    return {(server, tool): f"mcp__{server}__{tool}" for server, tool in pairs}


def agent_tools(clients: Iterable[Client], namer: Namer = plain_names) -> list[Tool]:
    """Every tool of every client, as ``Tool`` values the agent loop can call."""
    clients = list(clients)
    names = namer([(c.name, t["name"]) for c in clients for t in c.tools])
    return [as_tool(client, listing, names[(client.name, listing["name"])]) for client in clients for listing in client.tools]


def as_tool(client: Client, listing: JSONObject, name: str) -> Tool:
    """One listed tool of ``client`` as a ``Tool`` named ``name`` for the model."""
    schema = listing.get("inputSchema") or {"type": "object"}
    return Tool(
        name=name,
        description=listing.get("description") or "",
        input_schema=schemas.offered(schema),
        call=_caller(client, listing["name"], schemas.checker(schema)),
        source=client.name,
        annotations=listing.get("annotations") or {},
        original=listing["name"],
    )


def _caller(client: Client, tool: str, check: schemas.Check) -> Callable[[JSONObject], Any]:
    # A named function instead of a lambda in the loop above: each closure must capture
    # its own client and tool, not the loop variables' last values.
    async def call(arguments: JSONObject) -> ToolResult:
        problem = check(arguments)
        if problem is not None:  # the server never sees it; the model reads why
            raise ToolError(f"server {echo.name(client.name)}: tool {echo.name(tool)}: arguments do not match the tool's input schema, "
                            f"so the call was not sent: {problem}")
        return await client.call_tool(tool, arguments)

    return call
