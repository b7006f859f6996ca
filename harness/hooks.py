"""The typed seam: the hooks a connection runs its mechanisms at, and the chains that run them.

A mechanism is an object, one per connection, that the composition root
(``harness.stack``) or a lesson builds and hands over:
``Connections.open(spec, mechanisms=[SessionExpiry(), Offering()])``. It subclasses
``Mechanism``, overrides the hooks it needs, and is told its connection once through
``bind``, as a ``harness.client.Host``: the members a mechanism may use, and no others.
The connection calls each hook of every mechanism in list order; for the ``around_*``
hooks the first mechanism is the outermost::

    hook                          when it runs                                          who uses it
    bind(host)                    once, before the first session                        every mechanism
    session_options()             ClientSession callbacks it adds                       resources (logs), elicit
    on_open(session)              after the handshake and tools/list, before any use    resources, modern
    on_listed(tools)              each tools/list: returns the tools kept               config's tool filter, modern
    alongside(session)            runs beside each live session, cancelled at its end   resources, modern
    on_notification(message)      each server notification, in the SDK's callback       resources, cache
    around_call(tool, args, go)   each call, outside its timeout                        lifecycle, expiry, resources, tool filter
    around_send(call, go)         the request(s) of a call, a read or a prompt, inside  expiry, elicit, modern
                                  its timeout (``Call.method`` says which)
    around_request(s, m, k, go)   a cacheable list or read request                      cache

A hook is here when several mechanisms need it. A mechanism with a need of its own wraps
what a hook hands it (a ``Call``, a session) or asks its host; it does not add a slot.

``Supervisor`` is the one mechanism a connection asks after a lost session (``failed``,
``established``, ``rest``); the connection finds it among its mechanisms by type, and
without one a lost connection stays failed until ``reconnect()``.

Only a hook a mechanism overrides is called: the chains skip the defaults, so a
connection pays for what is plugged in and nothing else.

Not handled here: what each mechanism does (its module says).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from harness.jsonvalue import JSON

if TYPE_CHECKING:
    import anyio
    import mcp_types
    from mcp.client.session import ClientSession, ElicitationFnT, ListRootsFnT, LoggingFnT, MessageHandlerFnT, SamplingFnT

    from harness.client import Host
    from harness.deadline import Deadline
    from harness.results import ToolResult

    Sent = mcp_types.Result  # what the request(s) bring back: a CallToolResult, ReadResourceResult, GetPromptResult, or an InputRequiredResult
    SessionCallback = SamplingFnT | ElicitationFnT | ListRootsFnT | LoggingFnT | MessageHandlerFnT  # one of ClientSession's


@dataclass
class Call:
    """One request on its way that a server may answer by asking for input: what ``around_send`` hooks see.

    ``method`` is ``tools/call`` (``tool`` the tool's name), ``resources/read`` (``tool`` the URI) or
    ``prompts/get`` (``tool`` the prompt's name). ``restart()`` starts the call timeout again.
    """

    session: ClientSession
    tool: str
    arguments: dict[str, JSON]
    where: str  # "server 'docs': tool 'search'", for messages
    progressed: Callable[[float, float | None, str | None], Awaitable[None]]
    deadline: Deadline  # the call timeout (harness.deadline)
    method: str = "tools/call"

    def restart(self) -> None:
        self.deadline.restart()


Proceed = Callable[[], Awaitable["ToolResult"]]
# (call, **more arguments of the SDK's request) -> its result (CallToolResult, ...), or an InputRequiredResult
Send = Callable[..., Awaitable["Sent"]]
CallTool = Callable[[str, dict[str, JSON]], Awaitable["ToolResult"]]
Request = Callable[[], Awaitable["mcp_types.Result"]]  # sends one cacheable request: the SDK's result object
Fetch = Callable[["ClientSession", str, str, Request], Awaitable["mcp_types.Result"]]  # (session, method, key, request) -> the result


class Mechanism:
    """A part of a connection. Each hook does nothing here; a mechanism overrides its own."""

    # Where it sits when the composition root sorts a connection's mechanisms (the lowest outermost):
    # 0 before the offers list (s34's log level), 10 a supervisor, 20 expiry, 30 s30's offers, 40 input
    # rounds, 50 by default (s34's listen, after the offers), 60 the cache, 90 a config's tool filter.
    order: ClassVar[int] = 50

    def bind(self, host: Host) -> None:
        """Told its connection once, before the first session."""

    def session_options(self) -> Mapping[str, SessionCallback]:
        """``ClientSession`` callbacks it adds (``logging_callback``, ``elicitation_callback``, ...)."""
        return {}

    async def on_open(self, session: ClientSession) -> None:
        """After the handshake and tools/list of each session, before anyone uses it."""

    def on_listed(self, tools: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
        """Each tools/list's tools, at connect and again after list_changed: the ones the connection keeps."""
        return tools

    async def alongside(self, session: ClientSession) -> None:
        """Runs beside each live session; cancelled when the session ends."""

    def on_notification(self, message: object) -> None:
        """Each notification the server sends. Runs in the SDK's callback: record, never wait."""

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        """Around each call, outside its timeout."""
        return await proceed()

    async def around_send(self, call: Call, proceed: Send) -> Sent:
        """Around the tools/call request(s), inside the timeout; ``proceed(call, **more)`` sends."""
        return await proceed(call)

    async def around_request(self, session: ClientSession, method: str, key: str, request: Request) -> mcp_types.Result:
        """Around one cacheable request: the first page of ``tools/list``, ``resources/list``,
        ``resources/templates/list`` or ``prompts/list`` (``key`` ""), or a ``resources/read`` (``key``
        its uri). ``request()`` sends it; the SDK's result comes back, from it or from elsewhere."""
        return await request()


class Supervisor(Mechanism):
    """What happens after a session is lost. Here: nothing; the connection stays failed until
    ``reconnect()`` or closing (``harness.lifecycle.Supervisor`` adds a policy and its waits)."""

    def failed(self) -> None:
        """A session was lost, or an attempt at one failed (not the first connect): told at once."""

    def established(self) -> None:
        """A session is up."""

    async def rest(self, ready: Callable[[], anyio.Event | None]) -> None:
        """Between sessions after a loss. ``ready()``: the event that ends the wait, or None if it must not start."""
        woken = ready()
        if woken is not None:
            await woken.wait()


def overriding(mechanisms: Sequence[Mechanism], hook: str) -> list[Mechanism]:
    """The mechanisms whose ``hook`` is their own, not the default: the only ones worth calling."""
    default = getattr(Mechanism, hook)
    return [m for m in mechanisms if getattr(type(m), hook) is not default]


def calls(mechanisms: Sequence[Mechanism], innermost: CallTool) -> CallTool:
    """Every mechanism's ``around_call`` around ``innermost``, the first mechanism's outermost.

    Every frame here is resumed each time the request waits, so a level costs on every
    call: each level is a plain function handing on the mechanism's own coroutine, not a
    coroutine of its own around it.
    """
    call = innermost
    for mechanism in reversed(overriding(mechanisms, "around_call")):
        call = _wrap_call(mechanism.around_call, call)
    return call


def sends(mechanisms: Sequence[Mechanism], innermost: Send) -> Send:
    """Every mechanism's ``around_send`` around ``innermost``, as ``calls`` builds its chain."""
    send = innermost
    for mechanism in reversed(overriding(mechanisms, "around_send")):
        send = _wrap_send(mechanism.around_send, send)
    return send


def fetches(mechanisms: Sequence[Mechanism]) -> Fetch:
    """Every mechanism's ``around_request``, the first outermost; with none, the request is sent as it is."""
    fetch: Fetch = _request
    for mechanism in reversed(overriding(mechanisms, "around_request")):
        fetch = _wrap_fetch(mechanism, fetch)
    return fetch


async def _request(session: ClientSession, method: str, key: str, request: Request) -> mcp_types.Result:
    return await request()


def _wrap_fetch(mechanism: Mechanism, inner: Fetch) -> Fetch:
    def fetch(session: ClientSession, method: str, key: str, request: Request) -> Awaitable[mcp_types.Result]:
        return mechanism.around_request(session, method, key, lambda: inner(session, method, key, request))

    return fetch


def _wrap_call(around: Callable[[str, dict[str, JSON], Proceed], Awaitable[ToolResult]], inner: CallTool) -> CallTool:
    def call(tool: str, arguments: dict[str, JSON]) -> Awaitable[ToolResult]:
        return around(tool, arguments, lambda: inner(tool, arguments))

    return call


def _wrap_send(around: Callable[[Call, Send], Awaitable[Sent]], inner: Send) -> Send:
    def send(call: Call, **more: Any) -> Awaitable[Sent]:  # more: the SDK request's keywords
        return around(call, (lambda call, **extra: inner(call, **more, **extra)) if more else inner)

    return send
