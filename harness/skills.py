"""Skills from servers (SEP-2640, ``io.modelcontextprotocol/skills``): listed at connect, read only when chosen, verified.

A server that declares the extension (``capabilities.extensions["io.modelcontextprotocol/skills"]``;
in the handshake era, which has no ``extensions``, ``capabilities.experimental``) answers ``skills/list`` (paged) with one entry per skill::

    {uri: "skill://pdf-processing/SKILL.md", frontmatter: {name, description, ...},
     resources: [{uri, digest: "sha256:<hex>", size}, ...] | "dynamic"}

Every file of a skill is an ordinary resource, read with ``resources/read``. This module is
the wire side, one ``Listing`` mechanism per connection (``harness.hooks``):

- **Listed, never prefetched.** ``on_open`` calls ``skills/list`` and nothing else: no
  ``SKILL.md`` and no file is read before someone (the model, through ``harness.skilltool``,
  or a user's ``mcp-course skill``) asks for that skill. A ``notifications/skills/list_changed``
  or ``notifications/resources/list_changed`` marks the listing stale; ``relist()`` asks again.
- **Checked at listing.** An entry without a ``skill://.../SKILL.md`` uri, a name or a
  description, a name that breaks the Agent Skills rule (1-64 lower-case letters, digits and
  single hyphens: it goes into the model's prompt), with more than 512 files or more than 16 MiB of them, or with a malformed
  digest is left out, with one warning naming the server, the skill and what is wrong.
  Frontmatter ``metadata`` keys under ``io.modelcontextprotocol/`` are reserved for MCP
  extensions and this extension defines none: each is a warning, and kept as listed.
- **Verified on read.** A file's bytes (``text`` as UTF-8, or ``blob`` decoded) must have
  the entry's size and its ``sha256:`` digest, and a ``SKILL.md``'s frontmatter must equal the
  listed one field by field. Any difference raises ``Tampered``, whose message names the
  skill, the file and what differed; the content is never handed on.

``skills/get`` (one entry by uri) and ``resources/directory/read`` (a ``dynamic`` skill's
folder) are requests here too. Introduced by s37.

Not handled here: naming skills for the model, trust and the model's tool
(``harness.skilltool``); a ``dynamic`` skill's files have no digest, so only its ``SKILL.md``
frontmatter can be checked.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from harness import echo
from harness.errors import ToolError
from harness.hooks import Mechanism
from harness.jsonvalue import JSONObject

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from harness.client import Host

EXTENSION = "io.modelcontextprotocol/skills"
RESERVED = "io.modelcontextprotocol/"  # frontmatter metadata keys under it belong to MCP extensions
MAX_FILES = 512  # a skill's files, at most (the SEP's limit)
MAX_BYTES = 16 * 1024 * 1024  # a skill's files together, at most: 16 MiB
CHANGED = ("notifications/skills/list_changed", "notifications/resources/list_changed")
PAGES = 100  # skills/list pages followed at most: a cursor that never ends stops here
DYNAMIC = "dynamic"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_NAME = re.compile(r"(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*")  # a skill's name, by the Agent Skills specification
_PATH = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")  # the skill path: what a server:path name may show
_FRONT = re.compile(r"^---\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)


class Tampered(ToolError):
    """A skill file that differs from its listing: never handed on."""


@dataclass(frozen=True)
class File:
    """One file of a skill, as its entry lists it."""

    uri: str
    digest: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class Skill:
    """One listed skill of one server."""

    server: str
    uri: str  # its SKILL.md
    frontmatter: JSONObject
    files: tuple[File, ...] | None  # None: "dynamic", listed by resources/directory/read

    @property
    def name(self) -> str:
        return str(self.frontmatter["name"])

    @property
    def description(self) -> str:
        return str(self.frontmatter["description"])

    @property
    def root(self) -> str:
        """``skill://pdf-processing/``: the folder every relative path is read from."""
        return self.uri[: -len("SKILL.md")]

    @property
    def path(self) -> str:
        """The skill path, ``pdf-processing`` (several segments for a nested skill)."""
        return self.root[len("skill://"):].rstrip("/")

    def file(self, uri: str) -> File | None:
        return next((f for f in self.files or () if f.uri == uri), None)

    def relative(self, uri: str) -> str:
        return uri[len(self.root):] if uri.startswith(self.root) else uri

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files or ())


