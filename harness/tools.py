"""What a tool is, and the built-in tools every lesson starts with.

A ``Tool`` is a value: the name and schema the model sees, plus an async ``call`` that
takes the model's input and returns text or a ``ToolResult``. MCP tools (s19 on) are ``Tool`` values too;
the agent loop cannot tell them apart from built-ins, which is the point of MCP.

The built-ins are deliberately safe to run offline: they read, write and list files
inside one workspace folder and refuse any path that leaves it (``..``, an absolute
path elsewhere, or a symlink pointing out). They also refuse the harness's private
folders even when those lie inside the workspace (a user may point ``--workspace`` at
their home): the per-user state folder, ``state_dir()``, which holds the token store
(s26), and any folder a lesson adds with ``Workspace.keep_out``. Tokens are never the
model's to read, or to plant.

Nothing the model sends can crash the run: a NUL byte, a lone surrogate, an over-long
name, a folder where a file is expected, a binary file, a file of any size or a
filesystem error each come back as a ``ToolError`` the model reads. Reads stop at
``READ_CAP`` bytes and say so; listings stop at ``LIST_CAP`` entries and say so.

Introduced by s19. Not handled here: shell commands, images and other binary content
(refused, not shown), large outputs beyond these caps (output governance is s32). A hard
link is not caught: it is the same file under a second name, so a hard link inside the
workspace to a file outside it (a token file included) passes every path check. Only the
filesystem can prevent it (keep secrets on another filesystem, or where the user running
the harness cannot link them into the workspace).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness import echo
from harness.errors import ToolError
from harness.files import NotAFile, read_regular, write_regular
from harness.jsonvalue import JSONMapping, JSONObject
from harness.results import ToolResult

Call = Callable[[JSONObject], Awaitable["ToolResult | str"]]


@dataclass(frozen=True)
class Tool:
    """One tool as the model sees it, and how to run it."""

    name: str
    description: str
    input_schema: JSONMapping
    call: Call = field(compare=False, repr=False)
    source: str = "builtin"  # "builtin", or the server the tool comes from
    # As the server sent them: title, readOnlyHint, destructiveHint, idempotentHint,
    # openWorldHint. Claims, not facts (s31 decides what to trust).
    annotations: JSONMapping = field(default_factory=dict)
    concurrent: bool = False  # back-to-back calls to it in one turn may run at once (connect_mcp)
    original: str = ""  # an MCP tool's name as its server gave it (autoApprove lists use it); "" for built-ins

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def destructive(self) -> bool:
        return bool(self.annotations.get("destructiveHint"))

    def spec(self) -> JSONObject:
        """The tool definition in the shape the Anthropic Messages API takes."""
        return {"name": self.name, "description": self.description, "input_schema": dict(self.input_schema)}


READ_ONLY = {"readOnlyHint": True}


def _schema(**props: str) -> JSONObject:
    """An object schema whose properties are all required strings."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in props.items()},
        "required": list(props),
    }


