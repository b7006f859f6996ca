"""Deferred loading and tool search: a pool of 2,000 tools without 2,000 definitions in the model's context.

s22's pool hands the model every tool's schema on every turn; with a dozen large servers
that is most of the context before the user has said anything. This part (``ToolSearch``,
s36) keeps the pool whole but marks each MCP tool deferred, and adds one built-in tool,
``tool_search``, that finds tools (``harness.toolindex``) and loads the ones it returns:

- The request's ``tools`` array keeps every deferred tool, each with ``defer_loading: true``
  (the Messages API's own form: sent, not loaded), so the array is the same bytes on every
  turn and the prompt cache holds. ``tool_search`` answers with ``tool_reference`` blocks,
  which is how the API loads a deferred tool; from then on the model may call it.
- Never deferred: the built-in tools, ``tool_search`` itself, and a tool whose listing has
  ``_meta["anthropic/alwaysLoad"]: true``. ``_meta["anthropic/searchHint"]`` is searched with
  the name, the description and the parameter names.
- A miss says why: no such tool, or the servers whose tools are not in the pool (pending,
  needs-auth, failed), each with its state, so the model can wait or sign in. Calling a
  deferred tool before loading it is refused with the ``select:`` query that loads it.
- A loaded tool stays loaded across its server's reconnect (loading is by name). One that
  is gone stays in ``tools``, as it was, so the array still matches the ``tool_reference``
  that loaded it; a call to it says it is gone and what its server's state is.
- The index is updated one server at a time, when that server's listing changes.

The policy, per server: ``toolSearch`` in the server's config entry, else the stack's
(``--tool-search``; default ``auto``)::

    on        defer this server's tools
    off       send them loaded (as s22 does)
    auto      defer when the MCP tool definitions pass 10% of the model's context
    auto:N    ... N% of it; either way, also when there are 30 MCP tools or more (below
              that, GitHub Copilot's CLI finds, search does not pay)

The transcript says what was chosen, why, and the size of the definitions the model reads
up front with and without search (JSON bytes; a token is about 4 of them).

Not handled here: the API's own search tool (``tool_search_tool_bm25_20251119``, which
searches on Anthropic's side); unloading a tool the model no longer needs.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from harness.config.search_policy import FIELD, Mode, argument  # argument: --tool-search, for the lesson
from harness.errors import ConfigError, ToolError
from harness.loop import Policy, Turn
from harness.model import ToolCall
from harness.naming import normalize
from harness.parts import Built, Part
from harness.results import ToolResult
from harness.spec import State
from harness.toolindex import Doc, Index, Match, Query
from harness.tools import Tool

NAME = "tool_search"
HINT, ALWAYS = "anthropic/searchHint", "anthropic/alwaysLoad"
CONTEXT_TOKENS = 200_000  # the model's context when the caller does not say
AUTO_TOOLS = 30
BYTES_PER_TOKEN = 4  # JSON of tool definitions: about four bytes a token
LIMIT, MAX_LIMIT = 5, 20


def decide(mode: Mode, tools: int, size: int, context_tokens: int = CONTEXT_TOKENS) -> tuple[bool, str]:
    """Whether to defer under ``mode``, for ``tools`` MCP tools whose definitions are ``size`` JSON bytes; and why."""
    if mode.kind != "auto":
        return mode.kind == "on", f"set to {mode}"
    share = 100 * size / BYTES_PER_TOKEN / context_tokens
    facts = f"{tools} MCP tools, {size:,} bytes, about {share:.1f}% of a {context_tokens:,}-token context"
    if share >= mode.percent:
        return True, f"{mode}: {facts}, at least {mode.percent}%"
    if tools >= AUTO_TOOLS:
        return True, f"{mode}: {facts}; {AUTO_TOOLS} tools or more"
    return False, f"{mode}: {facts}; under {mode.percent}% and under {AUTO_TOOLS} tools, where search does not pay"


@dataclass(frozen=True)
class Deferred(Tool):
    """A tool sent with ``defer_loading: true``: in the request, not in the model's context until loaded."""

    def spec(self) -> dict[str, Any]:
        return {**super().spec(), "defer_loading": True}


