"""A scripted model for a config it has never seen: list the servers, try one read-only tool each, sum up.

``Survey`` answers ``model.reply`` like the scripted model (s19), but its script is made
from the pool it is handed, so it runs on anybody's servers (s35's ``--config FILE``):

1. the first turn lists every server's tools, and calls the first planned tool;
2. each later turn calls the next one: per server, one tool its server marks
   ``readOnlyHint``, the first of those with the fewest required arguments, each made from
   the schema (a default, an enum, an example; else a value for a well-known name, such as
   ``.`` for a path, or a plain value of the type);
3. the last turn sums up: per server, its tools, what was called and how it went, and the
   tools left alone because they are not marked read-only (the permissions part would ask
   before any of them).

A server that needs a sign-in has only its authenticate pseudo-tool: the survey leaves it
alone (a sign-in opens a browser), and says so. Deterministic: the same pool gives the
same calls, in the pool's order.

Introduced by s35. Not handled here: tools whose required arguments need real values (a
path that exists, an id the server knows): the call is made, and its error is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness import echo
from harness.jsonvalue import JSONMapping, JSONObject
from harness.model import Reply, ToolCall
from harness.tools import Tool

PROMPT = ("Survey my MCP servers: list each server's tools, call one read-only tool per server, "
          "and sum up. Do not call anything that is not read-only.")
AUTHENTICATE = "authenticate"  # the needs-auth pseudo-tool (harness.auth.needs_auth): calling it signs in
PLAIN = {"string": "example", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
NAMED = {"timezone": "UTC", "path": ".", "repo_path": ".", "directory": ".", "url": "https://example.com"}


class Survey:
    """The survey model: ``await reply(system, messages, tools)``, turn by turn."""

    def __init__(self) -> None:
        self._plan: list[tuple[str, JSONObject]] | None = None
        self._servers: dict[str, list[Tool]] = {}
        self._ids = 0

    async def reply(self, system: str, messages: list[JSONObject], tools: Sequence[Tool]) -> Reply:
        first = self._plan is None
        if self._plan is None:
            self._servers = servers(tools)
            self._plan = [(t.name, arguments(t.input_schema)) for t in (pick(ts) for ts in self._servers.values()) if t is not None]
        offered = {t.name for t in tools}
        while self._plan and self._plan[0][0] not in offered:  # a server that went away since: its call is skipped
            self._plan.pop(0)
        text = listing(self._servers) if first else ""
        if not self._plan:
            return Reply(((text + "\n") if text else "") + summary(self._servers, outcomes(messages)))
        name, args = self._plan.pop(0)
        self._ids += 1
        return Reply(text or f"Next: {name}.", (ToolCall(f"toolu_{self._ids:02d}", name, args),))


def servers(tools: Sequence[Tool]) -> dict[str, list[Tool]]:
    """The MCP tools by server, in the pool's order (built-in tools are not a server's)."""
    found: dict[str, list[Tool]] = {}
    for tool in tools:
        if tool.source != "builtin":
            found.setdefault(tool.source, []).append(tool)
    return found


def needs_sign_in(tools: Sequence[Tool]) -> bool:
    return len(tools) == 1 and tools[0].original == AUTHENTICATE


def pick(tools: Sequence[Tool]) -> Tool | None:
    """The server's tool to try: read-only, with the fewest required arguments; None when none is read-only."""
    if needs_sign_in(tools):
        return None
    read_only = sorted((t for t in tools if t.read_only), key=lambda t: len(t.input_schema.get("required") or []))  # stable: pool order
    return read_only[0] if read_only else None


def arguments(schema: JSONMapping) -> JSONObject:
    """Values for the required properties: the schema's default, first enum value or example, else a plain value."""
    properties = schema.get("properties") or {}
    made: JSONObject = {}
    for name in schema.get("required") or []:
        prop = properties.get(name) if isinstance(properties.get(name), Mapping) else {}
        if "default" in prop:
            made[name] = prop["default"]
        elif "const" in prop:
            made[name] = prop["const"]
        elif prop.get("enum"):
            made[name] = prop["enum"][0]
        elif prop.get("examples"):
            made[name] = prop["examples"][0]
        else:
            kind = prop.get("type")
            kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
            made[name] = NAMED.get(name, PLAIN.get(kind, "example"))
    return made


def outcomes(messages: Sequence[JSONMapping]) -> dict[str, bool]:
    """Each called tool's name and whether its result was an error, from the conversation."""
    called: dict[str, str] = {}
    result: dict[str, bool] = {}
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                called[block["id"]] = block["name"]
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in called:
                result[called[block["tool_use_id"]]] = bool(block.get("is_error"))
    return result


def listing(found: Mapping[str, Sequence[Tool]]) -> str:
    if not found:
        return "No MCP server has tools for me."
    lines = [f"{echo.count(len(found), 'server')} with tools:"]
    for server, tools in found.items():
        lines.append(f"- {server}: {', '.join(t.original or t.name for t in tools)}")
    return "\n".join(lines)


def summary(found: Mapping[str, Sequence[Tool]], results: Mapping[str, bool]) -> str:
    lines = ["Summary:"]
    asked: list[str] = []
    for server, tools in found.items():
        read_only = sum(t.read_only for t in tools)
        head = f"- {server}: {echo.count(len(tools), 'tool')}, {read_only} read-only"
        if needs_sign_in(tools):
            lines.append(f"- {server}: needs a sign-in; not signed in (call {tools[0].name} to sign in)")
            continue
        tried = next((t for t in tools if t.name in results), None)
        if tried is not None:
            lines.append(f"{head}; called {tried.original or tried.name}: {'error' if results[tried.name] else 'ok'}")
        else:
            lines.append(f"{head}; nothing called" + ("" if read_only else " (no tool is marked read-only)"))
        asked += [t.name for t in tools if not t.read_only]
    if asked:
        lines.append(f"Not called, not marked read-only (I would ask you first): {', '.join(asked)}")
    return "\n".join(lines)
