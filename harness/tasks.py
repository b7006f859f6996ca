"""Long tools as tasks (s39): SEP-2663's ``io.modelcontextprotocol/tasks``, followed to the end.

A 2026-07-28 server may answer a ``tools/call`` with a task handle (``resultType: "task"``)
instead of the result, if the request declared the extension. ``Tasks`` (the part) gives
each connection a ``TaskCalls`` (the mechanism, on ``around_send``), which:

    declares     the extension in every 2026-07-28 request's capabilities, and claims the
                 ``task`` result shape (the SDK's ``extensions=`` and ``result_claims=`` of
                 ``ClientSession``); a server entry's ``"tasks": "off"`` leaves both out
    polls        ``tasks/get`` at the task's ``pollIntervalMs``, kept within ``POLL_S``; each new
                 status is a transcript note (and a line to the part's ``status``: the CLI's
                 stderr), and starts the call timeout again
    answers      a task in ``input_required``: each form in its ``inputRequests`` goes to the
                 user (the part's ``asker``; with none, declined), and ``tasks/update`` carries
                 the answers; a key already answered is not asked again
    cancels      with ``tasks/cancel`` when the call is cancelled: the call timeout (a tool the
                 config marks long has none while the server answers its polls), a closing
                 stack, and Ctrl-C, whose cancel is the run's last words
                 (``harness.signals.last_words``: once a signal has cancelled the run, the SDK's
                 dispatcher is closed and nothing more can be sent). Each task is cancelled
                 once, shielded, bounded by ``CANCEL_S``
    reconnects   when the connection is lost while a task runs: 2026-07-28 has no session to
                 lose, so after ``reconnect()`` the same task id is polled on the new session
                 (at most ``RECONNECTS`` times per task)
    ends         with the task's result (``completed``: the tool result as a plain call would
                 have it), or a ToolError naming the task (``failed``: its JSON-RPC error;
                 ``cancelled``)

The SDK (mcp 2.3) has the claim and extension plumbing but no tasks client: ``tasks/get``,
``tasks/update`` and ``tasks/cancel`` are built here on its public ``send_request``, with a
request type each whose ``name_param`` puts the task id in the ``Mcp-Name`` header on HTTP
(the SEP's routing rule).

Introduced by s39. Not handled here: the handshake era's tasks (SEP-1686, 2025-11-25: a
``task`` request field and ``tasks/result``), so there a tool that runs only as a task is
still left out at listing; ``notifications/tasks`` on a listen stream (polling only); sampling
in a task's ``inputRequests`` (declined); the model cancelling a task of its own accord (the
loop calls one tool at a time; a cancel comes from the user or the timeout); a task id kept
on disk across runs of the harness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

import anyio
import mcp_types as types
from mcp.client.extension import ResultClaim
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from harness import signals
from harness.config.task_policy import FIELD, TaskPolicy, policy
from harness.errors import ConfigError, ToolError
from harness.guard import printable
from harness.hooks import Call, Mechanism, Send
from harness.jsonvalue import JSONObject
from harness.parts import Built, Part

if TYPE_CHECKING:
    from mcp.client.extension import ClaimContext
    from mcp.client.session import ClientSession

    from harness.client import Host
    from harness.config.formats import ServerConfig
    from harness.elicit import Asker
    from harness.hooks import Sent

TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")
POLL_S = (0.01, 5.0)  # the poll interval is the server's, kept within these bounds (s)
CANCEL_S = 5.0  # how long tasks/cancel may take once the call is given up
RECONNECTS = 3  # connections lost while one task runs, before the call fails
Status = Callable[[str], None]  # told each line a task's following says, beside the transcript (the CLI's stderr)


class CreateTask(types.Result):
    """A ``CreateTaskResult``: the task handle a server may answer ``tools/call`` with."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None


class Detailed(types.Result):
    """A ``tasks/get`` answer: the task, and what its status carries (result, error, or input requests)."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, object] | None = None
    error: dict[str, object] | None = None
    input_requests: dict[str, object] | None = None


class TaskParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, object]


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


async def _unresolved(claimed: CreateTask, context: ClaimContext) -> types.CallToolResult:
    """The SDK's ``Client`` resolves a claim here; ``TaskCalls`` follows the task itself (``allow_claimed``)."""
    raise ToolError(f"tool '{context.tool_name}': task '{claimed.task_id}' was not followed")