def deferred(tool: Tool) -> Deferred:
    """``tool`` as a ``Deferred``. Hazard: copies the fields as they are, right only while ``Tool`` has no
    ``__post_init__`` and no slots (as ``harness.pool`` does for its marks)."""
    copied = object.__new__(Deferred)
    copied.__dict__.update(vars(tool))
    return copied


@dataclass(frozen=True)
class Found(ToolResult):
    """What ``tool_search`` found: rendered for the model as ``tool_reference`` blocks."""

    names: tuple[str, ...] = ()


def references(names: Sequence[str]) -> list[dict[str, str]]:
    return [{"type": "tool_reference", "tool_name": n} for n in names]


def size(tools: Sequence[Tool]) -> int:
    """JSON bytes of the definitions as the model reads them once loaded (without ``defer_loading``)."""
    return len(json.dumps([Tool.spec(t) for t in tools]))


_BUILTIN, _LOADED, _DEFERRED = "builtin", "loaded", "deferred"  # what a tool of the pool is in the request


class _Copies:
    """What each tool of the pool is sent as (itself, or its ``Deferred`` copy), remembered by the tool's identity.

    The pool keeps a ``Tool`` object while its listing is as it was, so a turn after one server
    listed again decides only that server's new tools; the rest are a lookup each, in C.
    """

    def __init__(self) -> None:
        self._memo: dict[int, tuple[Tool, Tool, str]] = {}  # a tool's id -> (it, what is sent for it, its kind)
        self._under: tuple[set[str], set[str]] = (set(), set())  # the deferring servers and alwaysLoad names of the memo

    def split(self, offered: Sequence[Tool], servers: Mapping[str, bool], on: set[str],
              always: set[str]) -> tuple[list[Tool], list[Tool], set[str]]:
        """The built-ins, the MCP tools as sent (``on``'s deferred but ``always``), and the servers with a deferred tool."""
        if self._under != (on, always):  # what is deferred changed: every copy is made again
            self._memo, self._under = {}, (on, always)
        memo = self._memo
        kinds = list(map(memo.get, map(id, offered)))  # (tool, what is sent, its kind), or None for a tool not seen
        for i in [i for i, (tool, kept) in enumerate(zip(offered, kinds)) if kept is None or kept[0] is not tool]:
            tool = offered[i]
            if tool.source not in servers:
                kept = (tool, tool, _BUILTIN)
            elif tool.source in on and tool.name not in always:
                kept = (tool, deferred(tool), _DEFERRED)
            else:
                kept = (tool, tool, _LOADED)
            kinds[i] = memo[id(tool)] = kept
        if len(memo) > 2 * len(kinds) + 64:  # tools replaced without a new listing: keep only this pool's
            self._memo = dict(zip(map(id, offered), kinds))
        return ([kept[1] for kept in kinds if kept[2] is _BUILTIN], [kept[1] for kept in kinds if kept[2] is not _BUILTIN],
                {kept[1].source for kept in kinds if kept[2] is _DEFERRED})


