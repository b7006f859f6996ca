"""Skills for the model: a catalogue in the system prompt, one ``load_skill`` tool, trust asked, text screened.

``harness.skills`` lists each server's skills and verifies what is read; this part (``Skills``,
s37) decides what the model sees of them and when:

- **A catalogue, not the skills.** Each turn the system prompt lists every connected
  server's skills, one line each (``forms:pdf-forms: Fill in ...``), within a budget of
  characters; past it the catalogue is cut and says how many skills were left out.
- **One tool.** ``load_skill {skill}`` reads that skill's ``SKILL.md`` (verified) and
  answers its text after the frontmatter, with its files listed; ``load_skill {skill, file}``
  reads one of those files (verified), once the skill is loaded. Nothing is read before the
  model asks: no prefetch, at connect or at listing.
- **Names** are ``server:skill``, the server's name normalized as s21 does for tools. Two
  skills of one server with the same name are both named by their path
  (``forms:team-a/pdf``); a name two servers produce alike (``my.docs`` and ``my_docs``)
  keeps the first server's skill and leaves the other out, with a warning naming both.
- **Trust.** A skill's text is instructions from a server. Loading a skill of a server not
  marked ``"trustSkills": true`` in its config entry is asked, as s31 asks before a call
  (``always``: that server's skills for this session); with nobody to ask, the answer is no.
  s31's screen looks at each description when it is listed and at each ``SKILL.md`` when it
  is loaded, and warns about instructions aimed at the model or hidden characters.
- A file that fails verification is refused in one line naming the skill, the file and
  what differed, and its content never reaches the model.

Introduced by s37. Not handled here: skills of the user's own folders (Claude Code's
``.claude/skills``), a skill's ``allowed-tools``, unloading a skill.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

from harness import echo, permissions, resources
from harness.errors import ToolError
from harness.loop import Policy, Turn
from harness.model import ToolCall
from harness.naming import normalize
from harness.parts import Built, Part
from harness.results import ToolResult
from harness.skills import Listing, Skill
from harness.tools import Tool

if TYPE_CHECKING:
    from harness.config.formats import ServerConfig

NAME = "load_skill"
TRUST = "trustSkills"  # a server's config field: its skills load without asking
BUDGET = 4_000  # characters of catalogue in the system prompt (Claude Code keeps skill listings to about 1% of the context)
DESCRIPTION_CUT = 250  # characters of one skill's description in the catalogue


def qualified(listings: Mapping[str, Sequence[Skill]]) -> tuple[dict[str, Skill], list[str]]:
    """Each skill under its ``server:skill`` name, and a warning for each one left out because its name was taken."""
    names: dict[str, Skill] = {}
    warnings = []
    for server in sorted(listings):
        skills = listings[server]
        counts: dict[str, int] = {}
        for skill in skills:
            counts[skill.name] = counts.get(skill.name, 0) + 1
        for skill in skills:
            short = skill.name if counts[skill.name] == 1 else skill.path  # alike within one server: by path
            name = f"{normalize(server)}:{short}"
            taken = names.get(name)
            if taken is not None:
                warnings.append(f"skill {name} of server '{server}' is left out: the name is taken by server "
                                f"'{taken.server}' ({taken.uri})")
                continue
            names[name] = skill
    return names, warnings


def catalogue(names: Mapping[str, Skill], budget: int = BUDGET) -> tuple[str, int]:
    """The system prompt's lines for ``names`` within ``budget`` characters, and how many were left out."""
    head = (f"Skills: instructions servers offer for tasks. Before doing a task a skill covers, load it with {NAME} "
            "and follow it; read the files it names with file=PATH.")
    lines, used = [head], len(head)
    for shown, name in enumerate(sorted(names)):
        line = f"- {name}: {echo.line(names[name].description, DESCRIPTION_CUT)}"
        if used + len(line) + 1 > budget:
            left = len(names) - shown
            lines.append(f"({left} more skill{'s' if left != 1 else ''} not listed: over the catalogue's {budget:,} characters)")
            return "\n".join(lines), left
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines), 0


