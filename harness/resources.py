"""MCP beyond tools (s30): resources as two tools, prompts as commands, server log messages.

**Resources** are data a server offers by URI (files, pages, records), listed with
``resources/list`` and ``resources/templates/list`` and read with ``resources/read``. The
model reaches them through two built-in tools, offered once however many servers have
resources, as Claude Code does, and only while at least one live server declares them::

    list_mcp_resources  {server?}        every server's resources and templates (or one server's)
    read_mcp_resource   {server, uri}    the contents, routed to that server

One server failing to list does not fail the listing; an unknown server, a server that is
not connected or has no resources, and an unknown URI are each a clear tool error.

**Prompts** are the server's prepared messages, for the *user* to pick (a slash command in
Claude Code), never the model. ``expand`` fetches one with its arguments and turns it into
the text of a user message: the lesson starts its conversation from one, the CLI prints one.

**Log messages** a server sends during a call are shown with that call. Those sent
between calls wait in their connection until ``show_logs`` prints them with their level
and server, at the start of the next turn, so they never interleave with a turn's output.

``list_changed`` for tools, resources and prompts is handled in the connection: the list
is fetched again, the transcript says why, and the next turn's pool shows the change.

Introduced by s30. Not handled here: subscriptions to one resource (``resources/subscribe``),
binary contents for the model (s32 saves them to files), completion in the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from harness.errors import ToolError
from harness.hub import Hub
from harness.client import Offers, has_resources
from harness.results import ToolResult, text_block
from harness.tools import Tool
from harness.transcript import Transcript

LIST = "list_mcp_resources"
READ = "read_mcp_resource"


class WithResources(Sequence[Tool]):
    """``builtins`` plus the two resource tools while any live server declares resources; read afresh each turn."""

    def __init__(self, builtins: Sequence[Tool], hub: Hub) -> None:
        self._builtins, self._hub = list(builtins), hub
        self._tools = tools(hub)

    def _now(self) -> list[Tool]:
        offered = any(has_resources(c) for c in self._hub.clients.values())
        return self._builtins + (self._tools if offered else [])

    def __getitem__(self, index: Any) -> Any:
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._now())

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._now())


def tools(hub: Hub) -> list[Tool]:
    """The two resource tools, reading ``hub`` at each call."""

    async def list_resources(args: dict[str, Any]) -> ToolResult:
        live = {n: c for n, c in hub.clients.items() if has_resources(c)}
        wanted = args.get("server")
        if wanted is not None:
            if wanted not in live:
                known = ", ".join(sorted(live)) or "none"
                raise ToolError(f"server '{wanted}' not found among the servers with resources (available: {known})")
            live = {wanted: live[wanted]}
        lines: list[str] = []
        for name in sorted(live):
            client = live[name]
            try:
                if not client.capabilities["resources"].get("listChanged"):
                    await client.list_resources()  # no notifications: ask every time
            except ToolError as exc:
                lines.append(f"{name}: could not list resources: {exc}")
                continue
            for r in client.resources:
                kind = f" ({r['mimeType']})" if r.get("mimeType") else ""
                lines.append(f"{name}: {r['uri']}  {r.get('name', '')}{kind}: {r.get('description', '')}".rstrip(": "))
            for t in client.resource_templates:
                lines.append(f"{name}: template {t['uriTemplate']}  {t.get('name', '')}: {t.get('description', '')}".rstrip(": "))
        if not lines:
            return ToolResult((text_block("No resources found. MCP servers may still offer tools without resources."),))
        return ToolResult((text_block("\n".join(lines)),))

    async def read_resource(args: dict[str, Any]) -> ToolResult:
        server, uri = args.get("server"), args.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str) or not uri:
            raise ToolError("read_mcp_resource needs 'server' and 'uri', both strings")
        entry = hub.entries.get(server)
        if entry is None:
            raise ToolError(f"server '{server}' not found (servers: {', '.join(sorted(hub.entries)) or 'none'})")
        client = hub.clients.get(server)
        if client is None:
            raise ToolError(f"server '{server}' is not connected ({entry.state.value})")
        if not has_resources(client):
            raise ToolError(f"server '{server}' does not offer resources")
        contents = await client.read_resource(uri)
        blocks = []
        for item in contents:
            if "text" in item:
                blocks.append(text_block(item["text"]))
            else:  # binary: s32 saves it to a file; here its size and type are said, not its bytes
                size = len(item.get("blob", "")) * 3 // 4
                blocks.append(text_block(f"[{item.get('uri', uri)}: binary {item.get('mimeType', 'data')}, about {size} bytes, not passed to the model]"))
        return ToolResult(tuple(blocks) or (text_block(f"{uri} is empty"),), origin=f"server '{server}': {uri}")

    server_arg = {"type": "string", "description": "a server name, as in mcp__server__tool"}
    return [
        Tool(LIST, "List the resources (and resource templates) that connected MCP servers offer, optionally for one server.",
             {"type": "object", "properties": {"server": server_arg}}, list_resources,
             annotations={"readOnlyHint": True}, concurrent=True),
        Tool(READ, "Read one resource by its URI from an MCP server.",
             {"type": "object", "properties": {"server": server_arg, "uri": {"type": "string", "description": "the resource's URI"}},
              "required": ["server", "uri"]}, read_resource,
             annotations={"readOnlyHint": True}, concurrent=True),
    ]


async def expand(client: Offers, name: str, arguments: Mapping[str, str]) -> str:
    """A prompt's messages as the text of one user message (each message's role named when there are several)."""
    prompt = await client.get_prompt(name, dict(arguments))
    parts = []
    messages = prompt.get("messages", [])
    for message in messages:
        content = message.get("content", {})
        if content.get("type") == "text":
            body = content["text"]
        elif content.get("type") == "resource":
            body = content.get("resource", {}).get("text", f"[{content.get('resource', {}).get('uri', 'resource')}]")
        else:
            body = f"[{content.get('type', 'content')} from the prompt]"
        parts.append(body if len(messages) == 1 else f"{message.get('role', 'user')}: {body}")
    return "\n\n".join(parts)


def show_logs(hub: Hub, transcript: Transcript) -> None:
    """Print the log messages servers sent between calls, oldest first per server, servers by name."""
    for name in sorted(hub.entries):
        client = hub.entries[name].client
        for entry in (client.drain_logs() if isinstance(client, Offers) else []):
            transcript.emit("log", **entry)


def prompt_rows(hub: Hub) -> list[dict[str, Any]]:
    """Every live server's prompts: ``{server, name, description, arguments}`` (the CLI's ``prompts``)."""
    return [{"server": name, "name": p["name"], "description": p.get("description", ""), "arguments": p.get("arguments", [])}
            for name, client in sorted(hub.clients.items()) if isinstance(client, Offers) for p in client.prompts]


def resource_rows(hub: Hub) -> list[dict[str, Any]]:
    """Every live server's resources and templates (the CLI's ``resources``)."""
    rows = []
    for name, client in sorted(hub.clients.items()):
        if not isinstance(client, Offers):
            continue
        for r in client.resources:
            rows.append({"server": name, "uri": r["uri"], "name": r.get("name", ""), "mime_type": r.get("mimeType"),
                         "description": r.get("description", ""), "template": False})
        for t in client.resource_templates:
            rows.append({"server": name, "uri": t["uriTemplate"], "name": t.get("name", ""), "mime_type": t.get("mimeType"),
                         "description": t.get("description", ""), "template": True})
    return rows


def dumps(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)
