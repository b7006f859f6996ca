"""The call path of one connection: ``tools/call`` and ``tools/list`` on its current session, bounded.

``CallPath`` is the part of a ``harness.connection.MCPConnection`` that sends requests on
the session its ``harness.sessions.SessionOwner`` keeps, and judges what comes back:

    call(tool, arguments)     the mechanisms' around_call chain, then one request under the
                              call timeout (restarted by each progress notification) through
                              their around_send chain; a ToolResult, or ToolError naming the
                              server and tool
    listing(session)          tools/list, every page, within the list timeout and
                              ``Limits.pages`` pages, a cursor sent twice refused; then the
                              caps (``harness.guard.trimmed``) and each mechanism's on_listed
    send(method, target, ...) a resources/read or prompts/get through the mechanisms' around_send
                              chain (a server may ask for input on it too), under the call timeout
    request(what, ...)        any other request under a named timeout, its errors in one line
    fetched(session, ...)     a cacheable request through the mechanisms' around_request chain

A lost connection mid-call fails the connection (the owner task leaves the dead session)
and the call's error says what the transport knows: its fault, the SDK's words, or the
server's exit code and stderr tail.

Introduced by s23. Not handled here: rendering a result (s32's ``harness.output``), what a mechanism does
around a call (its module).
"""

from __future__ import annotations

from asyncio import CancelledError
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from harness import hooks
from harness.deadline import Deadline
from harness.errors import ToolError
from harness.guard import UnsendableFrame, printable, refused_result, trimmed
from harness.hooks import Call, Mechanism, Request
from harness.jsonvalue import JSON
from harness.results import ToolResult
from harness.sessions import Unlisted

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from harness.hooks import Sent
    from harness.sessions import SessionOwner

T = TypeVar("T")


def _needs_tasks(tool: Mapping[str, JSON]) -> bool:
    """A tool that fails unless called as a task (SEP-1686): offering it would only waste the model's turn."""
    execution = tool.get("execution")
    return isinstance(execution, Mapping) and execution.get("taskSupport") == "required"


async def _sent(call: Call, **more: Any) -> Sent:  # more: the SDK request's keywords (input_responses, ...)
    """The innermost send: one request (s33's rounds add ``input_responses`` and the like)."""
    if call.method == "resources/read":
        return await call.session.read_resource(call.tool, **more)
    if call.method == "prompts/get":
        return await call.session.get_prompt(call.tool, call.arguments, **more)
    return await call.session.call_tool(call.tool, call.arguments, progress_callback=call.progressed, **more)


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    """Reads and prompts report no progress."""


