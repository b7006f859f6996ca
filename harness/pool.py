"""Tool pool assembly, rebuilt every turn, with no cache to go stale.

The pool is what the model may call this turn. ``assemble`` builds it the same way every
time, so the same servers always give the same bytes:

- built-in tools first, sorted by name; then MCP tools, sorted by name. Two sorted
  blocks, not one mixed sort, so the built-in prefix of the tool list never moves when a
  server connects (a prompt cache keyed on that prefix keeps hitting);
- unique by name, the first one winning, so a built-in can never be replaced by a
  server's tool of the same name;
- each MCP tool's description ends with its annotations as text: ``(readOnly)``,
  ``(destructive)``; the model reads them, and s31 turns them into permissions.

``system_prompt`` is rebuilt every turn too, so it always names the servers that are
connected now. Given the hub's ``entries``, it names a ``needs-auth`` server (s26) apart:
it offers only its authenticate tool, and is not connected until it is signed in. ``cached`` is the bug this lesson exists for: it freezes the first turn's
pool, and a server connected later is invisible to the model.

Rebuilt is not recomputed from scratch: turning one server's listing into marked
``Tool`` values (names, closures, marks) is remembered per server (``Converted``) and
dropped exactly when that server's tools change. A client never edits its ``tools`` list
in place; it replaces it (a new session, ``list_changed``, a reconnect) or is replaced
(the hub promotes a signed-in server), and either makes the memo miss. The ordered pool
is remembered the same way: handed out again only while every input of this turn is the
very object the last pool was built from (the built-ins, each live server's name,
client and ``tools`` list, in order), so a turn where nothing changed costs a look at
each input, not a sort of 2,000 tools.

Why this is not the bug s22 is about: ``cached`` keeps the first turn's pool whatever
happens after, and never looks at the servers again. Here every turn still asks the hub
which servers are live now and reads each one's list; the memo is keyed on those very
values, so a server that connects, fails, reconnects or lists anew changes the key and
the pool is built again in that same turn. Nothing is remembered that is not compared.

Introduced by s22. Not handled here: deferred loading of large pools, description caps.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass


from harness import echo, naming
from harness.jsonvalue import JSONMapping
from harness.loop import PoolSource, Turn
from harness.mcp_client import Client, Namer, agent_tools, as_tool
from harness.spec import State
from harness.tools import Tool

DESCRIBED = 300  # characters of a description on the "the model sees" lines


@dataclass(frozen=True)
class Pool:
    tools: tuple[Tool, ...]
    shadowed: tuple[Tool, ...]  # dropped because an earlier tool had the same name


def assemble(builtins: Iterable[Tool], mcp_tools: Iterable[Tool]) -> Pool:
    """Built-ins sorted, then MCP tools sorted; unique by name, first wins; marks added."""
    return _ordered(builtins, [_marked(t) for t in mcp_tools])


def _ordered(builtins: Iterable[Tool], marked: Iterable[Tool]) -> Pool:
    ordered = sorted(builtins, key=_name) + sorted(marked, key=_name)
    if len({t.name for t in ordered}) == len(ordered):  # the usual case, no two alike: nothing shadowed
        return Pool(tuple(ordered), ())
    kept: dict[str, Tool] = {}
    shadowed = []
    for tool in ordered:
        if tool.name in kept:
            shadowed.append(tool)
        else:
            kept[tool.name] = tool
    return Pool(tuple(kept.values()), tuple(shadowed))


_name = operator.attrgetter("name")  # a sort key in C: a 2,000-tool pool is sorted on every change


class Converted:
    """Each live server's tools as marked ``Tool`` values, remembered until its tools change."""

    def __init__(self, namer: Namer = naming.assign) -> None:
        self._namer = namer
        self._memo: dict[str, tuple[Client, object, list[Tool]]] = {}
        self._last: tuple[list[object], Pool] | None = None  # the last pool, and the inputs it was built from

    def tools(self, clients: Mapping[str, Client]) -> list[Tool]:
        """Every tool of every client in ``clients``; a server converts again only if its client or list changed."""
        everything: list[Tool] = []
        for name, client in clients.items():
            memo = self._memo.get(name)
            if memo is None or memo[0] is not client:
                memo = (client, client.tools, [_marked(t) for t in agent_tools([client], self._namer)])
                self._memo[name] = memo
            elif memo[1] is not client.tools:  # the same session listed again: a tool listed as it was is kept
                memo = (client, client.tools, self._relisted(client, memo[1], memo[2]))
                self._memo[name] = memo
            everything += memo[2]
        for gone in self._memo.keys() - clients.keys():  # closed or failed: let its client go
            del self._memo[gone]
        return everything

    def _relisted(self, client: Client, listed: Sequence[JSONMapping], converted: Sequence[Tool]) -> list[Tool]:
        """``client``'s new listing converted, reusing the ``Tool`` of each listing equal to the one it had, under the
        same name (``converted`` is ``listed``'s, in its order): a server that changes one tool costs one conversion."""
        before = {listing.get("name"): (listing, tool) for listing, tool in zip(listed, converted)}
        names = self._namer([(client.name, t["name"]) for t in client.tools])
        tools = []
        for listing in client.tools:
            name = names[(client.name, listing["name"])]
            kept = before.get(listing["name"])
            tools.append(kept[1] if kept is not None and kept[1].name == name and kept[0] == listing else _marked(as_tool(client, listing, name)))
        return tools

    def pool(self, builtins: Sequence[Tool], clients: Mapping[str, Client]) -> Pool:
        """``assemble`` of ``builtins`` and every client's tools; the last Pool again while every input is the same object.

        The key is the inputs themselves, compared by identity, never a version number a
        caller could forget to bump: the built-in tools (frozen values) and, in order, each
        server's name, client and ``tools`` list. Order counts: of two MCP tools with one
        name, the first listed wins.
        """
        inputs: list[object] = list(builtins)
        for name, client in clients.items():
            inputs += (name, client, client.tools)
        last = self._last
        if last is not None and len(last[0]) == len(inputs) and all(map(operator.is_, last[0], inputs)):
            return last[1]
        pool = _ordered(builtins, self.tools(clients))
        self._last = (inputs, pool)
        return pool


