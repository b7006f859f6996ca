"""A stdio MCP server for the CLI's ``call``: a base64 text, a user-only image, and a tool of typed arguments.

    python tests/servers/binary.py

    media_file        a 30,000-byte file as one base64 text block (as some file servers answer)
    user_image        a PNG marked for the user only (audience: ["user"]) beside a text for both
    typed(...)        count (integer), ratio (number), ok (boolean), tags (array), name (string), required
                      name; it answers with the arguments it received, as JSON

JSON-RPC lines on stdin and stdout, written by hand; it stops at the end of its input.
"""

import base64
import json
import sys

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode()
FILE = bytes(i * 7 % 256 for i in range(30_000))
TOOLS = [
    {"name": "media_file", "description": "A file, as base64 text.", "inputSchema": {"type": "object"}},
    {"name": "user_image", "description": "A picture for you.", "inputSchema": {"type": "object"}},
    {"name": "typed", "description": "Echo typed arguments.", "inputSchema": {"type": "object", "properties": {
        "count": {"type": "integer"}, "ratio": {"type": "number"}, "ok": {"type": "boolean"}, "tags": {"type": "array"},
        "name": {"type": "string"}}, "required": ["name"], "additionalProperties": False}},
]


def content(name: str, arguments: dict) -> list:
    if name == "media_file":
        return [{"type": "text", "text": base64.b64encode(FILE).decode()}]
    if name == "user_image":
        return [{"type": "text", "text": "a picture"},
                {"type": "image", "mimeType": "image/png", "data": PNG, "annotations": {"audience": ["user"]}}]
    return [{"type": "text", "text": json.dumps(arguments, sort_keys=True)}]


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:
            continue
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}},
                      "serverInfo": {"name": "binary", "version": "1.0.0"}}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            result = {"content": content(params.get("name"), params.get("arguments") or {}), "isError": False}
        elif method == "ping":
            result = {}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"method not found: {method}"}}),
                  flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)


if __name__ == "__main__":
    main()
