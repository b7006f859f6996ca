"""``call``: one tool by hand, its arguments as JSON or as ``key=value`` words, checked before they are sent.

    mcp-course call mcp__docs__search '{"query": "hooks"}'
    mcp-course call docs.search query=hooks limit=3
    mcp-course call media.chart --output chart.png

- The tool is named by its model-facing name (``mcp__server__tool``) or as ``SERVER.TOOL``
  (the config's server name, the server's tool name). A name no connected server has is a
  usage error that names the nearest one ("did you mean").
- ``key=value`` words are typed from the tool's input schema: a number for ``integer`` and
  ``number``, ``true``/``false`` for ``boolean``, JSON for ``object`` and ``array``, the
  words as they are for ``string``. A key the schema does not have is refused, with the
  nearest it has. Then the arguments are checked against the server's own schema as every
  lesson's calls are (``harness.schemas.checker``): a call that breaks it is not sent, and
  the error names where and the rule.
- The result is shown as s32 renders it, with what differs for a person at a terminal:
  nothing is for the model here, so content marked for the user only is shown, and an
  image is saved to a file (as audio and binary data are), never sent anywhere. A text that
  is base64 and over ``BASE64_CHARS`` is saved decoded rather than printed.
- ``--output FILE`` writes the result's first binary block (decoded), else its text, to FILE.
- A result the tool marks as an error is an ``error:`` line on stderr and exit 1.

Introduced with the CLI (s27), moved here with ``key=value``. Not handled here: arguments of
nested objects as ``key.sub=value`` (give the object as JSON: ``key='{"sub": 1}'``).
"""

from __future__ import annotations

import base64
import binascii
import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from harness import echo, naming, schemas
from harness.cli_types import json_arguments
from harness.errors import HarnessError, ToolError, UsageError
from harness.spec import State
from harness.files import write_regular
from harness.jsonvalue import JSON, JSONMapping, JSONObject

if TYPE_CHECKING:
    from harness.results import ToolResult
    from harness.stack import Stack

BASE64_CHARS = 4096  # a text this long made only of base64 letters is data, not words for a person
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


def signature(schema: JSONObject) -> str:
    """``query: string, limit?: integer``: a tool's arguments as its input schema has them (``?``: optional)."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    shown = []
    for name, prop in props.items():
        kind = prop.get("type", "any") if isinstance(prop, dict) else "any"
        kind = "|".join(map(str, kind)) if isinstance(kind, list) else str(kind)
        shown.append(f"{echo.line(str(name), 40)}{'' if name in required else '?'}: {echo.line(kind, 40)}")
    return ", ".join(shown)


def raw_arguments(words: Sequence[str]) -> JSONObject | list[tuple[str, str]]:
    """What the command line gave: a JSON object, or ``key=value`` pairs to type once the schema is known."""
    if len(words) == 1 and words[0].lstrip().startswith("{"):
        return json_arguments(words[0])
    pairs = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise UsageError(f"argument '{echo.line(word, 80)}': expected KEY=VALUE or one JSON object, e.g. query=hooks")
        pairs.append((key, value))
    return pairs


def server_of(tool: str, names: Sequence[str]) -> str | None:
    """The configured server a ``SERVER.TOOL`` (the longest name that fits) or ``mcp__server__tool`` name points at;
    None when it fits none, or several servers whose names normalize alike (then every server is started)."""
    modelled = [n for n in names if tool.startswith(f"mcp__{naming.normalize(n)}__")]
    if modelled:
        return modelled[0] if len(modelled) == 1 else None
    dotted = [n for n in names if tool.startswith(f"{n}.")]
    return max(dotted, key=len) if dotted else None


def resolve(tool: str, names: naming.NameMap) -> tuple[str, str]:
    """(server, tool) for a model-facing or ``SERVER.TOOL`` name; a ``UsageError`` naming the nearest if none."""
    try:
        return names.resolve(tool)
    except KeyError:
        pass
    dotted = {f"{server}.{original}": (server, original) for server, original in names}
    if tool in dotted:
        return dotted[tool]
    known = sorted(names.values()) + sorted(dotted)
    meant = difflib.get_close_matches(tool, known, n=1, cutoff=0.8)
    raise UsageError(f"no tool '{tool}' among the connected servers' tools" + (f"; did you mean '{meant[0]}'?" if meant else "")
                     + (f" ({', '.join(sorted(names.values()))})" if names else ""))


def typed(given: JSONObject | list[tuple[str, str]], schema: JSONMapping, tool: str) -> JSONObject:
    """The arguments: JSON as given, ``key=value`` typed from the schema's properties."""
    if isinstance(given, dict):
        return given
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    arguments: JSONObject = {}
    for key, text in given:
        if props and key not in props:
            meant = difflib.get_close_matches(key, list(props), n=1)
            raise UsageError(f"{tool}: no argument '{echo.line(key, 80)}'" + (f"; did you mean '{meant[0]}'?" if meant else "")
                             + f" (it takes: {', '.join(props)})")
        arguments[key] = _value(key, text, props.get(key) if isinstance(props.get(key), dict) else {}, tool)
    return arguments


