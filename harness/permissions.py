"""Permissions and trust (s31): who decides whether a tool call runs, and what a server's word is worth.

Every call passes the loop's before-call hook (``Permissions.before_call``), which decides
**allow**, **ask** or **deny** from these sources, strongest first:

    1. deny rules          "mcp__deploy__trigger", "mcp__deploy" (every tool of that server),
                           "mcp__deploy__*" (the same), as Claude Code writes them in settings.json
    2. ask rules           the same syntax; an ask rule asks every time ("always" is not offered)
    3. allow rules         the same syntax
    4. "always" answers    given this session, each for the tool's definition as it was then: one
                           redefined since (description, schema, annotations) is asked about again,
                           the question naming what changed; kept in memory, never written to a file
    5. autoApprove         the server's list in a Cline settings file (tool names as the server gives them;
                           ``auto_approve`` reads it from the config's entries)
    6. annotations         readOnlyHint: allow. Anything else, destructive or unmarked: ask.

Deny beats ask, ask beats allow. A tool a deny rule names is also left out of the pool
(``visible``), as Claude Code does, so the model is not offered what it may never use; a
call to it anyway is denied all the same.

Every decision is a transcript line: ``ok`` allowed without asking (and by what: a rule,
"always", autoApprove, a built-in, the read-only claim), ``??`` asked (and the answer),
``!!`` denied by a rule.

**Asking** goes through a ``Prompter``: a real y/n/always question on a terminal
(``TerminalPrompter``), the scenario's ``answers`` in lessons and tests
(``ScriptedPrompter``), and, with neither, a denial that says why (``NoPrompter``). A
denial is a tool result the model reads, never an exception.

**Trust.** Annotations are the server's claims, not facts: a server can mark a tool that
deletes everything as read-only, and only a rule protects against that. Descriptions
are claims too, and they go to the model: ``Screen`` warns, when a tool first appears,
about descriptions that read as instructions to the model ("tool poisoning"), hide
characters (bidi controls, zero-width, tag characters) or run very long. It never
rewrites them: the user decides, with a rule.

Introduced by s31. Not handled here: writing an "always" to a settings file (only on the
user's explicit request, which no lesson makes), permission modes (plan, bypass).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TextIO

from harness import definition, echo, nesting
from harness.ask import Ask, Script
from harness.config.files import read_config
from harness.errors import ConfigError
from harness.jsonvalue import JSONMapping, JSONObject
from harness.naming import normalize
from harness.results import ToolResult
from harness.tools import Tool
from harness.transcript import Transcript

ALLOW, ASK, DENY = "allow", "ask", "deny"
_UNJUDGED = object()  # a tool no rule was tried on yet under these rules (None is "no deny rule names it")
LONG_DESCRIPTION = 1024  # characters; Claude Code cuts descriptions at 2048


# --- rules --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """Allow, ask and deny rules on model-facing tool names (``mcp__server__tool``)."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def read(cls, path: Path, shown: str | None = None) -> Rules:
        """The ``permissions`` of a Claude Code settings file; a ``ConfigError`` names the file and field."""
        shown = shown or str(path)
        try:
            raw = read_config(path, shown)
            if raw is None:
                return cls()
            data = nesting.loads(raw.decode("utf-8"))
        except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON, or nested past the limit
            raise ConfigError(f"{shown}: cannot read: {exc}") from None
        block = data.get("permissions", {}) if isinstance(data, dict) else None
        if not isinstance(block, dict):
            raise ConfigError(f"{shown}: field 'permissions': expected an object")
        lists = {}
        for key in (ALLOW, ASK, DENY):
            value = block.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{shown}: field 'permissions.{key}': expected a list of tool names")
            lists[key] = tuple(value)
        return cls(**lists)

    def first(self, verdict: str, tool: Tool) -> str | None:
        return next((rule for rule in getattr(self, verdict) if matches(rule, tool)), None)


def matches(rule: str, tool: Tool) -> bool:
    """Claude Code's rule forms, matched by whole segments: ``mcp__server`` and ``mcp__server__*``
    name every tool of that server, ``mcp__server__tool`` (or a built-in's name) one tool.

    The server segment is compared with the server the tool came from (its name normalized,
    as tool names spell it), never as a prefix of the tool's name: under ``mcp__docs``, a
    server named ``docs__evil`` is not docs, though its tools' names begin ``mcp__docs__``.
    """
    if rule == tool.name:
        return True
    server = rule[len("mcp__"):-len("__*")] if rule.endswith("__*") else rule[len("mcp__"):]
    if not rule.startswith("mcp__") or not server or "__" in server or tool.source == "builtin":
        return False
    return normalize(tool.source) == server


