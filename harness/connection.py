"""One server, one session at a time: ``MCPConnection``, and ``Connections`` to own several.

``connect`` (or ``Connections.open``) takes a ``ServerSpec`` and returns an
``MCPConnection``: a ``Client`` (``name``, ``tools``, ``call_tool``) whose session has
done its handshake and ``tools/list``. Which transport carries the frames is looked up in
``harness.transports`` by ``spec.transport``; nothing here knows stdio from HTTP.

The seams a later lesson plugs into, each handed in, none edited:

    transport   the registry in harness.transports                       s23-s25, s34
    handshake   ``classic_handshake`` (initialize, then tools/list)      s34 adds discovery
    reconnect   a ``Reconnect`` policy: after a failure, wait or give up  s28: ``lifecycle.Backoff``
    respec      the spec to use for each new session (variables again)   s28: ``config.connector``
    sleep       how a reconnect waits (tests hand in a clock)            s28
    observe     a callback told of every state change (the hub's)        the hub spine

States are ``harness.spec.State``: pending -> connected -> closed, or failed (kept, with
its error). One clear error per failure, each naming the server:

    spawn fails, or the server exits/hangs before tools/list    ServerError from connect/open
    the server answers a call with isError                      a ToolResult with is_error
    a protocol error, or the call timeout                       ToolError naming server and tool
    the connection dies mid-call                                ToolError; state failed; exit code
                                                                and stderr tail in the message

Timeouts are named (``Timeouts``: connect, list, call, plus the two shutdown graces) and
injectable. Each connection is owned by one task (anyio enters and exits a task group in
the same task), which ``Connections`` runs for you; a connection that breaks fails alone.

Streamable HTTP session expiry (s25): when the transport's session watch saw a 404 to
our session id (or a 400 whose body names the session as invalid or unknown, as the
reference servers send), the connection closes that session, re-initializes, and retries
the call once. The request that got it was never run by the server, so retrying it cannot
run a tool twice. A failed re-initialize leaves the connection ``failed``, never ``connected``.

Bounds (issue 8). ``tools/list`` as a whole, every page, is bounded by the list timeout,
at most ``Limits.pages`` pages, and a cursor the server sends twice ends it: each of
those fails the listing with an error naming the server and the limit. Between the tap
and the session, ``harness.guard`` drops a malformed tool (warning, the rest kept) and
refuses an argument JSON cannot carry (that call fails alone). After a listing, tools
past ``Limits.tools`` and descriptions past ``Limits.description`` are cut, with a
warning. A transport that ends the stream on purpose says why (``Context.fault``: a frame
over ``Limits.frame``, a dropped event stream), and that is the error, not a guess from
the exit code.

Lifecycle (s28). After a session is lost, the reconnect policy says how long to wait
before the next attempt, or to give up; a stdio server is spawned again. While waiting the
connection is ``pending``; after giving up it is ``failed``. Either way a call (reconnect
on next use) or ``reconnect()`` (by hand) tries again at once. The call timeout starts
again at every progress notification the server sends for that call, and every timeout
error names the timeout and the setting that changes it.

Introduced by s23 (stdio), extended by s24 (sse), s25 (http sessions) and s28 (lifecycle).
Not handled here: auth flows (s26 passes ``auth=``), resources, prompts and notifications
(s30), rendering non-text results (s32).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any, NoReturn

import anyio
import anyio.abc
import mcp_types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from harness import transports
from harness.client import Observer
from harness.errors import ConfigError, ServerError, ToolError
from harness.guard import UnsendableFrame, guard, printable, trimmed
from harness.results import ToolResult
from harness.spec import Limits, ServerSpec, State, Timeouts
from harness.transcript import Transcript
from harness.transports.context import Context
from harness.wire import WireTap

CLIENT_INFO = types.Implementation(name="mcp-course-harness", version="0.1.0")
STDERR_TAIL_LINES = 5
LOGS_KEPT = 100  # log messages queued between calls; more are dropped until drained
INPUT_ROUNDS = 5  # input-required rounds (2026-07-28) in one call before giving up
URL_RETRIES = 3  # calls made again after the user visited a page (-32042), as Claude Code

Handshake = Callable[[ClientSession, Timeouts], Awaitable[None]]
Reconnect = Callable[[int, ServerError], "float | None"]  # (failures so far, the last error) -> seconds to wait, or None: give up
Sleep = Callable[[float], Awaitable[None]]


async def classic_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The handshake era's opening: ``initialize`` (and the SDK's ``notifications/initialized``)."""
    with anyio.fail_after(timeouts.connect):
        await session.initialize()