def _value(key: str, text: str, prop: JSONMapping, tool: str) -> JSON:
    kind = prop.get("type")
    if kind == "string" or (kind is None and "enum" in prop and all(isinstance(e, str) for e in prop["enum"])):
        return text
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return json.loads(text)  # numbers, objects, arrays, null; a type the schema checks next
    except ValueError:
        if kind in ("integer", "number", "boolean", "object", "array"):
            raise UsageError(f"{tool}: argument '{key}': expected {'JSON ' if kind in ('object', 'array') else ''}{kind}, "
                             f"got '{echo.line(text, 80)}'") from None
        return text  # no type, or several: the words as they are


def checked(arguments: JSONObject, schema: JSON, server: str, tool: str) -> None:
    """The server's own schema applied as the lessons apply it: a call that breaks it is not sent."""
    problem = schemas.checker(schema)(arguments)
    if problem is not None:
        raise UsageError(f"server {echo.name(server)}: tool {echo.name(tool)}: arguments do not match the tool's input schema, "
                         f"so the call was not sent: {problem}")


async def call(stack: Stack, names: naming.NameMap, tool: str, given: JSONObject | list[tuple[str, str]],
               as_json: bool, output: Path | None, out: TextIO, err: TextIO) -> int:
    """Resolve, type, check, call, show: the exit code (1 if the tool reported an error)."""
    try:
        server, original = resolve(tool, names)
    except UsageError:
        down = next((name for name, entry in stack.hub.entries.items() if entry.state is not State.CONNECTED
                     and (tool.startswith(f"mcp__{naming.normalize(name)}__") or tool.startswith(f"{name}."))), None)
        if down is None:
            raise
        # Its server's error is already on stderr: "no such tool" would send the user looking in the wrong place.
        raise HarnessError(f"'{tool}' is a tool of server '{down}', which did not connect (its error is above)") from None
    client = stack.hub.clients[server]
    schema = next((t.get("inputSchema") for t in client.tools if t["name"] == original), None) or {"type": "object"}
    arguments = typed(given, schema, tool)
    checked(arguments, schema, server, original)
    try:
        result = await client.call_tool(original, arguments)
    except ToolError as exc:
        raise HarnessError(str(exc)) from None
    if output is not None:
        out.write(_written(output, result.content) + "\n")
    elif as_json:
        out.write(json.dumps({"is_error": result.is_error, "content": list(result.content), "structured": result.structured}, indent=1) + "\n")
    else:
        shown = await _shown(stack, server, original, tool, result)
        (err if result.is_error else out).write(("error: " if result.is_error else "") + shown + "\n")
    return 1 if result.is_error else 0


async def _shown(stack: Stack, server: str, original: str, tool: str, result: ToolResult) -> str:
    """The result as s32 renders it, for a person: user-only content kept, images and base64 text saved to files."""
    from harness.results import ToolResult, text_block  # the stack and the tools: after the call, which loaded them already
    from harness.stack import Output
    from harness.tools import Tool

    governor = replace(stack.find(Output).output, reader="open it for the rest")  # a person has no read_file tool
    blocks = []
    for block in result.content:  # nobody else reads this: what is for the user only is for this reader
        block = {k: v for k, v in block.items() if k != "annotations"} if isinstance(block.get("annotations"), dict) else block
        if block.get("type") == "text" and _is_base64(str(block.get("text", ""))):
            block = text_block(governor.save("".join(str(block["text"]).split()), "", server, original, "a base64 text, decoded"))
        blocks.append(block)
    plain = ToolResult(tuple(blocks), result.structured, result.is_error, result.origin)
    governed = await governor.after_result(None, Tool(tool, "", {}, _no_call, source=server, original=original), plain)
    saved = tuple(text_block(governor.save(b["data"], b["mimeType"], server, original, "image")) if b.get("type") == "image" else b
                  for b in governed.content)
    return governor.show(governor.render(ToolResult(saved, governed.structured, governed.is_error, governed.origin)))


def _is_base64(text: str) -> bool:
    if len(text) < BASE64_CHARS or not _BASE64.fullmatch(text):
        return False
    try:
        base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _written(path: Path, content: Sequence[JSONMapping]) -> str:
    """``--output FILE``: the first binary block decoded, else the text; the line that says what was written."""
    for block in content:
        data = block.get("data") if block.get("type") in ("image", "audio") else (block.get("resource") or {}).get("blob")
        if isinstance(data, str):
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                raise HarnessError(f"--output {path}: the result's {block.get('type')} block is not base64") from None
            kind = block.get("mimeType") or (block.get("resource") or {}).get("mimeType") or "binary"
            return _write(path, raw, f"{len(raw)} bytes, {kind}")
    text = "\n".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
    return _write(path, text.encode("utf-8"), f"{len(text.encode('utf-8'))} bytes of text")


def _write(path: Path, raw: bytes, what: str) -> str:
    try:
        write_regular(path, raw)
    except OSError as exc:  # NotAFile too: a symlink or a FIFO at FILE is not written through
        raise HarnessError(f"--output {path}: {exc.strerror or exc}") from None
    return f"wrote {path} ({what})"


async def _no_call(arguments: JSONObject) -> NoReturn:
    raise AssertionError("the CLI calls the server itself")