class Loader:
    """The skills of one stack as the model sees them: names, what is loaded, who is trusted."""

    def __init__(self, built: Built, prompter: permissions.Prompter | None, budget: int) -> None:
        self.built = built
        self.prompter = prompter or permissions.NoPrompter()
        self.budget = budget
        self.listings: dict[str, Listing] = {}  # server -> its connection's listing (the latest connection's)
        self.trusted = {s.name for s in built.servers if s.spec is not None and s.raw.get(TRUST) is True}
        self.names: dict[str, Skill] = {}
        self.loaded: set[str] = set()  # uris of the SKILL.md files read and verified this session
        self._said: set[str] = set()
        self._cut = 0
        self.tool = Tool(NAME, _DESCRIPTION, _SCHEMA, self.call, annotations={"readOnlyHint": True})
        for server in built.servers:  # a value that is not true or false would be read as "not trusted" without a word
            if TRUST in server.raw and not isinstance(server.raw[TRUST], bool):
                self.say("warning", f"server '{server.name}': field '{TRUST}': expected true or false, not "
                                    f"{server.raw[TRUST]!r:.60}; its skills are asked about")

    def say(self, kind: str, text: str) -> None:
        """A transcript line, once per run for the same text."""
        transcript = self.built.transcript
        if text in self._said or transcript is None:
            return
        self._said.add(text)
        if kind == "warning":
            transcript.warning(text)
        else:
            transcript.note(text)

    async def refresh(self) -> None:
        """List again where a server said its skills changed; name every connected server's skills."""
        live = dict(self.built.hub.clients.items())
        for server, listing in sorted(self.listings.items()):
            if listing.stale and server in live:
                try:
                    await listing.relist()
                except ToolError as exc:
                    self.say("warning", f"{exc}; its skills are as last listed")
        self.names, warnings = qualified({s: l.skills for s, l in self.listings.items() if s in live})
        for text in warnings:
            self.say("warning", text)
        for name, skill in sorted(self.names.items()):
            reasons = permissions.suspicious({"name": skill.name, "description": skill.description})
            if reasons:
                self.say("warning", f"skill {name}: {'; '.join(reasons)}. It is listed unchanged: review it before loading it")

    def turn(self, turn: Turn) -> Turn:
        if not self.names:
            return turn
        text, left = catalogue(self.names, self.budget)
        if left and left != self._cut:
            self._cut = left
            self.say("note", f"skills: {left} of {len(self.names)} left out of the catalogue (budget {self.budget:,} characters)")
        builtins = [t for t in turn.tools if t.source == "builtin"]
        return Turn(f"{turn.system}\n{text}", (*builtins, self.tool, *turn.tools[len(builtins):]))

    def bypass(self, call: ToolCall, tool: Tool) -> ToolResult | None:
        """A refusal for s30's resource reader asked for a skill's file, which only ``load_skill`` reads (verified)."""
        uri = call.input.get("uri")
        if tool.name != resources.READ or not isinstance(uri, str) or not uri.startswith("skill://"):
            return None
        for name, skill in sorted(self.names.items()):
            if skill.server == call.input.get("server") and uri.startswith(skill.root):
                return ToolResult.failure(f"{uri} is a file of skill {name}: read it with {NAME}, which verifies it")
        return None

    async def call(self, args: dict[str, Any]) -> ToolResult:
        name, path = args.get("skill"), args.get("file")
        if not isinstance(name, str) or not name:
            raise ToolError(f"{NAME}: 'skill' is required: one of {', '.join(sorted(self.names)) or 'none'}")
        skill = self.names.get(name)
        if skill is None:
            raise ToolError(f"{NAME}: no skill {name!r}; the skills are {', '.join(sorted(self.names)) or 'none'}")
        listing = self.listings[skill.server]
        if path is None:
            return await self._load(name, skill, listing, args)
        if not isinstance(path, str) or not path:
            raise ToolError(f"{NAME}: 'file' must be a path of the skill, such as references/NAME.md")
        if skill.uri not in self.loaded:
            raise ToolError(f"{NAME}: load {name} first (without file), then read its files")
        uri = skill.root + path.removeprefix("/")
        if skill.files is not None and skill.file(uri) is None:
            files = ", ".join(skill.relative(f.uri) for f in skill.files if f.uri != skill.uri) or "none"
            raise ToolError(f"{NAME}: {name} has no file {path!r}; its files: {files}")
        data = await listing.read(skill, uri)
        unverified = "" if skill.files is not None else " (unverified: the server lists this skill's files as dynamic)"
        return ToolResult.of(f"{name}: {path}{unverified}\n{_text(data).rstrip()}")

    async def _load(self, name: str, skill: Skill, listing: Listing, args: dict[str, Any]) -> ToolResult:
        if skill.server not in self.trusted and not await self._allowed(name, skill, args):
            return ToolResult.failure(f"permission denied: the user declined loading skill {name} "
                                      f"(server '{skill.server}' is not trusted for skills)")
        data = await listing.read(skill, skill.uri)
        body = _text(data)
        body = body.split("\n---", 1)[1].lstrip("-").lstrip("\n") if body.startswith("---") and "\n---" in body else body
        reasons = [r for r in permissions.suspicious({"name": skill.name, "description": body}) if "characters (over" not in r]
        if reasons:
            self.say("warning", f"skill {name}: SKILL.md: {'; '.join(reasons)}. It is passed on unchanged: review the skill")
        self.loaded.add(skill.uri)
        files = [f"{skill.relative(f.uri)} ({f.size:,} bytes)" if f.size is not None else skill.relative(f.uri)
                 for f in skill.files or () if f.uri != skill.uri]
        listed = (f"Files of this skill (read one with {NAME} and file=PATH): {', '.join(files)}" if files else
                  "This skill lists no other files." if skill.files is not None else
                  f"Its files are dynamic: read one by its path with {NAME} and file=PATH.")
        return ToolResult.of(f"Skill {name} (SKILL.md verified):\n{body.rstrip()}\n\n{listed}")

    async def _allowed(self, name: str, skill: Skill, args: dict[str, Any]) -> bool:
        decision = permissions.Decision("ask", f"server '{skill.server}' is not trusted for skills")
        answer = await self.prompter.ask(self.tool, args, decision)
        if self.built.transcript is not None:
            self.built.transcript.emit("ask", name=f"{NAME} {name}", reason=decision.reason, answer=answer, asked=True,
                                       by=getattr(self.prompter, "who", "user"))
        if answer == "always":
            self.trusted.add(skill.server)
        return answer in ("yes", "always")


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(binary, {len(data):,} bytes: not shown)"


