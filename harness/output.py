"""Output governance (s32): every result block becomes something the Messages API accepts, within a cap.

A tool result from MCP can hold text, images, audio, links to resources, embedded
resources (text or binary), ``structuredContent``, and content meant only for the user.
A ``tool_result`` in the Messages API holds text and images. ``Output`` is the loop's
after-result and render hooks, and decides for each block:

    text                         text (minus what is for the user only: ``audience: ["user"]``)
    image                        an image block, if its bytes are what its media type says
                                 (PNG, JPEG, GIF, WebP) and at most IMAGE_BYTES; else saved
    audio                        saved to a file; the model reads a note naming it
    resource_link                text naming the URI (and name, type, description)
    embedded text resource       its text, under its URI
    embedded binary resource     saved to a file; a note names it
    structuredContent            JSON text, when the result has no text of its own
    an error with no content     "server 'x': tool 'y' reported an error and said nothing"

**The cap.** A result's text may take at most ``cap`` tokens (default 25,000, as Claude
Code; per server with ``caps``, which ``caps(servers)`` reads from each entry's
``maxOutputTokens``). Tokens are estimated, not counted: a character is a
quarter token (``len(text) / 4``, rounded up). The estimate fits English text; code and
non-Latin scripts use more tokens per character, so the cap is a budget, not a promise.
Over the cap, the whole text goes to a file and the model gets the head that fits, plus
where the rest is and how to read it (``read_file``). Images have their own bounds instead
of a share of the text's: each at most IMAGE_BYTES, at most IMAGES per result (Claude Code
counts one as 1,600 tokens of its cap, so a small cap would turn every chart into a file).
A result is looked at up to its first ``BLOCKS`` blocks, and saves at most ``FILES`` files
for its binary blocks (the text spill is one more); past either, a note says how many were
left out and names the bound. Each block is looked at once: a result's time is linear in
its size.

**Files** go into ``folder`` (inside the workspace, so the file tools can read them),
named ``NNN-server-tool.ext``: a counter, the server and tool reduced to ``[A-Za-z0-9_-]``,
and an extension from the media type. A name or URI the server gives is never part of a
path, so ``../../etc/passwd``, an absolute path, a NUL or a 10,000-character name can
place nothing outside the folder.

Introduced by s32. Not handled here: counting tokens exactly (an API call per result),
images larger than IMAGE_BYTES scaled down, and PDFs as document blocks.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.files import write_regular
from harness.results import Block, ToolResult, text_block
from harness.tools import Tool
from harness.transcript import Transcript

CAP = 25_000  # tokens a result may take (Claude Code's MAX_MCP_OUTPUT_TOKENS default)
MIN_CAP = 100  # the least a server's maxOutputTokens may set: a head that says anything, and the hint
IMAGE_BYTES = 5 * 1024 * 1024  # the Messages API's limit for one image
IMAGES = 5  # images per result sent as images; more are saved to files
BLOCKS = 1000  # content blocks of one result looked at; the rest are left out, with a note
FILES = 20  # files one result's binary blocks may be saved to (images past IMAGES, audio, blobs); the rest are left out, with a note
_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF87a", b"GIF89a"),
          "image/webp": (b"RIFF",)}
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "audio/wav": "wav",
               "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/ogg": "ogg", "application/zip": "zip",
               "application/pdf": "pdf", "application/json": "json", "text/plain": "txt", "text/markdown": "md",
               "application/gzip": "gz", "application/x-gzip": "gz", "application/x-tar": "tar", "text/csv": "csv",
               "text/html": "html", "image/svg+xml": "svg"}


def caps(servers: Iterable[Any]) -> dict[str, int]:
    """Each configured server's own cap (``"maxOutputTokens"`` in its entry as written, a ``harness.config.ServerConfig``).

    A server without the field gets the default cap. A value that is not a whole number of
    at least ``MIN_CAP`` tokens is a ``ConfigError`` naming the server and the field.
    """
    found = {}
    for server in servers:
        cap = server.raw.get("maxOutputTokens")
        if cap is None:
            continue
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < MIN_CAP:
            raise ConfigError(f"server '{server.name}': field 'maxOutputTokens': expected a whole number of tokens, at least {MIN_CAP}")
        found[server.name] = cap
    return found


def tokens(text: str) -> int:
    """The estimate: a quarter token per character, rounded up."""
    return math.ceil(len(text) / 4)


@dataclass
class Output:
    """The after-result and render hooks of s32 (``Policy(after_result=out.after_result, render=out.render, show=out.show)``)."""

    folder: Path
    cap: int = CAP
    caps: Mapping[str, int] = field(default_factory=dict)  # per server
    shown_as: str = ""  # how the folder is named to the model (a workspace-relative path); default: the folder
    transcript: Transcript | None = None  # shows the user what was meant for the user only
    reader: str = "read it with read_file"  # how the text over the cap says to read its file (the model's file tool)
    _count: int = 0

    async def after_result(self, call: Any, tool: Tool, result: ToolResult) -> ToolResult:
        """The result governed: every block in a form the model may get, within the cap."""
        server, name = (tool.source, tool.original or tool.name) if tool.source != "builtin" else ("builtin", tool.name)
        blocks: list[Block] = []
        files = _Files(FILES)
        for block in result.content[:BLOCKS]:
            blocks += self._block(block, server, name, files)
        if not any(b.get("type") == "text" for b in blocks) and result.structured is not None:
            blocks.insert(0, text_block(json.dumps(result.structured, sort_keys=True, ensure_ascii=False)))
        if result.is_error and not any(b.get("type") == "text" and b.get("text") for b in blocks):
            said = "reported an error and said nothing more"  # text() puts the origin (server and tool) first
            blocks.insert(0, text_block(said if result.origin else f"{name}: {said}"))
        blocks = self._capped(blocks, self.caps.get(server, self.cap), server, name, files)
        if (more := len(result.content) - BLOCKS) > 0:
            blocks.append(text_block(f"[{more} more content blocks left out: one result keeps at most {BLOCKS} "
                                     "(block limit: BLOCKS in harness/output.py)]"))
        if files.refused:
            blocks.append(text_block(f"[{files.refused} more binary blocks left out, not saved: one result saves at most {FILES} "
                                     "files (file limit: FILES in harness/output.py)]"))
        return ToolResult(tuple(blocks), result.structured, result.is_error, result.origin)

    def render(self, result: ToolResult) -> str | list[dict[str, Any]]:
        """What goes into the ``tool_result``: a string when it is all text, else text and image blocks."""
        if all(b.get("type") == "text" for b in result.content):
            return result.text()
        blocks: list[dict[str, Any]] = []
        if result.is_error and result.origin:
            blocks.append(text_block(f"{result.origin}:"))
        for b in result.content:
            if b.get("type") == "image":
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": b["mimeType"], "data": b["data"]}})
            else:
                blocks.append(text_block(str(b.get("text", ""))))
        return blocks

    @staticmethod
    def show(content: str | list[dict[str, Any]]) -> str:
        """The transcript's line for what the model got: images named with their type and size."""
        if isinstance(content, str):
            return content
        parts = []
        for b in content:
            if b["type"] == "image":
                size = len(base64.b64decode(b["source"]["data"]))
                parts.append(f"[image block: {b['source']['media_type']}, {size} bytes, sent to the model]")
            else:
                parts.append(b["text"])
        return "\n".join(parts)

    def save(self, data: str, kind: str, server: str, name: str, what: str) -> str:
        """One binary block saved on its own (a resource read by hand): the note naming its file."""
        return str(self._saved(data, kind, server, name, what, _Files(1))[0]["text"])

    # -- one block at a time --

    def _block(self, block: Block, server: str, tool: str, files: _Files) -> list[Block]:
        kind = block.get("type")
        audience = (block.get("annotations") or {}).get("audience")
        if isinstance(audience, list) and "assistant" not in audience:  # for the user only: shown, not sent
            if self.transcript is not None:
                shown = block.get("text") if kind == "text" else f"[{kind} block]"
                self.transcript.emit("note", text=f"for the user only, from {server}/{tool}: {shown}")
            return []
        if kind == "text":
            return [text_block(str(block.get("text", "")))]
        if kind == "image":
            return self._image(block, server, tool, files)
        if kind == "audio":
            return self._saved(block.get("data", ""), block.get("mimeType", ""), server, tool, "audio", files)
        if kind == "resource_link":
            details = ", ".join(str(block[k]) for k in ("name", "mimeType") if block.get(k))
            about = f": {block['description']}" if block.get("description") else ""
            return [text_block(f"resource link: {block.get('uri', '?')}" + (f" ({details})" if details else "") + about)]
        if kind == "resource":
            resource = block.get("resource") or {}
            if "text" in resource:
                return [text_block(f"resource {resource.get('uri', '?')}:\n{resource['text']}")]
            return self._saved(resource.get("blob", ""), resource.get("mimeType", ""), server, tool, "embedded resource", files)
        return [text_block(f"[a {str(kind)[:40]} block the harness does not know: left out]")]

    def _image(self, block: Block, server: str, tool: str, files: _Files) -> list[Block]:
        kind, data = str(block.get("mimeType", "")), str(block.get("data", ""))
        raw = _decoded(data)
        if raw is not None and kind in _MAGIC and raw.startswith(_MAGIC[kind]) and len(raw) <= IMAGE_BYTES:
            if kind != "image/webp" or raw[8:12] == b"WEBP":
                return [{"type": "image", "mimeType": kind, "data": data}]
        why = "too large" if raw is not None and len(raw) > IMAGE_BYTES else "not what its media type says"
        return self._saved(data, "application/octet-stream", server, tool, f"image ({kind or 'no type'}, {why})", files)

    def _saved(self, data: str, kind: str, server: str, tool: str, what: str, files: _Files) -> list[Block]:
        """The block saved to a file, as a note naming it; nothing once the result has used its ``FILES``."""
        if not files.left:
            files.refused += 1
            return []
        raw = _decoded(data)
        if raw is None:
            return [text_block(f"[{what}: its data is not base64; left out]")]
        files.left -= 1
        path = self._file(server, tool, _EXTENSIONS.get(kind, "bin"))
        try:
            write_regular(path, raw)
        except OSError as exc:  # a FIFO or a folder placed where the file goes, a full disk
            return [text_block(f"[{what}, {kind or 'no type'}, {len(raw)} bytes: not saved, {self._shown(path)}: {exc.strerror or exc}]")]
        return [text_block(f"[{what}, {kind or 'no type'}, {len(raw)} bytes: saved to {self._shown(path)}]")]

    def _capped(self, blocks: list[Block], cap: int, server: str, tool: str, files: _Files) -> list[Block]:
        kept, images = [], 0
        for block in blocks:  # one pass: images past the count are saved, like any other binary
            if block.get("type") == "image" and (images := images + 1) > IMAGES:
                kept += self._saved(block["data"], block["mimeType"], server, tool, "image (over the count)", files)
            else:
                kept.append(block)
        blocks = kept
        text = "\n".join(b["text"] for b in blocks if b.get("type") == "text")
        used = tokens(text)
        if used <= cap:
            return blocks
        path = self._file(server, tool, "txt")
        try:
            write_regular(path, text.encode("utf-8", errors="replace"))
            where = f"The whole text is in {self._shown(path)}; {self.reader}"
        except OSError as exc:
            where = f"The whole text could not be saved ({self._shown(path)}: {exc.strerror or exc})"
        room = cap * 4
        head = text[:room].rsplit("\n", 1)[0] if "\n" in text[:room] else text[:room]
        hint = f"[cut: about {used} tokens, over the cap of {cap}. {where}]"
        return [text_block(head + "\n" + hint)] + [b for b in blocks if b.get("type") == "image"]

    def _file(self, server: str, tool: str, extension: str) -> Path:
        self._count += 1
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / f"{self._count:03d}-{_safe(server)}-{_safe(tool)}.{extension}"

    def _shown(self, path: Path) -> str:
        return f"{self.shown_as.rstrip('/')}/{path.name}" if self.shown_as else str(path)


@dataclass
class _Files:
    """One result's files: how many it may still write, and how many blocks it could not."""

    left: int
    refused: int = 0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40] or "_"


def _decoded(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