def auto_approve(servers: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """Cline's ``autoApprove`` of each configured server (``harness.config.ServerConfig``), read from its entry as written.

    The tool names as the server gives them; a server without the field approves nothing. A
    value that is not a list of strings is a ``ConfigError`` naming the server and the field:
    a permission is never guessed from a malformed one.
    """
    approved = {}
    for server in servers:
        names = server.raw.get("autoApprove")
        if names is None:
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"server '{server.name}': field 'autoApprove': expected a list of strings")
        approved[server.name] = tuple(names)
    return approved


# --- deciding ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    verdict: str  # allow, ask or deny
    reason: str  # which source decided, as the transcript and a denial say it
    may_remember: bool = True  # whether "always" may be offered (not for an ask rule)


class Prompter(Protocol):
    async def ask(self, tool: Tool, arguments: JSONMapping, decision: Decision) -> str:
        """``yes``, ``no`` or ``always``."""


class Permissions:
    """The before-call hook: decides, asks when needed, and remembers "always" for this session."""

    def __init__(self, rules: Rules = Rules(), *, auto_approve: Mapping[str, Iterable[str]] | None = None,
                 prompter: Prompter | None = None, transcript: Transcript | None = None) -> None:
        self.rules = rules
        self.auto_approve = {server: set(names) for server, names in (auto_approve or {}).items()}
        self.prompter = prompter or NoPrompter()
        self.transcript = transcript
        self.always: dict[str, JSONObject] = {}  # tool name -> the definition "always" was answered for
        # What ``split`` remembers: the last pool's answer, and each tool (by id, with the tool) judged under ``_judged_under``.
        self._last_split: tuple[Rules, Sequence[Tool], tuple[tuple[Tool, ...], Mapping[str, str]]] | None = None
        self._judged: dict[int, tuple[Tool, str | None]] = {}
        self._judged_under: Rules | None = None

    def decide(self, tool: Tool) -> Decision:
        name = tool.name
        if rule := self.rules.first(DENY, tool):
            return Decision(DENY, f"deny rule {rule}")
        if rule := self.rules.first(ASK, tool):
            return Decision(ASK, f"ask rule {rule}", may_remember=False)
        if rule := self.rules.first(ALLOW, tool):
            return Decision(ALLOW, f"allow rule {rule}")
        if name in self.always:
            changed = definition.changes(self.always[name], definition.of(tool))
            if not changed:
                return Decision(ALLOW, "answered always, this session")
            # An answer is for the definition it was given for: a tool redefined under the same name is asked about again.
            return Decision(ASK, f"answered always for its earlier definition; changed since: {', '.join(changed)}")
        if tool.source != "builtin" and tool.original in self.auto_approve.get(tool.source, ()):
            return Decision(ALLOW, f"autoApprove of server '{tool.source}'")
        if tool.source == "builtin":
            return Decision(ALLOW, "a built-in tool")
        if tool.read_only:
            return Decision(ALLOW, "read-only, as the server says")
        claim = "destructive, as the server says" if tool.destructive else "not marked read-only"
        return Decision(ASK, claim)

    def visible(self, tools: Sequence[Tool]) -> list[Tool]:
        """The pool without the tools a deny rule names."""
        return list(self.split(tools)[0])

    def hidden(self, tools: Sequence[Tool]) -> dict[str, str]:
        """The tools ``visible`` leaves out, each with the deny rule that names it."""
        return dict(self.split(tools)[1])

    def split(self, tools: Sequence[Tool]) -> tuple[tuple[Tool, ...], Mapping[str, str]]:
        """``visible`` and ``hidden`` at once, as values to read, not change: the same two again for the same pool.

        A pool is handed out again as the very same tuple while nothing changed, and a server
        that lists again keeps the ``Tool`` of each tool it listed as before (``harness.pool``):
        so the last answer is given again for the same tuple under the same ``rules`` object,
        and otherwise each tool already judged under these rules is looked up by identity, not
        matched again; only a new tool meets the rules. Replacing ``rules`` drops both.
        """
        rules, last = self.rules, self._last_split
        if last is not None and last[0] is rules and last[1] is tools and isinstance(tools, tuple):
            return last[2]
        judged = self._judged if self._judged_under is rules else {}  # a tool's id -> (it, the deny rule naming it or None)
        pairs = list(map(judged.get, map(id, tools)))  # in C: a pool judged before costs a lookup a tool
        for i in [i for i, (tool, pair) in enumerate(zip(tools, pairs)) if pair is None or pair[0] is not tool]:
            tool = tools[i]
            pairs[i] = judged[id(tool)] = (tool, rules.first(DENY, tool))
        if len(judged) > 2 * len(pairs) + 64:  # tools of earlier pools: keep only this one's
            judged = dict(zip(map(id, tools), pairs))
        kept = [tool for tool, rule in pairs if rule is None]
        hidden = {tool.name: rule for tool, rule in pairs if rule is not None}
        self._judged, self._judged_under = judged, rules
        found = (tuple(kept), MappingProxyType(hidden))
        self._last_split = (rules, tools, found)
        return found

    async def before_call(self, call: Any, tool: Tool) -> ToolResult | None:
        decision = self.decide(tool)
        if decision.verdict == ASK:
            answer = await self.prompter.ask(tool, call.input, decision)
            self._record(tool, call.input, decision, answer)
            if answer == "always" and decision.may_remember:
                self.always[tool.name] = definition.of(tool)
            if answer in ("yes", "always"):
                return None
            return ToolResult.failure(f"permission denied: the user declined {tool.name} ({decision.reason})")
        if decision.verdict == DENY:
            self._record(tool, call.input, decision, "no")
            return ToolResult.failure(f"permission denied: {tool.name} ({decision.reason})")
        if self.transcript is not None:  # allowed unasked: the line says which source allowed it
            self.transcript.emit("allow", name=tool.name, reason=decision.reason)
        return None

    def _record(self, tool: Tool, arguments: JSONMapping, decision: Decision, answer: str) -> None:
        if self.transcript is not None:
            self.transcript.emit("ask", name=tool.name, reason=decision.reason, answer=answer,
                                 asked=decision.verdict == ASK, by=getattr(self.prompter, "who", "user"))