@dataclass
class _Server:
    listing: object  # the client's tools list this was built from (compared by identity)
    tools: tuple[Tool, ...]
    always: frozenset[str]  # names of its tools with alwaysLoad
    docs: dict[str, tuple[Tool, Doc]] = field(default_factory=dict)  # by tool name: the Tool its index document was made from
    _size: int | None = None

    @classmethod
    def of(cls, name: str, listing: Sequence[Mapping[str, Any]], tools: Sequence[Tool], before: _Server | None) -> _Server:
        """Server ``name`` as it listed ``listing`` (the pool made ``tools`` of it), with an index document a tool; a
        document of ``before`` is kept for a tool the pool kept (its listing is as it was)."""
        listings = {t.get("name"): t for t in listing}
        kept_docs = before.docs if before is not None else {}
        docs, always = {}, set()
        for tool in tools:
            meta = listings.get(tool.original, {}).get("_meta") or {}
            if meta.get(ALWAYS) is True:
                always.add(tool.name)
            kept = kept_docs.get(tool.name)
            if kept is not None and kept[0] is tool:
                docs[tool.name] = kept
                continue
            hint = " ".join(meta[HINT].split()) if isinstance(meta.get(HINT), str) else ""  # one line, as Claude Code keeps it
            docs[tool.name] = (tool, Doc(tool.name, name, tool.original, tool.description, hint, tuple(tool.input_schema.get("properties") or ())))
        return cls(listing, tuple(tools), frozenset(always), docs)

    @property
    def size(self) -> int:
        """Its definitions' JSON bytes, measured the first time a policy or a report needs them (``on`` and ``off`` never do)."""
        if self._size is None:
            self._size = size(self.tools)
        return self._size


