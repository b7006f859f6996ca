"""The named hooks a connection declares, and how mechanisms are plugged into them.

A later lesson's mechanism is a ``Mechanism``: it overrides the hooks it needs, and the
connection (``harness.connection``) calls every mechanism's hook at that point. The table
of hooks, and which lesson plugs into each, is in ``harness.connection``'s docstring.

``plugged(names, options)`` builds the mechanisms from their plugs: each name is a
``module:function`` that takes the options it knows out of ``Connections.open``'s keywords
(s28's ``reconnect=`` and ``sleep=``) and returns a mechanism, or None when it has nothing
to do. ``DEFAULT_MECHANISMS`` names the ones every connection gets unless told otherwise:
named, not imported, so the connection imports no later lesson's module (the transports
registry names its built-ins the same way).

Introduced by the composition issue (17). Not handled here: what each mechanism does.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.shared.exceptions import MCPError

    from harness.deadline import Deadline
    from harness.results import ToolResult

# The first one's call hook is the outermost: a lost session is reconnected (s28) before a
# call can find it expired (s25).
DEFAULT_MECHANISMS = ("harness.lifecycle:plug", "harness.expiry:plug", "harness.resources:plug", "harness.elicit:plug",
                      "harness.cache:plug")  # s34's response cache: only for a connection opened with cache=


@dataclass
class Call:
    """One tools/call on its way: what ``send`` hooks see. ``restart()`` starts the call timeout again."""

    session: ClientSession
    tool: str
    arguments: dict[str, Any]
    where: str  # "server 'docs': tool 'search'", for messages
    progressed: Callable[[float, float | None, str | None], Awaitable[None]]
    deadline: Deadline  # the call timeout (harness.deadline)

    def restart(self) -> None:
        self.deadline.restart()


Proceed = Callable[[], Awaitable["ToolResult"]]
Send = Callable[..., Awaitable[Any]]  # (call, **more call_tool arguments) -> the SDK's result
CallTool = Callable[[str, dict[str, Any]], Awaitable["ToolResult"]]
Request = Callable[[], Awaitable[Any]]  # sends one cacheable request: the SDK's result
Fetch = Callable[["ClientSession", str, str, Request], Awaitable[Any]]  # (session, method, key, request) -> the result


class Mechanism:
    """A later lesson's part of a connection. Each hook does nothing here; a mechanism overrides its own."""

    def bind(self, conn: Any) -> None:
        """Told its connection (a ``harness.connection.MCPConnection``) once, before the first session."""

    def options(self) -> dict[str, Any]:
        """``ClientSession`` options it adds."""
        return {}

    def listed(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each tools/list's tools, at connect and again after list_changed: the ones the connection keeps."""
        return tools

    async def opened(self, session: ClientSession) -> None:
        """After the handshake and tools/list of each session, before anyone uses it."""

    async def beside(self, session: ClientSession) -> None:
        """Runs beside each live session; cancelled when the session ends."""

    def notified(self, message: Any) -> None:
        """Each notification the server sends. Runs in the SDK's callback: record, never wait."""

    async def call(self, tool: str, arguments: dict[str, Any], proceed: Proceed) -> ToolResult:
        """Around each call, outside its timeout."""
        return await proceed()

    async def send(self, call: Call, proceed: Send) -> Any:
        """Around the tools/call request(s), inside the timeout; ``proceed(call, **more)`` sends."""
        return await proceed(call)

    def claim(self, exc: MCPError) -> BaseException | None:
        """A call's MCP error, before the connection judges it: an exception to raise instead, or None."""
        return None

    # lesson: s34
    async def ready(self, session: ClientSession) -> None:
        """After every mechanism's ``opened``, before the session is published: the opening's last step."""

    # lesson: s34
    def heard_on(self, session: ClientSession) -> str | None:
        """Where this session's notifications come from when not on its own stream (a request's name), or None."""
        return None

    # lesson: s34
    def answered(self, result: dict[str, Any]) -> None:
        """Each result the server answers a request with, before the SDK reads it. Runs in the session's
        reader: fill in, never wait or raise."""

    # lesson: s34
    def up(self, session: ClientSession) -> str | None:
        """What the state line says of a session up again after a loss or a reconnect (None: "session established")."""
        return None

    # lesson: s34
    async def fetched(self, session: ClientSession, method: str, key: str, request: Request) -> Any:
        """Around one cacheable request: the first page of ``tools/list``, ``resources/list``,
        ``resources/templates/list`` or ``prompts/list`` (``key`` ""), or a ``resources/read`` (``key``
        its uri). ``request()`` sends it; the SDK's result comes back, from it or from elsewhere."""
        return await request()


class Supervisor(Mechanism):
    """What happens after a session is lost. Here: nothing; the connection stays failed until
    ``reconnect()`` or closing (s28's ``lifecycle.Supervisor`` adds a policy and its waits)."""

    def failed(self) -> None:
        """A session was lost, or an attempt at one failed (not the first connect): told at once."""

    def established(self) -> None:
        """A session is up."""

    async def rest(self, ready: Callable[[], anyio.Event | None]) -> None:
        """Between sessions after a loss. ``ready()``: the event that ends the wait, or None if it must not start."""
        woken = ready()
        if woken is not None:
            await woken.wait()


def calls(mechanisms: Sequence[Mechanism], innermost: CallTool) -> CallTool:
    """Every mechanism's ``call`` hook around ``innermost``, the first mechanism's outermost.

    A mechanism that keeps the default ``call`` is left out of the chain (it would only pass
    the call on). Every frame here is resumed each time the request waits, so a level costs
    on every call: each level is a plain function handing on the mechanism's own coroutine,
    not a coroutine of its own around it.
    """
    call = innermost
    for mechanism in reversed(mechanisms):
        if type(mechanism).call is not Mechanism.call:
            call = _wrap_call(mechanism.call, call)
    return call


def sends(mechanisms: Sequence[Mechanism], innermost: Send) -> Send:
    """Every mechanism's ``send`` hook around ``innermost``, as ``calls`` builds the ``call`` chain."""
    send = innermost
    for mechanism in reversed(mechanisms):
        if type(mechanism).send is not Mechanism.send:
            send = _wrap_send(mechanism.send, send)
    return send


# lesson: s34
def fetches(mechanisms: Sequence[Mechanism]) -> Fetch:
    """The ``fetched`` hooks of the mechanisms that have one, the first outermost; with none, the request is sent as it is."""
    fetch: Fetch = _request
    for mechanism in reversed([m for m in mechanisms if type(m).fetched is not Mechanism.fetched]):
        fetch = _wrap_fetch(mechanism, fetch)
    return fetch


async def _request(session: ClientSession, method: str, key: str, request: Request) -> Any:
    return await request()


def _wrap_fetch(mechanism: Mechanism, inner: Fetch) -> Fetch:
    def fetch(session: ClientSession, method: str, key: str, request: Request) -> Awaitable[Any]:
        return mechanism.fetched(session, method, key, lambda: inner(session, method, key, request))

    return fetch


def _wrap_call(around: Callable[[str, dict[str, Any], Proceed], Awaitable[ToolResult]], inner: CallTool) -> CallTool:
    def call(tool: str, arguments: dict[str, Any]) -> Awaitable[ToolResult]:
        return around(tool, arguments, lambda: inner(tool, arguments))

    return call


def _wrap_send(around: Callable[[Call, Send], Awaitable[Any]], inner: Send) -> Send:
    def send(call: Call, **more: Any) -> Awaitable[Any]:
        return around(call, (lambda call, **extra: inner(call, **more, **extra)) if more else inner)

    return send


def plugged(names: Sequence[str], options: dict[str, Any]) -> list[Mechanism]:
    """The mechanisms ``names`` plug in (each ``module:plug``), taking their options out of ``options``."""
    found = []
    for name in names:
        module, _, function = name.partition(":")
        mechanism = getattr(importlib.import_module(module), function)(options)
        if mechanism is not None:
            found.append(mechanism)
    return found
