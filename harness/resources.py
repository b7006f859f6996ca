"""MCP beyond tools (s30): resources as two tools, prompts as commands, server log messages.

**Resources** are data a server offers by URI (files, pages, records), listed with
``resources/list`` and ``resources/templates/list`` and read with ``resources/read``. The
model reaches them through two built-in tools, offered once however many servers have
resources, as Claude Code does, and only while at least one live server declares them::

    list_mcp_resources  {server?}        every server's resources and templates (or one server's)
    read_mcp_resource   {server, uri}    the contents, routed to that server

One server failing to list does not fail the listing; an unknown server, a server that is
not connected or has no resources, and an unknown URI are each a clear tool error.

**Prompts** are the server's prepared messages, for the *user* to pick (a slash command in
Claude Code), never the model. ``expand`` fetches one with its arguments and turns it into
the text of a user message: the lesson starts its conversation from one, the CLI prints one.

**Log messages** a server sends during a call are shown with that call. Those sent
between calls wait in their connection until ``show_logs`` prints them with their level
and server, at the start of the next turn, so they never interleave with a turn's output.

**The connection's side** is ``Offering``, a mechanism on the connection's hooks
(``harness.hooks``): at connect it lists what the server declared besides tools
(``on_open``); a ``list_changed`` for tools, resources or prompts (``on_notification``)
has the refresher beside the session (``alongside``) fetch that list again once the calls
in flight have answered, the transcript says why, and a call returns only once its changes
are in (``around_call``), so the next turn's pool shows them. It queues the log messages sent between calls, and answers
``read_resource`` and ``get_prompt`` for the connection (a ``harness.client.Offering``, which the connection finds among its
mechanisms). In 2026-07-28 there is no session stream for a server's notifications:
s34's ``harness.modern`` opens a ``subscriptions/listen`` request beside the session, and
the same changes reach ``on_notification`` and are handled the same way; the note names
where they came from (the connection's ``heard_via``).

Introduced by s30. Not handled here: subscriptions to one resource (``resources/subscribe``),
binary contents for the model (s32 saves them to files), completion in the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from harness import definition
from harness.client import Host, Offers, has_resources
from harness.hooks import Mechanism, Proceed
from harness.errors import ToolError
from harness.guard import printable
from harness.hub import Hub
from harness.jsonvalue import JSON, JSONObject
from harness.results import ToolResult, text_block
from harness.tools import Tool
from harness.transcript import Transcript

if TYPE_CHECKING:
    from harness.hooks import SessionCallback

LIST = "list_mcp_resources"
READ = "read_mcp_resource"
LOGS_KEPT = 100  # log messages queued between calls; more are dropped until drained
_KEYS = {"tools": "name", "resources": "uri", "prompts": "name"}  # what names an item of each list
Verdicts = dict[int, tuple[object, bool]]  # id(client) -> (the client, whether it has the Offers members)
_METHODS = {"resources": "resources/list", "resource_templates": "resources/templates/list", "prompts": "prompts/list"}


class Offering(Mechanism):
    """One connection's resources, templates, prompts and queued log messages, kept fresh after list_changed."""

    order = 30

    def __init__(self) -> None:
        self.resources: list[JSONObject] = []
        self.resource_templates: list[JSONObject] = []
        self.prompts: list[JSONObject] = []
        self.logs: list[JSONObject] = []  # log messages that came while no call ran; see drain_logs()
        self._calls = 0  # tools/call requests in flight
        self._quiet: anyio.Event | None = None  # made only when the refresher waits for the calls in flight
        self._stale: set[str] = set()  # lists a list_changed notification said are out of date
        self._kick = anyio.Event()  # set: the refresher has lists to fetch again
        self._settled = True  # no list is waiting to be fetched again
        self._fetched: anyio.Event | None = None  # made only when a call waits for a list to be fetched

    def bind(self, host: Host) -> None:
        self._conn = host

    def session_options(self) -> dict[str, SessionCallback]:
        return {"logging_callback": self._on_log}

    async def on_open(self, session: ClientSession) -> None:
        """At connect: what the server declared besides tools, listed once."""
        conn = self._conn
        if "resources" in conn.capabilities:
            conn.begin("resources/list")
            self.resources = await self._request_list(session, "resources")
            conn.begin("resources/templates/list")
            self.resource_templates = await self._optional(session, "resource_templates", "resources/templates/list")
        if "prompts" in conn.capabilities:
            conn.begin("prompts/list")
            self.prompts = await self._optional(session, "prompts", "prompts/list")

    async def _optional(self, session: ClientSession, kind: str, method: str) -> list[JSONObject]:
        """A listing a server may not have although it declared the capability: a -32601 (method not found)
        leaves it empty with a warning naming the request; the other listings and the connection go on."""
        try:
            return await self._request_list(session, kind)
        except MCPError as exc:
            if exc.code != types.METHOD_NOT_FOUND:
                raise
            self._conn.say("warning", f"{self._conn.name}: {method}: error {exc.code}: {printable(exc.message, 120)}; "
                                      "left empty, and the rest goes on")
            return []

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        self._calls += 1
        try:
            result = await proceed()
        finally:
            self._calls -= 1
            if not self._calls and self._quiet is not None:
                self._quiet.set()
        await self.fresh()  # a list the call changed is fetched before the model's next turn
        return result

    async def fresh(self) -> None:
        """Wait until every list a ``list_changed`` named has been fetched again (at most the list timeout)."""
        if self._settled:
            return  # the common case costs one test: no event, no cancel scope
        if self._fetched is None:
            self._fetched = anyio.Event()
        with anyio.move_on_after(self._conn.timeouts.list):
            await self._fetched.wait()

    async def list_resources(self) -> list[JSONObject]:
        """``resources/list`` (every page, under the list timeout); refreshes ``resources``."""
        self.resources = await self._request_list(self._conn.live(None), "resources")
        return self.resources

    async def read_resource(self, uri: str) -> list[JSONObject]:
        """``resources/read``: the contents as MCP sends them (``text`` or ``blob``, with ``uri`` and ``mimeType``)."""
        conn = self._conn
        session = conn.live(None)
        what = f"resources/read {uri}"
        # The cache may answer it (s34); a server may ask for input first (s33's rounds, through the send chain).
        result = await conn.fetched(session, "resources/read", uri, lambda: conn.send("resources/read", uri, {}, what))
        return [c.model_dump(by_alias=True, mode="json", exclude_none=True) for c in result.contents]

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> JSONObject:
        """``prompts/get``: ``{description, messages}``, each message ``{role, content}`` as MCP sends it."""
        conn = self._conn
        result = await conn.send("prompts/get", name, dict(arguments), f"prompts/get {name}")
        return result.model_dump(by_alias=True, mode="json", exclude_none=True, include={"description", "messages"})

    def drain_logs(self) -> list[JSONObject]:
        """The log messages queued while no call ran, oldest first (``{server, level, text}``), and forget them."""
        queued, self.logs = self.logs, []
        return queued

    async def _request_list(self, session: ClientSession, kind: str) -> list[JSONObject]:
        """Every page of ``resources``, ``resource_templates`` or ``prompts``, all within the list timeout."""
        method = {"resources": session.list_resources, "resource_templates": session.list_resource_templates,
                  "prompts": session.list_prompts}[kind]
        found: list[JSONObject] = []
        cursor, pages = None, 0
        with anyio.fail_after(self._conn.timeouts.list):
            while True:
                if cursor:
                    page = await method(params=types.PaginatedRequestParams(cursor=cursor))
                else:  # the first page, which a mechanism may answer (s34: the response cache)
                    page = await self._conn.fetched(session, _METHODS[kind], "", lambda: method(params=None))
                items = page.resources if kind == "resources" else page.resource_templates if kind == "resource_templates" else page.prompts
                found += [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in items]
                pages += 1
                if not (cursor := page.next_cursor) or pages >= self._conn.limits.pages:
                    break
        return found

    async def alongside(self, session: ClientSession) -> None:
        await self._refresher(session)

    async def _refresher(self, session: ClientSession) -> None:
        """Fetch again each list a ``list_changed`` named (in the session's task, never in the SDK's callback)."""
        while True:
            await self._kick.wait()
            # A call's notifications come before its answer: list again once the calls in flight
            # have answered, so every list_changed of a call is in, and the frames' order is fixed.
            while self._calls:
                self._quiet = anyio.Event()
                await self._quiet.wait()
            self._quiet = None
            self._kick = anyio.Event()
            while self._stale:
                kind = min(self._stale)
                self._stale.discard(kind)
                try:
                    await self._relist(session, kind)
                except Exception as exc:  # a refresh that fails keeps the old list and says why
                    self._conn.say("warning", f"{self._conn.name}: {kind}/list after list_changed failed: {type(exc).__name__}: {exc}")
            self._settled = True
            if self._fetched is not None:
                self._fetched.set()
                self._fetched = None

    async def _relist(self, session: ClientSession, kind: str) -> None:
        conn, key = self._conn, _KEYS[kind]
        was = {item[key]: item for item in self._listed(kind)}
        before = list(was)
        if kind == "tools":
            await conn.relist_tools(session)
        elif kind == "resources":
            self.resources = await self._request_list(session, kind)
        else:
            self.prompts = await self._request_list(session, kind)
        after = [item[key] for item in self._listed(kind)]
        change = [f"+{printable(n, 80)}" for n in after if n not in before] + [f"-{printable(n, 80)}" for n in before if n not in after]
        change += [f"~{printable(item[key], 80)} ({', '.join(what)})" for item in self._listed(kind)  # the same name, redefined
                   if item[key] in was and (what := definition.changes(definition.of(was[item[key]]), definition.of(item)))]
        heard = f" (on {on})" if (on := conn.heard_via(session)) else ""  # 2026-07-28 sends them on subscriptions/listen
        conn.say("note", f"{conn.name}: notifications/{kind}/list_changed{heard}: {kind} listed again: {', '.join(change) or 'no change'}")

    def _listed(self, kind: str) -> list[JSONObject]:
        return self._conn.tools if kind == "tools" else self.resources if kind == "resources" else self.prompts

    def on_notification(self, message: object) -> None:
        kind = {types.ToolListChangedNotification: "tools", types.ResourceListChangedNotification: "resources",
                types.PromptListChangedNotification: "prompts"}.get(type(message))
        if kind is not None:
            self._stale.add(kind)
            self._settled = False
            self._kick.set()

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        text = params.data if isinstance(params.data, str) else json.dumps(params.data, sort_keys=True)
        entry = {"server": self._conn.name, "level": params.level, "text": printable(text, 500)}
        if self._calls:  # during a call: part of what that call shows
            self._conn.post("log", **entry)
        elif len(self.logs) < LOGS_KEPT:  # between calls: queued for the next turn
            self.logs.append(entry)
        await anyio.lowlevel.checkpoint()