def entry(server: str, raw: object) -> tuple[Skill | None, list[str]]:
    """One ``skills/list`` entry as a ``Skill``, or None with why; and the warnings it earns either way."""
    if not isinstance(raw, dict):
        return None, [f"server '{server}': skills/list: an entry that is not an object: left out"]
    uri = raw.get("uri")
    shown = echo.line(uri if isinstance(uri, str) else "?", 120)
    where = f"server '{server}': skill {shown}"
    front = raw.get("frontmatter")
    if not isinstance(uri, str) or not uri.startswith("skill://") or not uri.endswith("/SKILL.md"):
        return None, [f"{where}: uri is not skill://<path>/SKILL.md: left out"]
    if not isinstance(front, dict) or not all(isinstance(front.get(k), str) and front[k] for k in ("name", "description")):
        return None, [f"{where}: frontmatter lacks a name or a description: left out"]
    if not _NAME.fullmatch(front["name"]):
        return None, [f"{where}: name '{echo.line(front['name'], 80)}' is not 1-64 lower-case letters, digits and single "
                      "hyphens (the Agent Skills rule): left out"]
    if not _PATH.fullmatch(uri[len("skill://"):-len("/SKILL.md")]):
        return None, [f"{where}: its path is not segments of letters, digits, '.', '_' and '-': left out"]
    warnings = [f"{where}: frontmatter metadata key '{echo.line(k, 80)}' is reserved for MCP extensions "
                "(io.modelcontextprotocol/...) and none is defined: ignored"
                for k in (front.get("metadata") or {}) if isinstance(k, str) and k.startswith(RESERVED)]
    listed = raw.get("resources")
    if listed == DYNAMIC:
        return Skill(server, uri, front, None), warnings
    if not isinstance(listed, list):
        return None, [*warnings, f"{where}: resources is neither a list nor \"dynamic\": left out"]
    if len(listed) > MAX_FILES:
        return None, [*warnings, f"{where}: {len(listed)} files, over the limit of {MAX_FILES}: left out"]
    files = []
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            return None, [*warnings, f"{where}: a resource without a uri: left out"]
        digest, size = item.get("digest"), item.get("size")
        if digest is not None and (not isinstance(digest, str) or not _DIGEST.fullmatch(digest)):
            return None, [*warnings, f"{where}: {echo.line(item['uri'], 120)}: digest is not sha256:<64 hex>: left out"]
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
            return None, [*warnings, f"{where}: {echo.line(item['uri'], 120)}: size is not a whole number: left out"]
        files.append(File(item["uri"], digest, size))
    skill = Skill(server, uri, front, tuple(files))
    if skill.size > MAX_BYTES:
        return None, [*warnings, f"{where}: {skill.size:,} bytes of files, over the limit of {MAX_BYTES:,} (16 MiB): left out"]
    return skill, warnings


def frontmatter(text: str) -> dict[str, Any] | None:
    """The YAML frontmatter at the top of a ``SKILL.md`` (between ``---`` lines), or None without one."""
    found = _FRONT.match(text.removeprefix("\ufeff"))
    if found is None:
        return None
    try:
        parsed = yaml.safe_load(found.group(1))
    except yaml.YAMLError:
        return None
    return parsed if isinstance(parsed, dict) else None


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def contents_bytes(contents: Sequence[JSONObject]) -> bytes:
    """The bytes of a ``resources/read`` answer: each ``text`` as UTF-8, each ``blob`` decoded."""
    data = b""
    for item in contents:
        if isinstance(item.get("text"), str):
            data += item["text"].encode("utf-8")
        elif isinstance(item.get("blob"), str):
            data += base64.b64decode(item["blob"])
    return data


def verify(skill: Skill, uri: str, data: bytes) -> None:
    """``Tampered`` if ``data`` (the file ``uri`` of ``skill``, as read) differs from its entry."""
    listed = skill.file(uri)
    where = f"skill '{skill.server}:{skill.name}': {skill.relative(uri)}"
    if listed is not None and listed.size is not None and len(data) != listed.size:
        raise Tampered(f"{where}: refused, not the file listed: {len(data):,} bytes read, {listed.size:,} listed")
    if listed is not None and listed.digest is not None and (found := digest(data)) != listed.digest:
        raise Tampered(f"{where}: refused, not the file listed: digest {found[:19]}... read, {listed.digest[:19]}... listed")
    if uri == skill.uri:
        front = frontmatter(data.decode("utf-8", "replace"))
        if front is None:
            raise Tampered(f"{where}: refused: no frontmatter (--- name, description ---) at its top, as the listing has")
        differ = sorted(k for k in {*front, *skill.frontmatter} if front.get(k) != skill.frontmatter.get(k))
        if differ:
            raise Tampered(f"{where}: refused, not the file listed: its frontmatter differs in {', '.join(differ)}")


def declared(capabilities: JSONObject) -> JSONObject | None:
    """The extension's settings if the server declared it (``{}`` counts), else None: under ``extensions``, or in
    the handshake era, whose capabilities have no ``extensions``, under ``experimental``."""
    for where in ("extensions", "experimental"):
        found = (capabilities.get(where) or {}).get(EXTENSION)
        if isinstance(found, dict):
            return found
    return None


