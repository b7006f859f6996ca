"""What a tool call gives back: a ``ToolResult``, data until the one place that renders it.

An MCP ``tools/call`` answers with content blocks (text, image, audio, embedded resource,
resource link), optional ``structuredContent``, and ``isError``. The harness keeps all of
it, in the MCP wire shape (plain dicts, ``{"type": "text", "text": ...}``), from the
transport through the agent loop. Only the loop's ``render`` step (``harness.loop.Policy``)
turns a result into what the model reads; ``text()`` is the rendering every lesson up to
s31 uses, and s32 adds the others without touching the modules in between.

A built-in tool may simply return a ``str``; ``ToolResult.of(value)`` wraps it. A harness
failure (``ToolError``: a timeout, a server that is gone) becomes ``ToolResult.failure``.

Used from s19 on. Not handled here: images and other
non-text blocks for the model (s32), output limits (s32).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.jsonvalue import JSONMapping

Block = JSONMapping


@dataclass(frozen=True)
class ToolResult:
    content: tuple[Block, ...] = ()
    structured: JSONMapping | None = None  # the tool's structuredContent, as sent
    is_error: bool = False
    origin: str = ""  # who answered, for error text: "server 'docs': tool 'search'"; "" for built-ins

    @classmethod
    def of(cls, value: ToolResult | str) -> ToolResult:
        return value if isinstance(value, ToolResult) else cls((text_block(value),))

    @classmethod
    def failure(cls, message: str) -> ToolResult:
        """A call the harness could not complete; the message already names what failed."""
        return cls((text_block(message),), is_error=True)

    def text(self) -> str:
        """The plain-text rendering: text blocks joined by newlines; other blocks as a marker.

        An error a server reported is prefixed with its origin, so the model knows which
        server and tool refused.
        """
        body = "\n".join(_block_text(block) for block in self.content)
        return f"{self.origin}: {body}" if self.is_error and self.origin else body


def text_block(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _block_text(block: Block) -> str:
    kind = block.get("type")
    return str(block.get("text", "")) if kind == "text" else f"[{kind} content: shown from s32 on]"