class WithResources(Sequence[Tool]):
    """``builtins`` plus the two resource tools while any live server declares resources; read afresh each turn.

    Which live clients could declare resources (have the ``Offers`` members) is looked up again only
    when the hub's map changes (``Hub.version``); each turn reads their declared capabilities.
    """

    def __init__(self, builtins: Sequence[Tool], hub: Hub) -> None:
        self._builtins, self._hub = list(builtins), hub
        self._tools = tools(hub)
        self._with = self._builtins + self._tools
        self._offering: tuple[int, Verdicts, list[Offers]] | None = None  # (the hub's version, verdicts, live clients that offer)

    def _now(self) -> list[Tool]:
        offering, version = self._offering, self._hub.version
        if offering is None or offering[0] != version:
            offering = self._offering = (version, *_offering(self._hub.clients.values(), offering[1] if offering else {}))
        offered = any("resources" in c.capabilities for c in offering[2])  # has_resources, its isinstance done above
        return self._with if offered else self._builtins

    def __getitem__(self, index: Any) -> Any:
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._now())

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._now())


def tools(hub: Hub) -> list[Tool]:
    """The two resource tools, reading ``hub`` at each call."""

    async def list_resources(args: JSONObject) -> ToolResult:
        live = {n: c for n, c in hub.clients.items() if has_resources(c)}
        wanted = args.get("server")
        if wanted is not None:
            if wanted not in live:
                known = ", ".join(sorted(live)) or "none"
                raise ToolError(f"server '{wanted}' not found among the servers with resources (available: {known})")
            live = {wanted: live[wanted]}
        lines: list[str] = []
        for name in sorted(live):
            client = live[name]
            try:
                if not client.capabilities["resources"].get("listChanged"):
                    await client.list_resources()  # no notifications: ask every time
            except ToolError as exc:
                lines.append(f"{name}: could not list resources: {exc}")
                continue
            for r in client.resources:
                kind = f" ({r['mimeType']})" if r.get("mimeType") else ""
                lines.append(f"{name}: {r['uri']}  {r.get('name', '')}{kind}: {r.get('description', '')}".rstrip(": "))
            for t in client.resource_templates:
                lines.append(f"{name}: template {t['uriTemplate']}  {t.get('name', '')}: {t.get('description', '')}".rstrip(": "))
        if not lines:
            return ToolResult((text_block("No resources found. MCP servers may still offer tools without resources."),))
        return ToolResult((text_block("\n".join(lines)),))

    async def read_resource(args: JSONObject) -> ToolResult:
        server, uri = args.get("server"), args.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str) or not uri:
            raise ToolError("read_mcp_resource needs 'server' and 'uri', both strings")
        entry = hub.entries.get(server)
        if entry is None:
            raise ToolError(f"server '{server}' not found (servers: {', '.join(sorted(hub.entries)) or 'none'})")
        client = hub.clients.get(server)
        if client is None:
            raise ToolError(f"server '{server}' is not connected ({entry.state.value})")
        if not has_resources(client):
            raise ToolError(f"server '{server}' does not offer resources")
        contents = await client.read_resource(uri)
        blocks = []
        for item in contents:
            if "text" in item:
                blocks.append(text_block(item["text"]))
            else:  # binary: s32 saves it to a file; here its size and type are said, not its bytes
                size = len(item.get("blob", "")) * 3 // 4
                blocks.append(text_block(f"[{item.get('uri', uri)}: binary {item.get('mimeType', 'data')}, about {size} bytes, not passed to the model]"))
        return ToolResult(tuple(blocks) or (text_block(f"{uri} is empty"),), origin=f"server '{server}': {uri}")

    server_arg = {"type": "string", "description": "a server name, as in mcp__server__tool"}
    return [
        Tool(LIST, "List the resources (and resource templates) that connected MCP servers offer, optionally for one server.",
             {"type": "object", "properties": {"server": server_arg}}, list_resources,
             annotations={"readOnlyHint": True}, concurrent=True),
        Tool(READ, "Read one resource by its URI from an MCP server.",
             {"type": "object", "properties": {"server": server_arg, "uri": {"type": "string", "description": "the resource's URI"}},
              "required": ["server", "uri"]}, read_resource,
             annotations={"readOnlyHint": True}, concurrent=True),
    ]