class Searcher:
    """The state of tool search in one stack: the index, what is loaded, what was offered last."""

    def __init__(self, mode: Mode, servers: Sequence[Any], context_tokens: int = CONTEXT_TOKENS, limit: int = LIMIT) -> None:
        self.mode, self.context_tokens, self.limit = mode, context_tokens, limit
        self.modes: dict[str, Mode] = {}
        self.refused: list[str] = []  # a bad field's message: said once, and that server follows the stack's policy
        for server in servers:
            if FIELD in server.raw:
                try:
                    self.modes[server.name] = Mode.parse(server.raw[FIELD], f"server '{server.name}': field '{FIELD}'")
                except ConfigError as exc:
                    self.refused.append(f"{exc}; its tools follow --tool-search ({mode})")
        self.index = Index()
        self.servers: dict[str, _Server] = {}
        self.loaded: dict[str, str] = {}  # name -> its server
        self.held: dict[str, Tool] = {}  # loaded tools no longer listed, kept in the array as they were
        self._offered: tuple[Tool, ...] = ()  # the last turn's tools
        self._by_name: dict[str, Tool] | None = {}  # the same by name, made when asked for
        self._copies = _Copies()
        self._last: tuple[tuple[Tool, ...], tuple[Tool, ...]] | None = None
        self._said = ""
        self._deferring: list[str] = []
        self.tool = Tool(NAME, _DESCRIPTION, _SCHEMA, self.call, annotations={"readOnlyHint": True})
        self.built: Built | None = None

    # -- each turn --

    def turn(self, turn: Turn, built: Built) -> Turn:
        self.built = built
        live = dict(built.hub.clients.items())
        changed = [n for n, c in live.items() if n not in self.servers or self.servers[n].listing is not c.tools]
        for name in [n for n in self.servers if n not in live]:
            del self.servers[name]
            self.index.drop(name)
            changed.append(name)
        if changed:
            self._update([n for n in changed if n in live], live, turn.tools)
        last = self._last
        if not changed and last is not None and (last[0] is turn.tools or (  # the same tuple, or one of the same tools
                len(last[0]) == len(turn.tools) and all(map(operator.is_, last[0], turn.tools)))):
            tools = last[1]
        else:
            tools = self._build(turn.tools)
            self._last = (turn.tools, tools)
        return Turn(self._system(turn.system, built), tools)

    def _update(self, names: list[str], live: Mapping[str, Any], offered: Sequence[Tool]) -> None:
        if len(names) == 1:  # the usual change: one server listed again
            by_server = {names[0]: [tool for tool in offered if tool.source == names[0]]}
        else:
            by_server = {n: [] for n in names}
            for tool in offered:
                if tool.source in by_server:
                    by_server[tool.source].append(tool)
        for name in names:
            self.servers[name] = server = _Server.of(name, live[name].tools, by_server[name], self.servers.get(name))
            self.index.update(name, [doc for _, doc in server.docs.values()])
            kept = [n for n, s in self.loaded.items() if s == name]
            if kept and self.built is not None and self.built.transcript is not None:
                now = {t.name for t in by_server[name]}
                back, gone = [n for n in kept if n in now], [n for n in kept if n not in now]
                self.built.transcript.note(f"tool search: {name} listed its tools again: "
                                           + "; ".join(p for p in (f"still loaded: {', '.join(back)}" if back else "",
                                                                   f"gone: {', '.join(gone)}" if gone else "") if p))

    def defers(self, server: str, totals: tuple[int, int] | None = None) -> tuple[bool, str]:
        """Whether ``server``'s tools are deferred, and why; ``totals``: the pool's tool count and size, if summed already."""
        mode = self.modes.get(server, self.mode)
        if mode.kind != "auto":  # decided by the setting alone: no sizes summed
            return decide(mode, 0, 0, self.context_tokens)
        total, sized = totals or self._totals()
        return decide(mode, total, sized, self.context_tokens)

    def _defers(self, server: str, totals: tuple[int, int]) -> bool:
        """``defers(server)``'s answer alone: the reason is only worded when it is said."""
        mode = self.modes.get(server, self.mode)
        return mode.kind == "on" if mode.kind != "auto" else self.defers(server, totals)[0]

    def _totals(self) -> tuple[int, int]:
        return sum(len(s.tools) for s in self.servers.values()), sum(s.size for s in self.servers.values())

    def _build(self, offered: Sequence[Tool]) -> tuple[Tool, ...]:
        automatic = self.mode.kind == "auto" or any(m.kind == "auto" for m in self.modes.values())
        totals = self._totals() if automatic else (0, 0)  # once, not per server
        decided = {name: self._defers(name, totals) for name in self.servers}
        on = {name for name, deferring in decided.items() if deferring}
        builtins, mcp, deferring = self._copies.split(offered, decided, on, set().union(*(self.servers[name].always for name in on)))
        if self.loaded or self.held:
            names = {t.name for t in offered}
            for name in [n for n in self.held if n in names]:  # listed again: the new definition is the one kept
                del self.held[name]
            last = self.offered
            for name in self.loaded:
                if name not in names and name not in self.held and name in last:
                    self.held[name] = last[name]
        search = [self.tool] if deferring or self.held else []
        if self.held:  # where it was: the MCP block is sorted by name (s22), so the array keeps its bytes
            mcp = sorted([*mcp, *self.held.values()], key=lambda t: t.name)
        tools = (*builtins, *search, *mcp)
        self._offered, self._by_name = tools, None
        self._deferring = sorted(deferring)  # for the system prompt, each turn
        self._report(tools, decided)
        return tools

    @property
    def offered(self) -> dict[str, Tool]:
        """The last turn's tools by name."""
        if self._by_name is None:
            self._by_name = {t.name: t for t in self._offered}
        return self._by_name

    def _report(self, tools: Sequence[Tool], decided: Mapping[str, bool]) -> None:
        """Say what was chosen and why, once each time the choice changes, with the sizes it makes."""
        transcript = self.built.transcript if self.built is not None else None
        on = [n for n in sorted(decided) if decided[n]]
        said = repr((on, sorted(str(self.modes.get(n, self.mode)) for n in decided)))
        if transcript is None or not self.servers or said == self._said:  # the facts change with every listing; the choice rarely
            return
        self._said = said
        why = "; ".join(sorted({self.defers(name)[1] for name in self.servers}))
        transcript.note(_sizes(tools, on, why, self))

    def _system(self, system: str, built: Built) -> str:
        deferring = self._deferring
        if not deferring:
            return system
        text = (f"{system}\nTool search: the tools of {', '.join(deferring)} are deferred: find them with {NAME} "
                "(keywords, +word for a word the name must have, or select:name,name), then call them.")
        away = unavailable(built.hub)
        return f"{text}\nNot connected, so not searchable yet: {', '.join(away)}." if away else text

    # -- the search tool --

    async def call(self, args: dict[str, Any]) -> ToolResult:
        query_text = args.get("query")
        if not isinstance(query_text, str) or not query_text.strip():
            raise ToolError(f"{NAME}: 'query' is required: keywords, +word, or select:name,name")
        limit = args.get("limit", self.limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise ToolError(f"{NAME}: 'limit' must be a whole number from 1 to {MAX_LIMIT}")
        query = Query.parse(query_text)
        deferred_names = [n for n, t in self.offered.items() if isinstance(t, Deferred) and n not in self.held]
        if query.select:
            matches = [Match(n, 0.0, {}) for n in self.index.selected(query.select) if n in deferred_names][:limit]
        else:
            matches = self.index.search(query, limit, among=deferred_names)
        for match in matches:
            self.loaded[match.name] = self.offered[match.name].source
        self._show(query, matches)
        if matches:  # a tool_reference result holds nothing else: a select: name not found is said in the transcript
            return Found(names=tuple(m.name for m in matches))
        return ToolResult.of(self.miss(query, len(deferred_names)))

    def _show(self, query: Query, matches: Sequence[Match]) -> None:
        transcript = self.built.transcript if self.built is not None else None
        if transcript is None:
            return
        lines = [f"  {i}. {m.name}" + (f"  {m.score:.2f}  {m.explained()}" if not query.select else "") for i, m in enumerate(matches, 1)]
        missing = [n for n in query.select if not set(self.index.selected([n])) & {m.name for m in matches}]
        if matches and missing:
            lines.append(f"  not loaded: {'; '.join(self._unknown(n) for n in missing)}")
        transcript.note(f"tool search {query.text!r}:" + ("\n" + "\n".join(lines) if lines else " no match"))

    def miss(self, query: Query, searched: int) -> str:
        """Why the search found nothing, naming the tools and the servers that are not connected."""
        assert self.built is not None
        said = []
        if query.select:
            said += [self._unknown(n) for n in query.select]
        else:
            said.append(f"No deferred tool matches {query.text!r} among {searched} of {', '.join(self.index.servers()) or 'no server'}.")
        away = unavailable(self.built.hub)
        if away:
            said.append(f"Not searched, because not connected: {', '.join(away)}.")
        return " ".join(p for p in said if p)

    def _unknown(self, name: str) -> str:
        assert self.built is not None
        if name in self.held:
            return f"{name} is gone: {state(self.built.hub, self.loaded.get(name, ''))}."
        if name in self.offered and not isinstance(self.offered[name], Deferred):
            return f"{name} is loaded already: call it."
        entries = self.built.hub.entries
        server = next((s for s in sorted(entries, key=len, reverse=True) if name.startswith(f"mcp__{normalize(s)}__")), None)
        if server is None:
            return f"No tool {name}: no server of that name."
        if server in self.servers:
            return f"No tool {name}: server '{server}' is connected and lists no such tool."
        return f"{name}: not known yet: {state(self.built.hub, server)}."

    # -- around each call --

    def refusal(self, tool: Tool) -> ToolResult | None:
        if tool.name in self.held:
            return ToolResult.failure(f"{tool.name} is gone: {state(self.built.hub, self.loaded.get(tool.name, tool.source))}")
        if isinstance(tool, Deferred) and tool.name not in self.loaded:
            return ToolResult.failure(f"{tool.name} is deferred and not loaded: call {NAME} with query "
                                      f"'select:{tool.name}' first")
        return None


def unavailable(hub: Any) -> list[str]:
    """The servers whose tools are not in the pool, each with its state: pending, needs-auth, failed."""
    live = dict(hub.clients.items())  # read once: the hub's view is computed on every access
    found = []
    for name, entry in sorted(hub.entries.items()):
        if name in live and entry.state is not State.NEEDS_AUTH:
            continue
        if entry.state is State.PENDING:
            found.append(f"{name} (pending: not connected yet)")
        elif entry.state is State.NEEDS_AUTH:
            found.append(f"{name} (needs-auth: sign in with its authenticate tool)")
        elif entry.state is State.FAILED:
            found.append(f"{name} (failed: {entry.error})" if entry.error else f"{name} (failed)")
    return found


def state(hub: Any, server: str) -> str:
    """``server 'chat' is failed: why``: a server's state as a miss or a refusal names it."""
    entry = hub.entries.get(server)
    if entry is None:
        return f"server '{server}' was removed"
    if entry.state is State.CONNECTED:
        return f"server '{server}' is connected and no longer lists it"
    reason = f": {entry.error}" if entry.error is not None else ""
    return f"server '{server}' is {entry.state.value}{reason}"


def _sizes(tools: Sequence[Tool], on: Sequence[str], why: str, searcher: Searcher) -> str:
    up_front = [t for t in tools if not isinstance(t, Deferred)]
    whole = [t for t in tools if t.name != NAME]
    if on:
        deferred_count = len(tools) - len(up_front)
        return (f"tool search: on for {', '.join(on)} ({why}): {deferred_count} tools deferred; the model reads "
                f"{len(up_front)} definitions up front, {size(up_front):,} bytes, not all {len(whole)}: {size(whole):,} bytes "
                f"({_percent(size(up_front), size(whole))})")
    searched = [t for t in whole if t.source == "builtin" or t.name in searcher.loaded or
                (t.source in searcher.servers and t.name in searcher.servers[t.source].always)] + [searcher.tool]
    return (f"tool search: off ({why}): the model reads all {len(whole)} definitions up front, {size(whole):,} bytes; "
            f"with search on it would read {size(searched):,} ({_percent(size(searched), size(whole))})")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0%"


_DESCRIPTION = ("Find and load deferred tools. Most MCP tools are deferred: listed by the harness but not loaded, so they "
                "cannot be called until this tool returns them. query is keywords ('create issue'), keywords with +word "
                "for a word the tool's name must have ('+chat post message'), or select:name,name to load tools by name. "
                "Returns the best matches, loaded; if nothing matches it says why (no such tool, or a server that is not "
                "connected yet, needs sign-in or failed).")
_SCHEMA = {"type": "object", "properties": {
    "query": {"type": "string", "description": "keywords, +word, or select:name,name"},
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": f"how many tools at most (default {LIMIT})"},
}, "required": ["query"]}


@dataclass
class ToolSearch(Part):
    """``mode``: the stack's policy (``auto``, ``auto:N``, ``on``, ``off``), for servers without a ``toolSearch`` field;
    ``context_tokens``: the model's context, for ``auto``; ``limit``: matches per search when the model gives none."""

    lesson: ClassVar[str] = "s36"
    mode: str = "auto"
    context_tokens: int = CONTEXT_TOKENS
    limit: int = LIMIT
    searcher: Searcher | None = field(default=None, init=False)

    async def enter(self, built: Built) -> None:
        entries = [s for s in built.servers if s.spec is not None]
        self.searcher = Searcher(Mode.parse(self.mode, "--tool-search"), entries, self.context_tokens, self.limit)
        for problem in self.searcher.refused:
            if built.transcript is not None:
                built.transcript.warning(problem)

    def offered(self, turn: Turn, built: Built) -> Turn:
        assert self.searcher is not None
        return self.searcher.turn(turn, built)

    def policy(self, policy: Policy, built: Built) -> Policy:
        searcher = self.searcher
        assert searcher is not None
        before, after, render, show = policy.before_call, policy.after_result, policy.render, policy.show

        async def before_call(call: ToolCall, tool: Tool) -> ToolResult | None:
            if tool is searcher.tool:
                return None  # it reads the index and nothing else: nothing to ask
            refused = searcher.refusal(tool)
            return refused if refused is not None else await before(call, tool)

        async def after_result(call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
            return result if tool is searcher.tool else await after(call, tool, result)

        def rendered(result: ToolResult) -> Any:
            return references(result.names) if isinstance(result, Found) and result.names else render(result)

        def shown(content: Any) -> str:
            if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") == "tool_reference" for b in content):
                return "tool_reference: " + ", ".join(b["tool_name"] for b in content)
            return show(content)

        return replace(policy, before_call=before_call, after_result=after_result, render=rendered, show=shown)