CLAIM = ResultClaim(result_type="task", model=CreateTask, resolve=_unresolved)


def _modern(session: ClientSession) -> bool:
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


class TaskCalls(Mechanism):
    """One connection's calls that become tasks: polled, answered, cancelled, picked up after a reconnect."""

    order = 45  # inside s33's input rounds (a server may ask before it makes a task), outside s34's era side

    def __init__(self, policy: TaskPolicy, asker: Asker | None = None, status: Status | None = None) -> None:
        self._policy, self._asker, self._status = policy, asker, status
        self.running: set[str] = set()  # the tasks being followed, not yet ended nor cancelled

    def bind(self, host: Host) -> None:
        self._host = host

    async def cancel(self, session: ClientSession, task_id: str) -> None:
        """``tasks/cancel`` for a task still followed, once, shielded and bounded; a refusal or a lost server is let be."""
        if task_id not in self.running:
            return
        self.running.discard(task_id)
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_S):
            try:
                await session.send_request(CancelTask(params=TaskParams(task_id=task_id)), types.EmptyResult)
            except (MCPError, OSError):
                return  # the server is gone or refuses: nothing more to tell it
            said = f"{self._host.name}: task '{printable(task_id, 60)}' cancelled (tasks/cancel sent)"
            self._host.say("note", said)
            if self._status is not None:
                self._status(said)

    def session_options(self) -> dict[str, object]:
        # ClientSession's own keywords: the capability every 2026-07-28 request carries, and the shape it lets in.
        return {"extensions": {TASKS: {}}, "result_claims": {TASKS: (CLAIM,)}}

    async def around_send(self, call: Call, proceed: Send) -> Sent:
        if call.method != "tools/call" or not _modern(call.session):
            return await proceed(call)
        sent = await proceed(call, allow_claimed=True)
        if not isinstance(sent, CreateTask):
            return sent
        return await Following(self, self._host, call, self._policy, self._asker, self._status).run(sent)