async def expand(client: Offers, name: str, arguments: Mapping[str, str]) -> str:
    """A prompt's messages as the text of one user message (each message's role named when there are several)."""
    return as_text(await client.get_prompt(name, dict(arguments)))


def as_text(prompt: Mapping[str, Any]) -> str:
    """What ``expand`` makes of a prompt already fetched (``get_prompt``'s answer)."""
    parts = []
    messages = prompt.get("messages", [])
    for message in messages:
        content = message.get("content", {})
        if content.get("type") == "text":
            body = content["text"]
        elif content.get("type") == "resource":
            body = content.get("resource", {}).get("text", f"[{content.get('resource', {}).get('uri', 'resource')}]")
        else:
            body = f"[{content.get('type', 'content')} from the prompt]"
        parts.append(body if len(messages) == 1 else f"{message.get('role', 'user')}: {body}")
    return "\n\n".join(parts)


def show_logs(hub: Hub, transcript: Transcript) -> None:
    """Print the log messages servers sent between calls, oldest first per server, servers by name."""
    for client in _log_sources(hub):
        for entry in client.drain_logs():
            transcript.emit("log", **entry)


_SOURCES: WeakKeyDictionary[Hub, tuple[int, Verdicts, list[Offers]]] = WeakKeyDictionary()  # hub -> (its version, the clients that queue logs)