_DESCRIPTION = (f"Load a skill from the catalogue in the system prompt: {NAME} with skill=SERVER:NAME returns its "
                "instructions (SKILL.md) and lists its files; with file=PATH as well, one of those files. Every file is "
                "checked against the server's listing, and one that differs is refused.")
_SCHEMA = {"type": "object", "properties": {
    "skill": {"type": "string", "description": "the skill's name as the catalogue gives it: server:skill"},
    "file": {"type": "string", "description": "a file of the skill, relative to its folder (references/FORMS.md)"},
}, "required": ["skill"]}


@dataclass
class Skills(Part):
    """``prompter``: who answers the trust question (None: the permissions part's, else nobody, so no);
    ``budget``: the catalogue's characters."""

    lesson: ClassVar[str] = "s37"
    prompter: permissions.Prompter | None = None
    budget: int = BUDGET
    loader: Loader | None = field(default=None, init=False)

    async def enter(self, built: Built) -> None:
        found = built.found.get("prompter")  # none given: the permissions part's (s31), so a stack asks the user one way
        self.loader = Loader(built, self.prompter or (found if isinstance(found, permissions.Asking) else None), self.budget)

    def mechanisms(self, server: ServerConfig, built: Built) -> Sequence[Listing]:
        assert self.loader is not None
        listing = self.loader.listings[server.name] = Listing()
        return [listing]

    async def connected(self, built: Built) -> None:
        assert self.loader is not None
        await self.loader.refresh()

    async def before_turn(self, built: Built) -> None:
        assert self.loader is not None
        await self.loader.refresh()

    def offered(self, turn: Turn, built: Built) -> Turn:
        assert self.loader is not None
        return self.loader.turn(turn)

    def policy(self, policy: Policy, built: Built) -> Policy:
        loader = self.loader
        assert loader is not None
        before = policy.before_call

        async def before_call(call: ToolCall, tool: Tool) -> ToolResult | None:
            if tool is loader.tool:
                return None  # its trust question is its own
            return loader.bypass(call, tool) or await before(call, tool)

        return replace(policy, before_call=before_call)
