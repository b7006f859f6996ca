"""A help-desk MCP server that asks its client for things (s33): ``python -m mock_servers.desk --transport stdio``.

Each tool sends the client a request of its own while it runs:

    file_ticket(summary)   elicitation, form mode: team (required), priority (default normal),
                           notify (default true). Accept files the ticket; decline or cancel does not.
    link_account()         elicitation, URL mode, as an error: the first call answers -32042 with
                           a URL to visit; once the client retries, the account is linked.
    suggest_title(text)    sampling: asks the client's model for a title (at most 60 tokens).
    workspace()            roots: lists the client's roots.
    triage(summary)        the 2026-07-28 way: an input-required result carrying a form
                           elicitation; the client answers and calls again with its response.

Sampling, roots and logging are deprecated as of protocol 2026-07-28 (SEP-2577) and still
widely served; their warnings are silenced here. Deterministic: no clock, no randomness.
Imports nothing from the harness.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

FORM = {
    "type": "object",
    "properties": {
        "team": {"type": "string", "title": "Team", "description": "which team owns it"},
        "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
        "notify": {"type": "boolean", "default": True, "description": "email the team"},
    },
    "required": ["team"],
}
LINK = "http://127.0.0.1:9/desk/link?account=acme"  # shown, never fetched: the user "visits" it


def build() -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server  # not mcp.server: its __init__ imports MCPServer (harness.sdk_half)
    from mcp.shared.exceptions import MCPError

    warnings.filterwarnings("ignore", message="The (sampling|roots|logging) capability is deprecated")
    state = {"tickets": 0, "link_asked": False}

    def text(value: str, is_error: bool = False) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=value)], is_error=is_error)

    def obj(**props: Any) -> dict[str, Any]:
        return {"type": "object", "properties": props, "required": list(props)}

    tools = [
        types.Tool(name="file_ticket", description="File a help-desk ticket; asks you for the details.", input_schema=obj(summary={"type": "string"})),
        types.Tool(name="link_account", description="Link your desk account (opens a page to sign in).", input_schema={"type": "object"}),
        types.Tool(name="suggest_title", description="Suggest a ticket title for a text (uses your model).", input_schema=obj(text={"type": "string"})),
        types.Tool(name="workspace", description="Show the folders the desk may look at (your roots).", input_schema={"type": "object"}),
        types.Tool(name="triage", description="Triage a ticket; asks for its team first.", input_schema=obj(summary={"type": "string"})),
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        args = dict(params.arguments or {})
        if params.name == "file_ticket":
            answer = await ctx.session.elicit_form(f"Filing '{args.get('summary', '')}': who owns it, and how urgent is it?",
                                                   FORM, related_request_id=ctx.request_id)
            if answer.action != "accept":
                return text(f"not filed: the user chose {answer.action}")
            state["tickets"] += 1
            fields = answer.content or {}
            return text(f"ticket T-{state['tickets']} filed for team {fields.get('team')}, priority {fields.get('priority')}, "
                        f"notify {str(fields.get('notify')).lower()}")
        if params.name == "link_account":
            if not state["link_asked"]:
                state["link_asked"] = True  # the page would mark it linked; the retry finds it so
                raise MCPError(code=types.URL_ELICITATION_REQUIRED, message="link your account first", data={"elicitations": [
                    {"mode": "url", "message": "Sign in to the desk to link your account.", "url": LINK, "elicitationId": "link-1"}]})
            return text("account acme linked")
        if params.name == "suggest_title":
            reply = await ctx.session.create_message(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(text=f"A ticket title, five words at most, for: {args.get('text', '')}"))],
                max_tokens=60, related_request_id=ctx.request_id)
            said = reply.content.text if isinstance(reply.content, types.TextContent) else "(no text)"
            return text(f"suggested title: {said}")
        if params.name == "workspace":
            roots = await ctx.session.list_roots()
            return text("roots: " + ", ".join(f"{r.name or '-'} {r.uri}" for r in roots.roots))
        if params.name == "triage":
            responses = params.input_responses or {}
            if "team" not in responses:
                return types.InputRequiredResult(input_requests={"team": types.ElicitRequest(params=types.ElicitRequestFormParams(
                    message=f"Triage '{args.get('summary', '')}': which team?", requested_schema={
                        "type": "object", "properties": {"team": {"type": "string"}}, "required": ["team"]}))}, request_state="triage-1")
            answer = responses["team"]
            team = (answer.content or {}).get("team") if getattr(answer, "action", "") == "accept" else None
            return text(f"triaged to team {team}" if team else "not triaged: no team given")
        return text(f"unknown tool '{params.name}'", is_error=True)

    return Server("desk", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_servers.desk", description=__doc__.splitlines()[0])
    parser.add_argument("--transport", required=True, choices=("stdio",))
    parser.parse_args(argv)
    import anyio
    from mcp.server.stdio import stdio_server

    server = build()

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
    return 0


if __name__ == "__main__":
    from harness.exits import exit_now
    from mock_servers.serve import server_side_sdk

    server_side_sdk()
    exit_now(main())
