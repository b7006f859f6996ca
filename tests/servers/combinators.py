"""A stdio MCP server whose tools have input schemas the Messages API refuses (issue 8, item 12).

    python tests/servers/combinators.py [--untyped]

Its tools, as real servers write them:

    lookup   "give id or path": type object, properties, and a top-level anyOf of required
    pair     an intersection: type object and a top-level allOf of two plain objects
    say      a plain object schema, accepted as it is

and with ``--untyped`` two more, with no ``type`` at the root (the MCP spec requires
``type: "object"``, and the Python SDK's client refuses the whole list for one of them):

    shape    a zod discriminated union: a top-level oneOf of two objects
    pet      a pydantic union: a top-level oneOf of $refs into $defs

Each answers with the arguments it received, as JSON, so a test can see what was sent. It
validates nothing itself, so a call the harness should have refused would show up here.
It stops at the end of its input.
"""

import json
import sys

TYPED = [
    {"name": "lookup", "description": "Find a record by id or by path.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "path": {"type": "string"}},
                     "anyOf": [{"required": ["id"]}, {"required": ["path"]}]}},
    {"name": "pair", "description": "Join a name and a count.",
     "inputSchema": {"type": "object", "allOf": [
         {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
         {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}]}},
    {"name": "say", "description": "Say something.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
]
UNTYPED = [
    {"name": "shape", "description": "Area of a shape.",
     "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "oneOf": [
         {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}},
          "required": ["kind", "radius"], "additionalProperties": False},
         {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
          "required": ["kind", "side"], "additionalProperties": False}]}},
    {"name": "pet", "description": "Register a pet.",
     "inputSchema": {"$defs": {"Cat": {"type": "object", "properties": {"meows": {"type": "boolean"}}, "required": ["meows"]},
                               "Dog": {"type": "object", "properties": {"barks": {"type": "boolean"}}, "required": ["barks"]}},
                     "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}},
]


def main() -> None:
    """JSON-RPC lines on stdin and stdout, written by hand: the SDK's server would refuse to
    send a schema with no top-level ``type``, and real servers built on other SDKs do send them."""
    tools = TYPED + (UNTYPED if "--untyped" in sys.argv[1:] else [])
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:  # a notification (initialized, cancelled): nothing to answer
            continue
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}},
                      "serverInfo": {"name": "combinators", "version": "1.0.0"}}
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            got = json.dumps(params.get("arguments") or {}, sort_keys=True)
            result = {"content": [{"type": "text", "text": f"{params.get('name')} got {got}"}], "isError": False}
        elif method == "ping":
            result = {}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"method not found: {method}"}}
            print(json.dumps(reply), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)


if __name__ == "__main__":
    main()