# --- asking --------------------------------------------------------------------------------------


class Asking:
    """A ``Prompter`` over the one ``harness.ask.Ask``: the reply read as yes, no or always (anything else is no)."""

    def __init__(self, ask: Ask) -> None:
        self._ask = ask
        self.who = ask.who

    async def ask(self, tool: Tool, arguments: JSONMapping, decision: Decision) -> str:
        if self._ask.yes:
            return "yes"
        choices = "[y]es, [n]o" + (", [a]lways" if decision.may_remember else "")
        question = f"allow {tool.name} {json.dumps(dict(arguments), ensure_ascii=False)[:200]}? ({decision.reason}) {choices}: "
        reply = await self._ask.question(question)
        reply = reply.strip().lower() if isinstance(reply, str) else "no"
        if reply in ("y", "yes"):
            return "yes"
        if reply in ("a", "always"):
            return "always" if decision.may_remember or self._ask.script is not None else "no"
        return "no"


def ScriptedPrompter(answers: Iterable[Any]) -> Asking:  # noqa: N802  (named as the prompter it makes)
    """Answers from the scenario's ``answers``, in order; out of answers means no."""
    return Asking(Ask(Script(answers)))


def NoPrompter() -> Asking:  # noqa: N802
    """No terminal and no script: nobody can say yes, so the answer is no."""
    return Asking(Ask())


def TerminalPrompter(ask_in: TextIO | None = None, ask_out: TextIO | None = None) -> Asking:  # noqa: N802
    """A real question on the terminal: y(es), n(o), or a(lways) when that may be remembered."""
    return Asking(Ask(ask_in=ask_in or sys.stdin, ask_out=ask_out))


# --- trust: what a description claims ---------------------------------------------------------------

_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_INSTRUCTIONS = [re.compile(p, re.IGNORECASE) for p in (
    r"\bignore (?:all |any )?(?:previous|prior|above|earlier) (?:instructions|messages)",
    r"\bdo not (?:tell|mention|inform|show)\b[^.]{0,40}\buser",
    r"<\s*/?\s*(?:important|system|instructions?)\s*>",
    r"\bbefore (?:using|calling) (?:this|any|the) tool\b",
    r"\byou (?:must|should) (?:always |first )?(?:read|send|include|pass|call)\b",
    r"(?:~/\.ssh|\bid_rsa\b|\.aws/credentials|\bapi[_ -]?keys?\b|\bpasswords?\b)",
    r"\bsystem prompt\b",
)]