def _marked(tool: Tool) -> Tool:
    if tool.source == "builtin":
        return tool
    marks = [m for m, on in (("(readOnly)", tool.read_only), ("(destructive)", tool.destructive)) if on]
    return _described(tool, " ".join([tool.description, *marks]).strip()) if marks else tool


def _described(tool: Tool, description: str) -> Tool:
    """``dataclasses.replace(tool, description=...)`` at a sixth of its cost (a cold 2,000-tool turn marks most of them).

    Hazard: this copies the fields as they are, so it is right only while ``Tool`` has no
    ``__post_init__`` and no slots; tests/test_pool.py checks it against ``replace``.
    """
    copied = object.__new__(Tool)
    copied.__dict__.update(vars(tool), description=description)
    return copied


def system_prompt(base: str, clients: Mapping[str, Client], entries: JSONMapping | None = None) -> str:
    """The system prompt for this turn: the base text plus the servers connected now.

    ``entries`` (the hub's): a server in ``needs-auth`` is named on a line of its own, never as connected.
    """
    waiting = [n for n in sorted(clients) if entries is not None and n in entries and entries[n].state is State.NEEDS_AUTH]
    connected = [n for n in sorted(clients) if n not in waiting]
    servers = ", ".join(f"{name} ({_count(len(clients[name].tools), 'tool')})" for name in connected)
    text = f"{base}\nConnected MCP servers: {servers}." if connected else f"{base}\nNo MCP servers are connected."
    if waiting:
        text += f"\nNot connected, needing authorization (sign in with the server's authenticate tool): {', '.join(waiting)}."
    return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def describe(tools: Iterable[Tool]) -> str:
    """One line per tool: name and description, the description shown safely (``harness.echo``).

    A server's description may run to paragraphs and hold control or bidi characters; on
    the terminal it is escaped onto one line and cut at ``DESCRIBED`` characters with the
    cut stated. The model gets it whole.
    """
    return "\n".join(f"{t.name}: {echo.line(t.description, DESCRIBED)}" for t in tools)


def rebuilt(base: str, builtins: Sequence[Tool], clients: Mapping[str, Client], report: Callable[[str], None] | None = None,
            entries: JSONMapping | None = None) -> Callable[[], Turn]:
    """The pool source s22 teaches: every call rebuilds tools and system prompt from ``clients``.

    ``report`` (optional) is told what the model sees each time the tool names change;
    ``entries`` (the hub's, optional) lets the system prompt tell a needs-auth server apart.
    """
    shown: list[str] = []
    last: list[tuple[Tool, ...]] = []  # the tools last compared with ``shown``
    converted = Converted()

    def turn() -> Turn:
        live = dict(clients.items())  # read once: the hub's view is computed on every access
        tools = converted.pool(builtins, live).tools
        if report is not None and not (last and last[0] is tools):
            last[:] = [tools]
            if [t.name for t in tools] != shown:
                shown[:] = [t.name for t in tools]
                report("the model sees:\n" + describe(tools))
        return Turn(system_prompt(base, live, entries), tools)

    return turn


def cached(source: PoolSource) -> PoolSource:
    """The stale-pool bug: compute the first turn's pool once and hand it out forever."""
    frozen: list[Turn] = []

    async def pool() -> Turn:
        if not frozen:
            turn = source()
            frozen.append(await turn if inspect.isawaitable(turn) else turn)
        return frozen[0]

    return pool
