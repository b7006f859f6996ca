"""A glossary MCP server: the worked example of the appendix "Build your own server".

    python exercises/appendix/own_server/glossary.py            stdio (what a config starts)
    python -m harness --config exercises/appendix/own_server/mcp.json tools

It uses the MCP SDK's high-level server, ``MCPServer``: each decorated function is a tool,
its name and docstring are the tool's name and description, its typed parameters become
the input schema, and its return value the result. Two tools: one read-only lookup, and
one that changes the server's state (so it is not marked read-only). A lookup that fails
raises the SDK's ``ToolError``: the call returns ``isError`` with the message, which the
model reads. (Any other exception counts as a crash: the model would only read "Error
executing tool define", and the server logs the traceback on stderr.)

Not handled: resources, prompts, HTTP (``server.run("streamable-http")`` would serve it).
"""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

TERMS = {
    "hub": "The one owner of the servers: their specs, states, clients and errors.",
    "pool": "The tools the model is handed on one turn: built-ins sorted, then MCP tools sorted.",
    "scenario": "The script the offline model replays: a prompt, turns of text and tool calls, answers.",
}

server = MCPServer("glossary", version="1.0.0")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def define(term: str) -> str:
    """Define one term of the course's vocabulary."""
    key = term.strip().lower()
    if key not in TERMS:
        raise ToolError(f"no entry for '{term}'; known terms: {', '.join(sorted(TERMS))}")
    return f"{key}: {TERMS[key]}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True))
def add_term(term: str, meaning: str) -> str:
    """Add a term to the glossary, or replace its meaning."""
    TERMS[term.strip().lower()] = meaning.strip()
    return f"{term.strip().lower()}: added ({len(TERMS)} terms)"


if __name__ == "__main__":
    server.run()  # stdio: JSON-RPC lines on stdin and stdout; nothing else may be printed to stdout
