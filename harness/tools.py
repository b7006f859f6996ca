"""What a tool is, and the built-in tools every lesson starts with.

A ``Tool`` is a value: the name and schema the model sees, plus an async ``call`` that
takes the model's input and returns text or a ``ToolResult``. MCP tools (s19 on) are ``Tool`` values too;
the agent loop cannot tell them apart from built-ins, which is the point of MCP.

The built-ins are deliberately safe to run offline: they read, write and list files
inside one workspace folder and refuse any path that leaves it (``..``, an absolute
path elsewhere, or a symlink pointing out).

Introduced by s19. Not handled here: shell commands, binary files, large outputs
(output governance is s32).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ToolError
from harness.results import ToolResult

Call = Callable[[dict[str, Any]], Awaitable["ToolResult | str"]]


@dataclass(frozen=True)
class Tool:
    """One tool as the model sees it, and how to run it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    call: Call = field(compare=False, repr=False)
    source: str = "builtin"  # "builtin", or the server the tool comes from
    # As the server sent them: title, readOnlyHint, destructiveHint, idempotentHint,
    # openWorldHint. Claims, not facts (s31 decides what to trust).
    annotations: Mapping[str, Any] = field(default_factory=dict)
    output_schema: Mapping[str, Any] | None = None
    concurrent: bool = False  # back-to-back calls to it in one turn may run at once (connect_mcp)

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def destructive(self) -> bool:
        return bool(self.annotations.get("destructiveHint"))

    def spec(self) -> dict[str, Any]:
        """The tool definition in the shape the Anthropic Messages API takes."""
        return {"name": self.name, "description": self.description, "input_schema": dict(self.input_schema)}


READ_ONLY = {"readOnlyHint": True}


def _schema(**props: str) -> dict[str, Any]:
    """An object schema whose properties are all required strings."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in props.items()},
        "required": list(props),
    }


class Workspace:
    """A folder the built-in tools may touch, and nothing outside it."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, relative: str) -> Path:
        # Resolving follows symlinks, so a link that points outside is caught here too.
        target = (self.root / relative).resolve()
        if target != self.root and self.root not in target.parents:
            raise ToolError(f"path '{relative}' is outside the workspace")
        return target

    def tools(self) -> list[Tool]:
        """read_file, write_file and list_dir, bound to this workspace."""

        async def read_file(args: dict[str, Any]) -> str:
            path = self.resolve(_arg(args, "path"))
            if not path.is_file():
                raise ToolError(f"no such file: '{_arg(args, 'path')}'")
            return path.read_text(encoding="utf-8")

        async def write_file(args: dict[str, Any]) -> str:
            path = self.resolve(_arg(args, "path"))
            content = _arg(args, "content")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            return f"wrote {len(content.encode())} bytes to {_arg(args, 'path')}"

        async def list_dir(args: dict[str, Any]) -> str:
            relative = args.get("path") or "."
            path = self.resolve(relative)
            if not path.is_dir():
                raise ToolError(f"no such folder: '{relative}'")
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
            return "\n".join(names) if names else "(empty)"

        list_schema = _schema(path="folder relative to the workspace (default: the workspace)")
        list_schema["required"] = []
        return [
            Tool("read_file", "Read a UTF-8 text file in the workspace.", _schema(path="file path relative to the workspace"), read_file, annotations=READ_ONLY),
            Tool("write_file", "Write a UTF-8 text file in the workspace, replacing it.", _schema(path="file path relative to the workspace", content="the whole new file"), write_file),
            Tool("list_dir", "List a folder in the workspace.", list_schema, list_dir, annotations=READ_ONLY),
        ]


def _arg(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolError(f"argument '{name}': expected a string")
    return value