class Following:
    """One task, from its handle to its end."""

    def __init__(self, calls: TaskCalls, host: Host, call: Call, policy: TaskPolicy, asker: Asker | None,
                 status: Status | None) -> None:
        self._calls, self._host, self._call, self._asker, self._status = calls, host, call, asker, status
        self._long = call.tool in policy.long
        self._session = call.session
        self._answered: set[str] = set()
        self._task: Detailed  # the task as last seen

    def _say(self, text: str) -> None:
        self._host.say("note", f"{self._host.name}: {self._call.tool}: {text}")
        if self._status is not None:
            self._status(f"{self._host.name}/{self._call.tool}: {text}")

    async def run(self, handle: CreateTask) -> types.CallToolResult:
        task = self._task = Detailed.model_construct(  # the handle's fields, validated as it came in
            task_id=handle.task_id, status=handle.status, status_message=handle.status_message, poll_interval_ms=handle.poll_interval_ms)
        self._say(f"task '{printable(task.task_id, 60)}' started ({task.status}"
                  + (f": {printable(task.status_message, 100)})" if task.status_message else ")")
                  + ("; a long tool: no call timeout while it is polled" if self._long else ""))
        self._calls.running.add(task.task_id)
        try:
            with signals.last_words(lambda: self._calls.cancel(self._session, task.task_id)):  # Ctrl-C: cancel, then stop
                await self._follow(task)
        except BaseException:  # cancelled (Ctrl-C, the call timeout, a closing stack) or failed: the server is told
            if self._task.status not in TERMINAL:
                await self._calls.cancel(self._session, self._task.task_id)
            raise
        finally:
            self._calls.running.discard(task.task_id)
        return self._outcome(self._task)

    async def _follow(self, task: Detailed) -> None:
        """Poll until the task ends, answering what it asks on the way; ``self._task`` is its last state."""
        seen = (task.status, task.status_message)
        self._task = task
        while task.status not in TERMINAL:
            if task.status == "input_required":
                await self._answer(task)
            wait = (task.poll_interval_ms or 1000) / 1000
            await anyio.sleep(min(max(wait, POLL_S[0]), POLL_S[1]))
            task = self._task = await self._poll(task.task_id)
            if self._long:
                self._call.restart()
            if (task.status, task.status_message) != seen:
                seen = (task.status, task.status_message)
                self._progressed(task)

    def _progressed(self, task: Detailed) -> None:
        self._say(f"task '{printable(task.task_id, 60)}' {task.status}"
                  + (f": {printable(task.status_message, 100)}" if task.status_message else ""))
        self._call.restart()  # the server is working: the call timeout starts again

    async def _poll(self, task_id: str) -> Detailed:
        lost = 0
        while True:
            try:
                return await self._session.send_request(GetTask(params=TaskParams(task_id=task_id)), Detailed)
            except ValidationError as exc:  # a hostile or broken server: the call ends here, and the task is cancelled
                first = exc.errors()[0] if exc.errors() else {}
                field = ".".join(str(p) for p in first.get("loc", ())) or "result"
                raise ToolError(f"{self._call.where}: task '{printable(task_id, 60)}': tasks/get answered with no valid task "
                                f"({printable(field, 40)}: {printable(str(first.get('msg', 'invalid')), 80)})") from None
            except MCPError as exc:
                if exc.code != types.CONNECTION_CLOSED or lost >= RECONNECTS:
                    raise
            lost += 1
            self._say(f"the connection was lost while task '{printable(task_id, 60)}' runs; "
                      "it is polled again once the server is back (2026-07-28 has no session to lose)")
            if not await self._host.reconnect():
                raise ToolError(f"{self._call.where}: task '{printable(task_id, 60)}': the server did not come back "
                                f"({self._host.reason})")
            self._session = self._host.live(self._call.tool)

    async def _answer(self, task: Detailed) -> None:
        """Each input request not answered yet, asked once; the answers in one ``tasks/update``."""
        answers: JSONObject = {}
        for key, request in (task.input_requests or {}).items():
            if key in self._answered:
                continue
            self._answered.add(key)
            answers[key] = await self._one(key, request)
        if answers:
            await self._session.send_request(UpdateTask(params=UpdateParams(task_id=task.task_id, input_responses=answers)),
                                             types.EmptyResult)
            self._call.restart()  # the time was the user's, not the server's

    async def _one(self, key: str, request: object) -> JSONObject:
        params = request.get("params") if isinstance(request, Mapping) else None
        method = request.get("method") if isinstance(request, Mapping) else None
        if method != "elicitation/create" or not isinstance(params, Mapping) or params.get("mode", "form") != "form":
            self._say(f"the task asks for {printable(str(method), 40)} '{printable(key, 40)}', which this client declines in a task")
            return {"action": "decline"}
        self._say(f"the task asks for input '{printable(key, 40)}'")
        if self._asker is None:
            return {"action": "decline"}
        schema = params.get("requestedSchema")
        action, content = await self._asker.form(self._host.name, str(params.get("message", "")),
                                                 schema if isinstance(schema, Mapping) else {})
        return {"action": action, **({"content": content} if content is not None else {})}

    def _outcome(self, task: Detailed) -> types.CallToolResult:
        where, named = self._call.where, f"task '{printable(task.task_id, 60)}'"
        if task.status == "failed":
            error = task.error or {}
            raise ToolError(f"{where}: {named} failed: error {error.get('code', '?')}: {printable(str(error.get('message', '')), 200)}")
        if task.status == "cancelled":
            raise ToolError(f"{where}: {named} was cancelled by the server"
                            + (f": {printable(task.status_message, 100)}" if task.status_message else ""))
        try:
            return types.CallToolResult.model_validate(task.result or {})
        except ValidationError:
            raise ToolError(f"{where}: {named} completed without a tool result") from None


@dataclass
class Tasks(Part):
    """Every connection's calls may become tasks (a server entry's ``"tasks"`` field says how); ``asker``: who answers
    a task's forms (None: they are declined); ``status``: told each line about a task too (None: the transcript only)."""

    lesson: ClassVar[str] = "s39"
    asker: Asker | None = None
    status: Status | None = None
    _warned: set[str] = field(default_factory=set, init=False)

    def mechanisms(self, server: ServerConfig, built: Built) -> Sequence[Mechanism]:
        try:
            chosen = policy(server.name, server.raw)
        except ConfigError as exc:
            if server.name not in self._warned and built.transcript is not None:
                self._warned.add(server.name)
                built.transcript.warning(f"{exc}; tasks stay \"on\"")
            chosen = TaskPolicy()
        return [TaskCalls(chosen, self.asker, self.status)] if chosen.declared else []


__all__ = ["FIELD", "TASKS", "CreateTask", "Detailed", "TaskCalls", "Tasks"]