def _log_sources(hub: Hub) -> list[Offers]:
    """The clients of ``hub``'s servers that queue log messages, servers by name; looked up again only when its map changes."""
    known = _SOURCES.get(hub)
    if known is None or known[0] != hub.version:
        clients = [hub.entries[name].client for name in sorted(hub.entries)]
        known = _SOURCES[hub] = (hub.version, *_offering(clients, known[1] if known else {}))
    return known[2]


def _offering(clients: Iterable[object], known: Verdicts) -> tuple[Verdicts, list[Offers]]:
    """Those of ``clients`` that have the ``Offers`` members, in order, and the verdicts for the next call; a client in
    ``known`` is not checked again (a runtime protocol check reads every member, and one server changing should not cost
    a check of every other). Each verdict holds its client, so an id in it is never another object's."""
    verdicts: Verdicts = {}
    for client in clients:
        seen = known.get(id(client))
        verdicts[id(client)] = seen if seen is not None and seen[0] is client else (client, isinstance(client, Offers))
    return verdicts, [c for c, offers in verdicts.values() if offers]  # type: ignore[misc]


def prompt_rows(hub: Hub) -> list[JSONObject]:
    """Every live server's prompts: ``{server, name, description, arguments}`` (the CLI's ``prompts``)."""
    return [{"server": name, "name": p["name"], "description": p.get("description", ""), "arguments": p.get("arguments", [])}
            for name, client in sorted(hub.clients.items()) if isinstance(client, Offers) for p in client.prompts]


def resource_rows(hub: Hub) -> list[JSONObject]:
    """Every live server's resources and templates (the CLI's ``resources``)."""
    rows = []
    for name, client in sorted(hub.clients.items()):
        if not isinstance(client, Offers):
            continue
        for r in client.resources:
            rows.append({"server": name, "uri": r["uri"], "name": r.get("name", ""), "mime_type": r.get("mimeType"),
                         "description": r.get("description", ""), "template": False})
        for t in client.resource_templates:
            rows.append({"server": name, "uri": t["uriTemplate"], "name": t.get("name", ""), "mime_type": t.get("mimeType"),
                         "description": t.get("description", ""), "template": True})
    return rows


def dumps(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False)