@functools.cache
def _request_type() -> Any:
    import mcp_types  # the SDK: only once a server declared skills

    class Raw(mcp_types.Request[Any, str]):  # an extension's request: its method and params as given
        pass

    return Raw


@functools.cache
def _as_dict() -> Any:
    from pydantic import TypeAdapter  # with the SDK, only once a server declared skills

    return TypeAdapter(dict[str, Any])  # the answer as the server sent it: checked by ``entry``, not by a model


def _malformed(server: str, exc: ValueError) -> str:
    """A skills/list answer that is not a listing, in one line naming the server."""
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"server '{server}': skills/list: the answer is not a skills listing: {echo.line(first, 160)}"


class Listing(Mechanism):
    """A connection's skills: listed at connect and when stale; read, verified, when asked for."""

    order = 55  # after s30's offers (resources) and s34's listen

    def __init__(self) -> None:
        self.skills: list[Skill] = []
        self.settings: JSONObject | None = None  # the extension's settings, once declared
        self.stale = False
        self.warnings: list[str] = []
        self._host: Host | None = None

    def bind(self, host: Host) -> None:
        self._host = host

    @property
    def host(self) -> Host:
        assert self._host is not None, "a Listing is bound before its first session"
        return self._host

    async def on_open(self, session: ClientSession) -> None:
        self.settings = declared(self.host.capabilities)
        if self.settings is not None:
            self.host.begin("skills/list")
            try:
                await self._list(session)
            except (ToolError, ValueError) as exc:  # a listing that fails costs the skills, not the server's tools
                self.skills = []
                said = str(exc) if isinstance(exc, ToolError) else _malformed(self.host.name, exc)
                self._warn(f"{said}; no skills from it")

    def on_notification(self, message: object) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method in CHANGED and self.settings is not None:
            self.stale = True  # recorded here; listed again by whoever reads next (relist)

    async def relist(self) -> list[Skill]:
        """``skills/list`` again on the live session; the new listing (``ToolError`` if it fails: the old one is kept)."""
        try:
            await self._list(self.host.live(None))
        except ValueError as exc:  # an answer that is not a listing
            raise ToolError(_malformed(self.host.name, exc)) from None
        return self.skills

    async def _list(self, session: ClientSession) -> None:
        host = self.host
        found, cursor, seen = [], None, set()
        for _ in range(PAGES):
            page = await self.ask(session, "skills/list", {"cursor": cursor} if cursor else {})
            listed = page.get("skills", [])
            if not isinstance(listed, list):
                raise ValueError(f"'skills' is a {type(listed).__name__}, not a list")
            found.extend(listed)
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                break
            seen.add(cursor)
        skills, warnings = [], []
        for raw in found:
            skill, said = entry(host.name, raw)
            warnings += said
            if skill is not None:
                skills.append(skill)
        self.skills, self.stale = skills, False
        for text in warnings:
            self._warn(text)

    def _warn(self, text: str) -> None:
        """A warning line, once per connection for the same text (a relisting repeats a bad entry's)."""
        if text not in self.warnings:
            self.warnings.append(text)
            self.host.say("warning", text)

    async def ask(self, session: ClientSession, method: str, params: JSONObject) -> JSONObject:
        """One request of the extension (``skills/list``, ``skills/get``, ``resources/directory/read``) under the list timeout."""
        host = self.host
        request = session.send_request(_request_type()(method=method, params=params), _as_dict())
        return await host.request(method, request, host.timeouts.list, "list")

    async def get(self, uri: str) -> Skill | None:
        """``skills/get``: the entry of one skill by its uri, checked as a listed one is."""
        answer = await self.ask(self.host.live(None), "skills/get", {"uri": uri})
        skill, warnings = entry(self.host.name, answer.get("skill"))
        for text in warnings:
            self.host.say("warning", text)
        return skill

    async def directory(self, uri: str) -> list[JSONObject]:
        """``resources/directory/read``: the children of a folder of a skill (every page)."""
        found, cursor = [], None
        for _ in range(PAGES):
            page = await self.ask(self.host.live(None), "resources/directory/read", {"uri": uri, **({"cursor": cursor} if cursor else {})})
            found += [r for r in page.get("resources") or [] if isinstance(r, dict)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        return found

    async def read(self, skill: Skill, uri: str) -> bytes:
        """The bytes of ``uri`` (a file of ``skill``), verified against its entry; ``Tampered`` if they differ."""
        host = self.host
        session = host.live(None)
        what = f"resources/read {uri}"
        result = await host.fetched(session, "resources/read", uri, lambda: host.send("resources/read", uri, {}, what))
        data = contents_bytes([c.model_dump(by_alias=True, mode="json", exclude_none=True) for c in result.contents])
        verify(skill, uri, data)
        return data