class CallPath:
    """Calls and listings on one connection's current session."""

    def __init__(self, owner: SessionOwner, mechanisms: Sequence[Mechanism], progress: Callable[[str], None] | None) -> None:
        self._owner = owner
        self._progress = progress  # also told each progress notification, as one line: for a terminal with no transcript
        self._listed = hooks.overriding(mechanisms, "on_listed")
        self.tools: list[dict[str, JSON]] = []
        self.call = hooks.calls(mechanisms, self._call_once)
        self._send = hooks.sends(mechanisms, _sent)
        self.fetched: hooks.Fetch = hooks.fetches(mechanisms)

    async def request(self, what: str, request: Awaitable[T], limit: float, name: str) -> T:
        """One request under ``limit`` s (the timeout ``name``): its result, or ``ToolError`` naming it."""
        owner = self._owner
        try:
            with anyio.fail_after(limit):
                return await request
        except TimeoutError:
            raise ToolError(f"server '{owner.name}': {what}: no answer within {limit:g} s ({owner.timeouts.explain(name)})") from None
        except MCPError as exc:
            raise self._refused(what, exc) from None

    async def send(self, method: str, target: str, arguments: dict[str, JSON], what: str) -> Any:
        """``method`` (``resources/read`` of URI ``target``, or ``prompts/get`` of prompt ``target``) through the
        mechanisms' around_send chain, so input-required rounds answer it as they answer a call; under the call
        timeout, which each round starts again. The SDK's result, or ``ToolError`` naming ``what``."""
        owner = self._owner
        session = owner.live(None)
        limit = owner.timeouts.call
        deadline = Deadline(limit)
        try:
            try:
                return await self._send(Call(session, target, arguments, f"server '{owner.name}': {what}", _no_progress,
                                             deadline, method=method))
            finally:
                deadline.close()
        except CancelledError:
            if not deadline.expired():
                raise  # cancelled from outside: not ours to turn into an error
            raise ToolError(f"server '{owner.name}': {what}: no answer within {limit:g} s ({owner.timeouts.explain('call')})") from None
        except MCPError as exc:
            raise self._refused(what, exc) from None
        except UnsendableFrame as exc:
            raise ToolError(f"server '{owner.name}': {what}: {exc}") from None

    def _refused(self, what: str, exc: MCPError) -> ToolError:
        owner = self._owner
        ours = bool(owner.context and owner.context.server_sent_closed_code(exc.message))  # the server's -32000, not "closed"
        if exc.code == types.CONNECTION_CLOSED and not ours:  # the session ended: say why, if known
            fault = owner.context.fault if owner.context else None
            return ToolError(f"server '{owner.name}': {what}: {fault or 'connection lost'}")
        return ToolError(f"server '{owner.name}': {what}: error {exc.code}: {printable(exc.message, 200)}")

    async def list_tools(self) -> list[dict[str, JSON]]:
        """``tools/list`` on the current session, every page; ``ToolError`` naming the bound it went past."""
        owner = self._owner
        session = owner.live(None)
        try:
            return await self.listing(session)
        except (Unlisted, TimeoutError) as exc:
            owner.begin("tools/list")
            raise ToolError(f"server '{owner.name}': {await owner.explain(exc)}") from None

    async def _call_once(self, tool: str, arguments: dict[str, JSON]) -> ToolResult:
        owner = self._owner
        session = owner.live(tool)
        where = f"server '{owner.name}': tool '{tool}'"
        limit = owner.timeouts.call
        deadline = Deadline(limit)

        async def progressed(progress: float, total: float | None, message: str | None) -> None:
            deadline.restart()  # the server is working: the call timeout starts again
            done = f"{progress:g}/{total:g}" if total else f"{progress:g}"
            owner.say("note", f"{owner.name}: {tool}: progress {done}" + (f": {message}" if message else ""))
            if self._progress is not None:
                self._progress(f"{owner.name}/{tool}: {done}" + (f": {printable(message, 100)}" if message else ""))

        try:
            try:
                result = await self._send(Call(session, tool, arguments, where, progressed, deadline))
            finally:
                deadline.close()  # before any handler below waits (an exit code): the timeout is the request's only
        except CancelledError:
            if not deadline.expired():
                raise  # cancelled from outside (Ctrl-C, a closing hub): not ours to turn into an error
            raise ToolError(f"{where}: no answer within {limit:g} s ({owner.timeouts.explain('call')})") from None
        except MCPError as exc:
            await self._call_failed(exc, where)
        except UnsendableFrame as exc:  # refused before sending: the session is untouched
            raise ToolError(f"{where}: {exc}") from None
        except (RuntimeError, ValidationError) as exc:  # the SDK judging the result against the tool's schema
            if (why := refused_result(exc)) is None:
                raise  # not a judgement of a result: a bug, which must show
            raise ToolError(f"{where}: {why}") from None
        return ToolResult(
            content=tuple(block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
            origin=where,
        )

    async def _call_failed(self, exc: MCPError, where: str) -> NoReturn:
        owner = self._owner
        context = owner.context
        if exc.code == types.CONNECTION_CLOSED and not (context and context.server_sent_closed_code(exc.message)):
            # What the transport says first (a frame over the limit, a dropped stream), then
            # the SDK's own words if it has more than "Connection closed", then the exit code.
            said = f": {printable(exc.message, 200)}" if exc.message and exc.message != "Connection closed" else ""
            fault = context.fault if context else None
            if not (fault or said) and context and (code := await context.exit_code()) is not None:
                said = f": the server exited with code {code}"
            owner.fail(fault or f"connection lost{said}")
            owner.wake.set()  # the owner task leaves the dead session (and asks the supervisor)
            raise ToolError(f"{where}: {owner.reason}{owner.details()}") from None
        raise ToolError(f"{where}: protocol error {exc.code}: {printable(exc.message, 200)}") from None  # one line, escaped and cut

    async def listing(self, session: ClientSession) -> list[dict[str, JSON]]:
        """Every page, all of them within the list timeout, at most ``Limits.pages``; then the caps."""
        owner = self._owner
        timeouts, limits = owner.timeouts, owner.limits
        tools: list[dict[str, JSON]] = []
        cursors: set[str] = set()
        cursor, pages, more = None, 0, False
        with anyio.CancelScope(deadline=anyio.current_time() + timeouts.list) as scope:
            while True:
                if cursor:  # a continuation page always goes to the server
                    page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                else:  # the first page, which a mechanism may answer (s34: the response cache)
                    page = await self.fetched(session, "tools/list", "", _first_page(session))
                pages += 1
                tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
                if not (cursor := page.next_cursor):
                    break
                if len(tools) > limits.tools:
                    more = True  # enough to cut at the tools limit: the rest would be cut anyway
                    break
                if cursor in cursors:
                    raise Unlisted(f"tools/list: the server sent cursor '{printable(cursor, 40)}' a second time, "
                                   f"after {pages} pages (a loop; a cursor must lead on)")
                if pages >= limits.pages:
                    raise Unlisted(f"tools/list: more than {limits.pages} pages ({limits.explain('pages')})")
                cursors.add(cursor)
        if scope.cancelled_caught:
            if not pages:
                raise TimeoutError  # no answer at all: the connection says so, naming the timeout
            raise Unlisted(f"tools/list: not finished within {timeouts.list:g} s, after {pages} pages "
                           f"({timeouts.explain('list')})")
        tools, warnings = trimmed(tools, limits, more)
        for warning in warnings:
            owner.say("warning", f"{owner.name}: {warning}")
        for mechanism in self._listed:
            tools = mechanism.on_listed(tools)
        self.tools = [t for t in tools if not _needs_tasks(t)]
        for left in (t for t in tools if _needs_tasks(t)):
            owner.say("note", f"{owner.name}: tool '{printable(left['name'], 80)}' left out: it can only run as a task "
                              "(execution.taskSupport is \"required\"), which this client does not do")
        return self.tools


def _first_page(session: ClientSession) -> Request:
    return lambda: session.list_tools(params=None)