def suspicious(tool: JSONMapping) -> list[str]:
    """Why a server's tool listing deserves a look before the model reads it (empty: nothing seen)."""
    texts = [(tool.get("name", ""), ""), (tool.get("description") or "", "")]
    for where, text in schema_texts(tool.get("inputSchema")):
        texts.append((text, "" if re.fullmatch(r"properties\.[^.]*\.description", where) else f" in inputSchema.{where}"))
    found = []
    for text, where in texts:
        hidden = _HIDDEN.search(text)
        if hidden:
            found.append(f"a hidden character U+{ord(hidden.group()):04X} ({unicodedata.name(hidden.group(), 'unnamed')}){where}")
        said = [m.group() for m in (p.search(text) for p in _INSTRUCTIONS) if m]
        if said:
            found.append("instructions aimed at the model (" + ", ".join(f'"{s}"' for s in said[:3]) + f"){where}")
    if len(tool.get("description") or "") > LONG_DESCRIPTION:
        found.append(f"a description of {len(tool['description'])} characters (over {LONG_DESCRIPTION})")
    return list(dict.fromkeys(found))


SCHEMA_PARTS = 10_000  # objects and arrays of one schema looked into; a real tool's has tens


def schema_texts(schema: Any, limit: int = SCHEMA_PARTS) -> list[tuple[str, str]]:
    """Every ``description`` and ``title`` string anywhere in ``schema`` (``items``, nested ``properties``,
    ``$defs``, ``anyOf``...), with where it is (``properties.path.items.description``); at most ``limit``
    objects and arrays are visited, breadth first, so no schema costs more than that."""
    found: list[tuple[str, str]] = []
    todo: deque[tuple[Any, str]] = deque([(schema, "")])
    visited = 0
    while todo and visited < limit:
        node, where = todo.popleft()
        visited += 1
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            at = f"{where}.{key}" if where else str(key)
            if key in ("description", "title") and isinstance(value, str) and isinstance(node, dict):
                found.append((echo.line(at, 200), value))
            elif isinstance(value, (dict, list)):
                todo.append((value, at))
    return found


@dataclass
class Screen:
    """Warns once per tool definition (server, name, description, schema, annotations) that ``suspicious`` flags.

    A server's tools are looked at again only when its client or its ``tools`` list is another
    object than at the last check: a client never edits that list in place, it replaces it
    (a new session, ``list_changed``, a reconnect), so an unchanged server costs one comparison.
    """

    transcript: Transcript | None = None
    seen: set[tuple[str, str, str]] = field(default_factory=set)  # (server, tool, its definition): a redefined tool is screened again
    _looked: dict[str, tuple[object, object]] = field(default_factory=dict, repr=False)  # server -> (client, tools list) last checked
    _last: dict[str, dict[str, object]] = field(default_factory=dict, repr=False)  # server -> its tools by name, as last checked

    def check(self, clients: JSONMapping) -> list[str]:
        warnings = []
        live = dict(clients.items())
        for server in sorted(live):
            client = live[server]
            tools = client.tools
            looked = self._looked.get(server)
            if looked is not None and looked[0] is client and looked[1] is tools:
                continue
            before, now = self._last.get(server, {}), {}
            for tool in tools:
                now[tool.get("name", "")] = tool
                if before.get(tool.get("name", "")) == tool:  # listed again as it was (compared as values): screened already
                    continue
                key = (server, tool.get("name", ""), json.dumps(definition.of(tool), sort_keys=True, default=str))
                if key in self.seen:
                    continue
                self.seen.add(key)
                reasons = suspicious(tool)
                if reasons:
                    text = (f"server '{server}': tool '{tool.get('name', '')}': {'; '.join(reasons)}. It is passed on "
                            f"unchanged: review it, or deny the tool with a rule")
                    warnings.append(text)
                    if self.transcript is not None:
                        self.transcript.warning(text)
            self._looked[server], self._last[server] = (client, tools), now
        for gone in self._looked.keys() - live.keys():  # closed or failed: let its client go
            del self._looked[gone]
            self._last.pop(gone, None)
        return warnings