async def discover_handshake(session: ClientSession, timeouts: Timeouts) -> None:
    """The 2026-07-28 opening: ``server/discover`` instead of ``initialize`` (no session, no back channel).

    s33 uses it to show that era's input-required rounds; s34 teaches the era itself.
    """
    with anyio.fail_after(timeouts.connect):
        await session.discover()


def never(failures: int, error: ServerError) -> float | None:
    """The default reconnect policy: a failed connection stays failed, even when called (s28 adds backoff)."""
    return None


def _needs_tasks(tool: Mapping[str, Any]) -> bool:
    """A tool that fails unless called as a task (SEP-1686): offering it would only waste the model's turn."""
    execution = tool.get("execution")
    return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"


class _Expired(Exception):
    """A call hit HTTP 404 (or a 400 naming the session) with our session id: the server forgot the session."""


class _Unlisted(Exception):
    """A tools/list that went past a bound: the message says which, in a few words."""


class MCPConnection:
    """One server over one transport. Built by ``connect`` or ``Connections.open``."""

    def __init__(self, spec: ServerSpec, *, tap: WireTap | None, auth: Any, timeouts: Timeouts,
                 transcript: Transcript | None, session_options: Mapping[str, Any],
                 handshake: Handshake = classic_handshake, reconnect: Reconnect = never,
                 transport: transports.Transport | None = None, respec: Callable[[], ServerSpec] | None = None,
                 sleep: Sleep = anyio.sleep, limits: Limits | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.name = spec.name
        self.spec = spec
        self.tools: list[dict[str, Any]] = []
        # s30: what the server offers besides tools (listed at connect when its capabilities say so)
        self.capabilities: dict[str, Any] = {}
        self.resources: list[dict[str, Any]] = []
        self.resource_templates: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []  # log messages that came while no call ran; see drain_logs()
        self._calls = 0  # tools/call requests in flight
        self._quiet = anyio.Event()  # set while no call is in flight
        self._quiet.set()
        self._stale: set[str] = set()  # lists a list_changed notification said are out of date
        self._kick = anyio.Event()  # set: the refresher has lists to fetch again
        self._settled = anyio.Event()  # set: no list is waiting to be fetched again
        self._settled.set()
        self.state = State.PENDING
        self.error: ServerError | None = None  # why the connection is failed, in full
        self._reason = ""  # the same, in a few words, for later calls
        self.timeouts = timeouts
        self.limits = limits or Limits()
        self._warn = warn  # also told every warning (what a listing dropped or cut): for a UI with no transcript
        self._progress = progress  # also told each progress notification, as one line: for a terminal with no transcript
        self._tap, self._auth, self._transcript, self._options = tap, auth, transcript, dict(session_options)
        self._handshake_with, self._reconnect, self._respec, self._sleep = handshake, reconnect, respec, sleep
        self._transport = transport or transports.lookup(spec)  # an unknown transport fails here, before any task
        self._observer: Observer | None = None
        self._session: ClientSession | None = None
        self._generation = 0  # sessions established so far
        self._context: Context | None = None  # what the current session's transport holds
        self._errlog: Any = None
        self._final_tail: list[str] = []
        self._phase = "connect"
        self._closing = False
        self._wake = anyio.Event()  # set: leave the current session, or stop waiting (to close, or to reconnect now)
        self._changed = anyio.Event()  # set (and replaced) by the owner after each attempt at a session
        self._finished = 0  # attempts at a session that have ended, well or not
        self._failures = 0  # failures since the last session was established: what the policy is told
        self._retry_in: float | None = None  # the policy's wait before the next attempt; None: gave up
        self._done = anyio.Event()
        self._lock = anyio.Lock()
        self._asked = False  # reconnect() wants an attempt now: the owner skips its wait (cleared when one starts)
        self._waiting = False  # the owner is in a reconnect wait, or resting after giving up
        self._private: Connections | None = None  # set by connect(): it owns its own supervisor

    # -- the Client protocol and friends --

    def retime(self, timeouts: Timeouts) -> None:
        """Use ``timeouts`` from the next request on (s29: the config changed them; asked through the hub)."""
        self.timeouts = timeouts

    def observe(self, observer: Observer) -> None:
        """Be told of every later state change (the hub's callback). Never prints: it records."""
        self._observer = observer

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """``tools/call``: the result as data, or ``ToolError`` naming the server and tool.

        A connection that lost its session tries once more first (reconnect on next use),
        unless its policy is ``never``.
        """
        if self.state in (State.PENDING, State.FAILED) and self._generation > 0 and self._reconnect is not never:
            await self.reconnect()
        session, generation = self._live(tool)
        try:
            self._calls += 1
            if self._calls == 1:
                self._quiet = anyio.Event()
            try:
                result = await self._call(session, tool, arguments)
            finally:
                self._calls -= 1
                if not self._calls:
                    self._quiet.set()
            await self.fresh()  # a list the call changed is fetched before the model's next turn
            return result
        except _Expired:
            status = self._context.watch.status if self._context and self._context.watch else 404
            self._say("warning", f"{self.name}: HTTP {status} for session {self._watch_id()}: the server forgot it; re-initializing, then retrying '{tool}' once")
            await self._reinitialize(generation, tool)
            session, _ = self._live(tool)
            try:
                return await self._call(session, tool, arguments)
            except _Expired:
                raise ToolError(f"server '{self.name}': tool '{tool}': the new session expired too; not retrying again") from None

    @property
    def renewable(self) -> bool:
        """Whether ``reconnect()`` can open a new session: it connected once and is not closed."""
        return not (self._done.is_set() or self._closing or self._generation == 0)

    async def reconnect(self) -> bool:
        """Open a fresh session now: skips a reconnect wait, revives a connection that gave up,
        or replaces a working session (a stdio server is spawned again). Returns whether the
        connection is connected afterwards; False at once if it is not ``renewable``.
        """
        if not self.renewable:
            return False
        async with self._lock:
            finished, self._asked = self._finished, True
            if self.state is State.CONNECTED:
                self._set(State.PENDING, "reconnecting: asked to")
                self._wake.set()  # leave the working session
            elif self._waiting:
                self._wake.set()  # cut the wait short
            # else an attempt is under way, or the owner is about to wait (and sees _asked): its outcome is ours
            await self._attempted(finished)
        return self.state is State.CONNECTED

    # -- s30: resources, prompts, log messages, list_changed --

    async def list_resources(self) -> list[dict[str, Any]]:
        """``resources/list`` (every page, under the list timeout); refreshes ``resources``."""
        session, _ = self._live(None)
        self.resources = await self._request_list(session, "resources")
        return self.resources

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """``resources/read``: the contents as MCP sends them (``text`` or ``blob``, with ``uri`` and ``mimeType``)."""
        session, _ = self._live(None)
        result = await self._request(f"resources/read {uri}", session.read_resource(uri), self.timeouts.call, "call")
        return [c.model_dump(by_alias=True, mode="json", exclude_none=True) for c in result.contents]

    async def list_prompts(self) -> list[dict[str, Any]]:
        """``prompts/list``; refreshes ``prompts``."""
        session, _ = self._live(None)
        self.prompts = await self._request_list(session, "prompts")
        return self.prompts

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """``prompts/get``: ``{description, messages}``, each message ``{role, content}`` as MCP sends it."""
        session, _ = self._live(None)
        result = await self._request(f"prompts/get {name}", session.get_prompt(name, arguments), self.timeouts.call, "call")
        return result.model_dump(by_alias=True, mode="json", exclude_none=True, include={"description", "messages"})

    def drain_logs(self) -> list[dict[str, Any]]:
        """The log messages queued while no call ran, oldest first (``{server, level, text}``), and forget them."""
        queued, self.logs = self.logs, []
        return queued

    async def fresh(self) -> None:
        """Wait until every list a ``list_changed`` named has been fetched again (at most the list timeout)."""
        with anyio.move_on_after(self.timeouts.list):
            await self._settled.wait()

    async def _request(self, what: str, request: Awaitable[Any], limit: float, name: str) -> Any:
        try:
            with anyio.fail_after(limit):
                return await request
        except TimeoutError:
            raise ToolError(f"server '{self.name}': {what}: no answer within {limit:g} s ({self.timeouts.explain(name)})") from None
        except MCPError as exc:
            raise ToolError(f"server '{self.name}': {what}: error {exc.code}: {printable(exc.message, 200)}") from None

    async def _request_list(self, session: ClientSession, kind: str) -> list[dict[str, Any]]:
        """Every page of ``resources``, ``resource_templates`` or ``prompts``, all within the list timeout."""
        method = {"resources": session.list_resources, "resource_templates": session.list_resource_templates,
                  "prompts": session.list_prompts}[kind]
        field = {"resources": "resources", "resource_templates": "resource_templates", "prompts": "prompts"}[kind]
        found: list[dict[str, Any]] = []
        cursor, pages = None, 0
        with anyio.fail_after(self.timeouts.list):
            while True:
                page = await method(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
                found += [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in getattr(page, field)]
                pages += 1
                if not (cursor := page.next_cursor) or pages >= self.limits.pages:
                    break
        return found

    async def _offers(self, session: ClientSession) -> None:
        """At connect: what the server declared besides tools, listed once."""
        result = session.initialize_result
        self.capabilities = result.capabilities.model_dump(by_alias=True, mode="json", exclude_none=True) if result else {}
        if "resources" in self.capabilities:
            self._phase = "resources/list"
            self.resources = await self._request_list(session, "resources")
            self.resource_templates = await self._request_list(session, "resource_templates")
        if "prompts" in self.capabilities:
            self._phase = "prompts/list"
            self.prompts = await self._request_list(session, "prompts")

    async def _refresher(self, session: ClientSession) -> None:
        """Fetch again each list a ``list_changed`` named (in the session's task, never in the SDK's callback)."""
        while True:
            await self._kick.wait()
            # A call's notifications come before its answer: list again once the calls in flight
            # have answered, so every list_changed of a call is in, and the frames' order is fixed.
            while self._calls:
                await self._quiet.wait()
            self._kick = anyio.Event()
            while self._stale:
                kind = min(self._stale)
                self._stale.discard(kind)
                try:
                    await self._relist(session, kind)
                except Exception as exc:  # a refresh that fails keeps the old list and says why
                    self._say("warning", f"{self.name}: {kind}/list after list_changed failed: {type(exc).__name__}: {exc}")
            self._settled.set()

    async def _relist(self, session: ClientSession, kind: str) -> None:
        key = {"tools": "name", "resources": "uri", "prompts": "name"}[kind]
        before = [item[key] for item in getattr(self, kind)]
        if kind == "tools":
            await self._list(session)
        else:
            setattr(self, kind, await self._request_list(session, kind))
        after = [item[key] for item in getattr(self, kind)]
        change = [f"+{printable(n, 80)}" for n in after if n not in before] + [f"-{printable(n, 80)}" for n in before if n not in after]
        self._say("note", f"{self.name}: notifications/{kind}/list_changed: {kind} listed again: {', '.join(change) or 'no change'}")

    def _list_changed(self, kind: str) -> None:
        self._stale.add(kind)
        if self._settled.is_set():
            self._settled = anyio.Event()
        self._kick.set()

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        text = params.data if isinstance(params.data, str) else json.dumps(params.data, sort_keys=True)
        entry = {"server": self.name, "level": params.level, "text": printable(text, 500)}
        if self._calls:  # during a call: part of what that call shows
            if self._transcript is not None:
                self._transcript.post("log", **entry)
        elif len(self.logs) < LOGS_KEPT:  # between calls: queued for the next turn
            self.logs.append(entry)
        await anyio.lowlevel.checkpoint()

    async def list_tools(self) -> list[dict[str, Any]]:
        """``tools/list``, every page, under the ``list`` timeout; refreshes ``tools``.

        ``ToolError`` naming the server and the bound when the listing goes past one.
        """
        session, _ = self._live(None)
        try:
            return await self._list(session)
        except (_Unlisted, TimeoutError) as exc:
            self._phase = "tools/list"
            raise ToolError(f"server '{self.name}': {await self._explain(exc)}") from None

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The last lines the server wrote to stderr (stdio only; empty for sse/http)."""
        process = self._context.process if self._context else None
        if self._errlog is None or self._errlog.closed or process is None:
            return self._final_tail[-lines:]
        return process.stderr_tail(lines)

    async def aclose(self) -> None:
        """Leave the session and stop the server (stdio). Idempotent."""
        self._closing = True
        self._wake.set()
        await self._done.wait()
        if self._private is not None:
            private, self._private = self._private, None
            await private.__aexit__(None, None, None)

    # -- calls --

    def _live(self, tool: str | None) -> tuple[ClientSession, int]:
        if self.state is not State.CONNECTED or self._session is None:
            what = f"server '{self.name}'" + (f": tool '{tool}'" if tool else "")
            reason = f": {self._reason}" if self._reason else ""
            raise ToolError(f"{what}: not connected ({self.state.value}{reason})")
        return self._session, self._generation

    async def _call(self, session: ClientSession, tool: str, arguments: dict[str, Any]) -> ToolResult:
        where = f"server '{self.name}': tool '{tool}'"
        limit = self.timeouts.call
        with anyio.CancelScope(deadline=anyio.current_time() + limit) as scope:

            async def progressed(progress: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + limit  # the server is working: the call timeout starts again
                done = f"{progress:g}/{total:g}" if total else f"{progress:g}"
                self._say("note", f"{self.name}: {tool}: progress {done}" + (f": {message}" if message else ""))
                if self._progress is not None:
                    self._progress(f"{self.name}/{tool}: {done}" + (f": {printable(message, 100)}" if message else ""))

            try:
                result = await self._rounds(session, tool, arguments, progressed, where, scope)
            except MCPError as exc:
                await self._call_failed(exc, where)
            except UnsendableFrame as exc:  # refused before sending: the session is untouched
                raise ToolError(f"{where}: {exc}") from None
        if scope.cancelled_caught:
            raise ToolError(f"{where}: no answer within {limit:g} s ({self.timeouts.explain('call')})")
        return ToolResult(
            content=tuple(block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
            origin=where,
        )

    async def _rounds(self, session: ClientSession, tool: str, arguments: dict[str, Any], progressed: Any, where: str,
                      scope: anyio.CancelScope) -> Any:
        """``tools/call``, and the further rounds a server may ask for (s33).

        2026-07-28: an input-required result names what it needs (a form, a sample, the
        roots); the answers go back with the same call, with the server's request state.
        Both eras: error -32042 (URL elicitation required) names pages the user must visit;
        once they say they did, the call is made again. Each round restarts the call timeout:
        the time was the user's, not the server's.
        """
        responses: dict[str, Any] | None = None
        state: str | None = None
        visits = 0
        for _ in range(INPUT_ROUNDS):
            try:
                result = await session.call_tool(tool, arguments, progress_callback=progressed, input_responses=responses,
                                                 request_state=state, allow_input_required=True)
            except MCPError as exc:
                if exc.code != types.URL_ELICITATION_REQUIRED or "elicitation_callback" not in self._options or visits >= URL_RETRIES:
                    raise
                visits += 1
                if not await self._visit(session, exc):
                    raise ToolError(f"{where}: needs a step in the browser first ({printable(exc.message, 120)}); it was not done") from None
                scope.deadline = anyio.current_time() + self.timeouts.call
                continue
            if not isinstance(result, types.InputRequiredResult):
                return result
            responses, state = await self._answer(session, result.input_requests or {}, where), result.request_state
            scope.deadline = anyio.current_time() + self.timeouts.call
        raise ToolError(f"{where}: still asking for input after {INPUT_ROUNDS} rounds; stopped")

    async def _visit(self, session: ClientSession, exc: MCPError) -> bool:
        """Hand each page of a -32042 error to the elicitation callback (URL mode); True if the user did them all."""
        from mcp.client.session import ClientRequestContext

        data = exc.data if isinstance(exc.data, dict) else {}
        pages = [e for e in data.get("elicitations") or [] if isinstance(e, dict) and e.get("mode") == "url"]
        if not pages:
            return False
        for page in pages:
            params = types.ElicitRequestURLParams(message=str(page.get("message", "")), url=str(page.get("url", "")),
                                                  elicitation_id=str(page.get("elicitationId", "")))
            answer = await self._options["elicitation_callback"](ClientRequestContext(session=session, request_id="url"), params)
            if getattr(answer, "action", None) != "accept":
                return False
        return True

    async def _answer(self, session: ClientSession, requests: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The answers to an input-required result, from the same callbacks that serve the server's own requests."""
        from mcp.client.session import ClientRequestContext

        answers: dict[str, Any] = {}
        for key, request in requests.items():
            context = ClientRequestContext(session=session, request_id=key)
            callback = {types.ElicitRequest: "elicitation_callback", types.CreateMessageRequest: "sampling_callback",
                        types.ListRootsRequest: "list_roots_callback"}.get(type(request))
            if callback is None or callback not in self._options:
                raise ToolError(f"{where}: the server needs {getattr(request, 'method', 'input')}, which this client does not offer")
            args = (context,) if callback == "list_roots_callback" else (context, request.params)
            answer = await self._options[callback](*args)
            if isinstance(answer, types.ErrorData):
                raise ToolError(f"{where}: {getattr(request, 'method', 'input')}: {printable(answer.message, 200)}")
            answers[key] = answer
        return answers

    async def roots_changed(self) -> None:
        """Tell the server its roots changed (``notifications/roots/list_changed``); it lists them again when it wants."""
        if self._session is not None and self.state is State.CONNECTED:
            import warnings

            with warnings.catch_warnings():  # roots are deprecated as of 2026-07-28 (SEP-2577), and still widely served
                warnings.simplefilter("ignore")
                await self._session.send_roots_list_changed()

    async def _call_failed(self, exc: MCPError, where: str) -> NoReturn:
        if self._expired():
            raise _Expired from None
        if exc.code == types.CONNECTION_CLOSED:
            # What the transport says first (a frame over the limit, a dropped stream), then
            # the SDK's own words if it has more than "Connection closed", then the exit code.
            said = f": {exc.message}" if exc.message and exc.message != "Connection closed" else ""
            self._fail(self._fault() or f"connection lost{said or await self._exit_note()}")
            self._wake.set()  # the owner task leaves the dead session (and asks the reconnect policy)
            raise ToolError(f"{where}: {self._reason}{self._details()}") from None
        raise ToolError(f"{where}: protocol error {exc.code}: {exc.message}") from None

    async def _list(self, session: ClientSession) -> list[dict[str, Any]]:
        """Every page, all of them within the list timeout, at most ``Limits.pages``; then the caps."""
        tools: list[dict[str, Any]] = []
        cursors: set[str] = set()
        cursor, pages, more = None, 0, False
        with anyio.CancelScope(deadline=anyio.current_time() + self.timeouts.list) as scope:
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                pages += 1
                tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
                if not (cursor := page.next_cursor):
                    break
                if len(tools) > self.limits.tools:
                    more = True  # enough to cut at the tools limit: the rest would be cut anyway
                    break
                if cursor in cursors:
                    raise _Unlisted(f"tools/list: the server sent cursor '{printable(cursor, 40)}' a second time, "
                                    f"after {pages} pages (a loop; a cursor must lead on)")
                if pages >= self.limits.pages:
                    raise _Unlisted(f"tools/list: more than {self.limits.pages} pages ({self.limits.explain('pages')})")
                cursors.add(cursor)
        if scope.cancelled_caught:
            if not pages:
                raise TimeoutError  # no answer at all: the connection says so, naming the timeout
            raise _Unlisted(f"tools/list: not finished within {self.timeouts.list:g} s, after {pages} pages "
                            f"({self.timeouts.explain('list')})")
        tools, warnings = trimmed(tools, self.limits, more)
        for warning in warnings:
            self._say("warning", f"{self.name}: {warning}")
        self.tools = [t for t in tools if not _needs_tasks(t)]
        for left in (t for t in tools if _needs_tasks(t)):
            self._say("note", f"{self.name}: tool '{printable(left['name'], 80)}' left out: it can only run as a task "
                              "(execution.taskSupport is \"required\"), which this client does not do")
        return self.tools

    async def _reinitialize(self, generation: int, tool: str) -> None:
        """Ask the owner task for a fresh session (once per expiry, however many callers)."""
        async with self._lock:
            # Only the first caller of this generation asks: a caller whose session was
            # already replaced must not tear down the fresh one.
            if self._generation == generation and self.state is State.CONNECTED:
                finished = self._finished
                self._wake.set()
                await self._attempted(finished)
        if self.state is not State.CONNECTED:
            raise ToolError(f"server '{self.name}': tool '{tool}': session expired and re-initializing failed: {self._reason}")

    # -- the owner task: opens, re-opens and closes sessions, all in one task --

    async def _run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with tempfile.TemporaryFile() as errlog:
            self._errlog = errlog
            try:
                await self._serve(task_status)
            finally:
                self._final_tail = self.stderr_tail(50)
                if self.state is not State.FAILED:
                    self._set(State.CLOSED, "closed")
                self._done.set()

    async def _serve(self, task_status: anyio.abc.TaskStatus[None]) -> None:
        while not self._closing:
            self._wake = anyio.Event()
            self._asked = False  # this attempt answers whoever asked for one
            try:
                if self._generation and self._respec is not None:
                    self.spec = self._respec()  # a new session: variables are expanded again (a missing one fails it)
                async with self._open() as session:
                    await self._handshake(session)
                    self._session = session
                    self._generation += 1
                    self._failures = 0
                    self._set(State.CONNECTED, "session established")
                    if self._generation == 1:
                        task_status.started()
                    self._attempt_ended()
                    async with anyio.create_task_group() as refreshing:
                        refreshing.start_soon(self._refresher, session)
                        await self._wake.wait()
                        refreshing.cancel_scope.cancel()
                    self._session = None
            except Exception as exc:  # anything while opening: one ServerError that names the server
                self._session = None
                if isinstance(exc, (ServerError, ConfigError)):  # spawn failed, or a variable is missing: complete
                    self._fail(str(exc), exc if isinstance(exc, ServerError) else ServerError(str(exc)))
                else:
                    self._fail(await self._explain(exc))
                if not self._generation:
                    raise self.error from None  # Connections.open raises it to the caller
                self._attempt_ended()
            if self._closing or self.state is not State.FAILED and self.state is not State.PENDING:
                continue  # closing; or a session left on purpose (re-initialize): open the next one at once
            if self._retry_in is None:
                self._failures = 0  # the policy gave up: if revived, it counts afresh
            if self._rest():
                # A reconnect wait, or (gave up) a rest until a call, reconnect() or closing.
                await (self._nap(self._retry_in) if self._retry_in is not None else self._wake.wait())
                self._waiting = False

    def _attempt_ended(self) -> None:
        self._finished += 1
        self._changed.set()
        self._changed = anyio.Event()

    async def _attempted(self, finished: int) -> None:
        """Wait until an attempt at a session ends after ``finished`` attempts had."""
        while self._finished == finished:
            await self._changed.wait()

    def _rest(self) -> bool:
        """Get ready to wait; False if an attempt was asked for meanwhile (or the connection is closing)."""
        self._wake = anyio.Event()
        if self._asked or self._closing:
            return False
        self._waiting = True
        return True

    async def _nap(self, seconds: float) -> None:
        """The reconnect wait, cut short by a call, ``reconnect()`` or closing."""
        async with anyio.create_task_group() as tg:

            async def woken() -> None:
                await self._wake.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(woken)
            await self._sleep(seconds)
            tg.cancel_scope.cancel()

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[ClientSession]:
        """Transport, tapped streams, ClientSession; closed in reverse when the block ends."""
        spec = self.spec
        self._phase = "connect"
        self._context = context = Context(self.timeouts, self.limits, auth=self._auth, errlog=self._errlog, label=self._label)
        if self._tap is not None:
            self._tap.new_session(spec.name)
        async with self._transport(spec, context) as (read, write):
            if self._tap is not None:
                read, write = self._tap.tap(spec.name, read, write)
            read, write = guard(read, write, errors=context.errors, warn=lambda text: self._say("warning", f"{self.name}: {text}"))
            options = {"client_info": CLIENT_INFO, "message_handler": self._on_message, "logging_callback": self._on_log, **self._options}
            async with ClientSession(read, write, **options) as session:
                yield session

    async def _handshake(self, session: ClientSession) -> None:
        self._phase = "initialize"
        await self._handshake_with(session, self.timeouts)
        watch = self._context.watch if self._context else None
        if watch is not None and watch.session_id:
            self._label(watch.session_id, "session")
        self._phase = "tools/list"
        await self._list(session)
        await self._offers(session)

    def _fault(self) -> str | None:
        """Why the transport ended the session's stream, when it said (``Context.fault``)."""
        return self._context.fault if self._context else None

    def _expired(self) -> bool:
        watch = self._context.watch if self._context else None
        return bool(watch is not None and watch.expired)

    async def _explain(self, exc: BaseException) -> str:
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        if isinstance(exc, TimeoutError):
            name = "list" if self._phase == "tools/list" else "connect"
            return f"no answer to {self._phase} within {getattr(self.timeouts, name):g} s ({self.timeouts.explain(name)})"
        if isinstance(exc, _Unlisted):
            return str(exc)
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
            if fault := self._fault():
                return f"{fault} during {self._phase}"
            code = await self._exit_code()
            return f"exited with code {code} during {self._phase}" if code is not None else f"connection closed during {self._phase}"
        if isinstance(exc, MCPError):
            return f"{self._phase}: error {exc.code}: {exc.message}"
        if type(exc).__module__.startswith(("httpx", "httpcore")):  # cannot reach: the type says how
            return f"{self._phase}: cannot reach {self.spec.url}: {type(exc).__name__}"
        return f"{self._phase}: {type(exc).__name__}: {exc}"

    def _fail(self, reason: str, error: ServerError | None = None) -> None:
        """The session is lost or an attempt failed: ``failed``, then at once what the policy says.

        Deciding here, where the failure is seen, keeps the order of states the same on
        every run: failed, then ``pending`` with the wait, or failed for good (gave up).
        """
        self._reason = reason
        self.error = error or ServerError(f"server '{self.name}': {reason}{self._details()}")
        self._set(State.FAILED, reason)
        if not self._generation or self._closing:
            return  # the first connect failed (the caller is told), or the connection is closing
        self._failures += 1
        self._retry_in = self._reconnect(self._failures, self.error)
        if self._retry_in is not None:
            self._set(State.PENDING, f"retry {self._failures} in {self._retry_in:g} s")
        elif self._failures > 1:
            self._say("note", f"{self.name}: gave up after {self._failures - 1} attempts to reconnect; the next call, or a reconnect, tries again")

    def _set(self, state: State, reason: str) -> None:
        changed = state is not self.state
        self.state = state
        if changed and self._observer is not None:
            self._observer(state, reason)

    async def _exit_code(self) -> int | None:
        """The server process's exit code (it is already going: the longer grace); None if there is none."""
        return await self._context.exit_code() if self._context else None

    async def _exit_note(self) -> str:
        code = await self._exit_code()
        return f": the server exited with code {code}" if code is not None else ""

    def _details(self) -> str:
        """``; command: ...; stderr:`` and the last lines, for a server that runs as a process (stdio)."""
        if self._context is None or self._context.process is None:
            return ""
        lines = self.stderr_tail()
        return f"; command: {self.spec.where()}" + ("; stderr:\n" + "\n".join(f"  {line}" for line in lines) if lines else "; no stderr")

    # -- reporting: these run inside SDK callbacks, so they post (never raise on output) --

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._say("warning", f"{self.name}: skipped a line that is not JSON-RPC: {message}")
        elif isinstance(message, types.ToolListChangedNotification):
            self._list_changed("tools")
        elif isinstance(message, types.ResourceListChangedNotification):
            self._list_changed("resources")
        elif isinstance(message, types.PromptListChangedNotification):
            self._list_changed("prompts")
        await anyio.lowlevel.checkpoint()

    def _label(self, secret: str, kind: str) -> None:
        # Session ids let whoever holds them act in the session: a secret, named in every output.
        if self._transcript is not None:
            self._transcript.redact.add(secret, f"<{self.name}-{kind}-{self._generation + 1}>")
        self._say("note", f"{self.name}: {kind.replace('-', ' ')} {secret}")

    def _watch_id(self) -> str:
        watch = self._context.watch if self._context else None
        return watch.session_id if watch is not None and watch.session_id else "?"

    def _say(self, kind: str, text: str) -> None:
        if self._transcript is not None:
            self._transcript.post(kind, text=text)
        if kind == "warning" and self._warn is not None:
            with suppress(Exception):  # a UI's callback must not break the session it reports on
                self._warn(text)


# --- owners --------------------------------------------------------------------------


class Connections:
    """Owns connections. Each runs in its own task, so each is closed by the task that opened it.

        async with Connections(transcript) as conns:
            docs = await conns.open(ServerSpec("docs", "stdio", "python", ("-m", "mock_servers.docs", ...)))

    Leaving the block closes every connection (in parallel), also on errors and Ctrl-C.
    """

    def __init__(self, transcript: Transcript | None = None, *, timeouts: Timeouts | None = None,
                 limits: Limits | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.transcript = transcript
        self.warn = warn  # every connection's warnings, for a caller with no transcript (the CLI's stderr)
        self.progress = progress  # every call's progress, one line each (the CLI's terminal)
        self.timeouts = timeouts or Timeouts()
        # The CLI's way to change a limit is the environment (MCP_COURSE_MAX_*); code passes its own.
        self.limits = limits if limits is not None else Limits.from_environ(os.environ)
        self.open_connections: list[MCPConnection] = []
        self._tg: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Connections:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._tg is not None, "Connections was not entered"
        for conn in self.open_connections:
            conn._closing = True
            conn._wake.set()
        return await self._tg.__aexit__(*exc_info)

    async def open(self, spec: ServerSpec, *, tap: WireTap | None = None, auth: Any = None, timeouts: Timeouts | None = None,
                   handshake: Handshake = classic_handshake, reconnect: Reconnect = never,
                   respec: Callable[[], ServerSpec] | None = None, sleep: Sleep = anyio.sleep,
                   limits: Limits | None = None, **session_options: Any) -> MCPConnection:
        """Connect ``spec``: handshake and tools/list done, or ``ServerError``."""
        if self._tg is None:
            raise RuntimeError("use Connections as `async with Connections() as conns:`")
        conn = MCPConnection(spec, tap=tap, auth=auth, timeouts=timeouts or self.timeouts, transcript=self.transcript,
                             session_options=session_options, handshake=handshake, reconnect=reconnect,
                             respec=respec, sleep=sleep, limits=limits or self.limits, warn=self.warn, progress=self.progress)
        await self._tg.start(conn._run)
        self.open_connections.append(conn)
        return conn

    def connector(self, spec: ServerSpec, **kwargs: Any) -> Callable[[], Awaitable[MCPConnection]]:
        """A hub connector for ``spec``: ``await connector()`` opens it here (``ServerError`` if it cannot)."""

        async def connect_it() -> MCPConnection:
            return await self.open(spec, **kwargs)

        return connect_it


async def connect(spec: ServerSpec, *, tap: WireTap | None = None, auth: Any = None,
                  timeouts: Timeouts | None = None, transcript: Transcript | None = None, **session_options: Any) -> MCPConnection:
    """One connection with a supervisor of its own. Call ``aclose()`` from this same task.

    For several connections, or connections used from other tasks, use ``Connections``.
    """
    owner = Connections(transcript, timeouts=timeouts)
    await owner.__aenter__()
    try:
        conn = await owner.open(spec, tap=tap, auth=auth, **session_options)
    except BaseException:
        await owner.__aexit__(None, None, None)
        raise
    conn._private = owner
    return conn