PROJECT = "mcp-course"  # the folder name of the harness's per-user state
READ_CAP = 256 * 1024  # bytes read_file returns at most; the rest is cut with a note (Claude Code's Read stops at 256 KB)
LIST_CAP = 1000  # entries list_dir returns at most
NAME_MAX = 255  # bytes in one path component (Linux, macOS)
PATH_MAX = 4096  # bytes in a whole path (Linux)
SHOWN = 80  # characters of a model-given path echoed back in a message


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The harness's per-user state folder: ``$XDG_STATE_HOME/mcp-course``, else ``~/.local/state/mcp-course``.

    XDG Base Directory rules: a relative ``XDG_STATE_HOME`` is invalid and ignored.
    """
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        home = env.get("HOME") or str(Path.home())
        base = os.path.join(home, ".local", "state")
    return Path(base) / PROJECT


class Workspace:
    """A folder the built-in tools may touch, and nothing outside it or in a private folder."""

    def __init__(self, root: Path, private: Iterable[Path] = (), env: Mapping[str, str] | None = None) -> None:
        self.root = root.resolve()
        # Resolved now, so a private folder reached through a symlink is recognised too.
        self.private = tuple(dict.fromkeys(Path(p).resolve() for p in (state_dir(env), *private)))

    def keep_out(self, *private: Path) -> Workspace:
        """The same workspace, with more folders the tools refuse (a lesson's token store)."""
        fenced = Workspace(self.root)
        fenced.private = tuple(dict.fromkeys((*self.private, *(Path(p).resolve() for p in private))))
        return fenced

    def resolve(self, relative: str) -> Path:
        _check_path(relative)
        try:
            # Resolving follows symlinks, so a link that points outside is caught here too.
            target = (self.root / relative).resolve()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
            raise ToolError(f"path '{_shown(relative)}': {_reason(exc)}") from None
        if target != self.root and self.root not in target.parents:
            raise ToolError(f"path '{_shown(relative)}' is outside the workspace")
        if any(target == p or p in target.parents for p in self.private):
            raise ToolError(f"path '{_shown(relative)}' is in the harness's private state (tokens); the file tools never touch it")
        return target

    def tools(self) -> list[Tool]:
        """read_file, write_file and list_dir, bound to this workspace."""

        async def read_file(args: JSONObject) -> str:
            given = _arg(args, "path")
            path = self.resolve(given)
            sizes: list[int] = []
            try:
                if path.is_dir():
                    raise ToolError(f"'{_shown(given)}' is a folder, not a file; list_dir lists it")
                data = read_regular(path, READ_CAP, check=lambda found: sizes.append(found.st_size))
                size = sizes[0]
            except FileNotFoundError:
                raise ToolError(f"no such file: '{_shown(given)}'") from None
            except NotAFile as exc:  # a FIFO or a device: reading it could block, or never end
                raise ToolError(f"'{_shown(given)}' is {exc.kind}, not a regular file; read_file reads files only") from None
            except OSError as exc:
                raise ToolError(f"cannot read '{_shown(given)}': {_reason(exc)}") from None
            cut = len(data) > READ_CAP
            data = data[:READ_CAP]
            if b"\0" in data:
                raise ToolError(f"'{_shown(given)}' is a binary file ({size:,} bytes); read_file reads UTF-8 text only")
            text = _decode(data, cut)
            if text is None:
                raise ToolError(f"'{_shown(given)}' is not UTF-8 text ({size:,} bytes); read_file reads UTF-8 text only")
            if cut:
                text += f"\n[truncated: read_file shows the first {READ_CAP:,} bytes (READ_CAP) of {max(size, READ_CAP + 1):,}]"
            return text

        async def write_file(args: JSONObject) -> str:
            given = _arg(args, "path")
            path = self.resolve(given)
            content = _arg(args, "content")
            try:
                encoded = content.encode("utf-8")
            except UnicodeEncodeError:
                raise ToolError("argument 'content': not valid Unicode (a lone surrogate)") from None
            if path == self.root or path.is_dir():
                raise ToolError(f"'{_shown(given)}' is a folder; write_file writes files")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_regular(path, encoded)
            except NotAFile as exc:  # a FIFO would block until someone reads it
                raise ToolError(f"'{_shown(given)}' is {exc.kind}, not a regular file; write_file writes files only") from None
            except OSError as exc:
                raise ToolError(f"cannot write '{_shown(given)}': {_reason(exc)}") from None
            return f"wrote {len(encoded)} bytes to {_shown(given)}"

        async def list_dir(args: JSONObject) -> str:
            relative = args.get("path") or "."
            if not isinstance(relative, str):
                raise ToolError("argument 'path': expected a string")
            path = self.resolve(relative)
            try:
                if not path.is_dir():
                    raise ToolError(f"no such folder: '{_shown(relative)}'")
                names = sorted(_printable(p.name) + ("/" if p.is_dir() else "") for p in path.iterdir())
            except OSError as exc:
                raise ToolError(f"cannot list '{_shown(relative)}': {_reason(exc)}") from None
            if len(names) > LIST_CAP:
                names = names[:LIST_CAP] + [f"[truncated: list_dir shows the first {LIST_CAP:,} entries (LIST_CAP) of {len(names):,}]"]
            return "\n".join(names) if names else "(empty)"

        list_schema = _schema(path="folder relative to the workspace (default: the workspace)")
        list_schema["required"] = []
        return [
            # Descriptions kept word for word: every pinned transcript that lists the pool shows them.
            Tool("read_file", "Read a UTF-8 text file in the workspace.", _schema(path="file path relative to the workspace"), read_file, annotations=READ_ONLY),
            Tool("write_file", "Write a UTF-8 text file in the workspace, replacing it.", _schema(path="file path relative to the workspace", content="the whole new file"), write_file),
            Tool("list_dir", "List a folder in the workspace.", list_schema, list_dir, annotations=READ_ONLY),
        ]


def _check_path(relative: str) -> None:
    """Refuse, in words, what the OS would refuse with an exception (or misread)."""
    if "\0" in relative:
        raise ToolError(f"path '{_shown(relative)}' contains a NUL byte")
    try:
        encoded = relative.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(f"path '{_shown(relative)}' is not valid Unicode (a lone surrogate)") from None
    if len(encoded) > PATH_MAX:
        raise ToolError(f"path '{_shown(relative)}' is too long ({len(encoded):,} bytes; at most {PATH_MAX:,})")
    if any(len(part) > NAME_MAX for part in encoded.split(b"/")):
        raise ToolError(f"path '{_shown(relative)}' has a name over {NAME_MAX} bytes")


def _decode(data: bytes, cut: bool) -> str | None:
    """UTF-8 text, or None; a cut may split the last character (up to 3 bytes), which is dropped."""
    for trim in range(4 if cut else 1):
        try:
            return data[:len(data) - trim].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return None


def _printable(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (surrogate-escaped by the OS layer) as \\xNN."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _shown(text: str) -> str:
    """A model-given path as messages echo it: escaped and short (``harness.echo``)."""
    return echo.line(text, SHOWN)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return "a symlink loop" if isinstance(exc, RuntimeError) else type(exc).__name__


def _arg(args: JSONObject, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolError(f"argument '{name}': expected a string")
    return value
