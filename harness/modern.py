"""A 2026-07-28 session's side (s34): what a session of that era needs once ``harness.era`` has opened it.

In the handshake era a server sends its notifications and log messages on the session's
own stream whenever it likes. A 2026-07-28 server has no session stream, so two
mechanisms (``harness.hooks``) do on each 2026-07-28 session what the handshake era got for
free; on a handshake-era session they do nothing:

``AskForLogs`` goes first, before s30's offers are listed:

    on_open          a server that declares logging is sent log messages only for requests
                     that ask (in their ``_meta``): from now on every request asks, at every level

``Modern`` goes after every mechanism that lists at opening (s30's offers):

    on_open          one ``subscriptions/listen`` for the lists whose ``listChanged`` the
                     discover result declares, acknowledged before the session is used, so
                     its frames come in the same order on every run; its events reach every
                     mechanism's ``on_notification`` (the SDK passes them to the message
                     handler), so s30's offers handle a change as in the handshake era; the
                     connection is told they come on the listen stream (``hear_via``)
    alongside        drains that stream, and closes it when the session ends
    around_send      a call refused with -32021 for want of the tasks extension: that tool can
                     only run as a task, which this client does not do; the call fails saying
                     so, and
    on_listed        leaves the tool out from then on, with the note the handshake era gives
                     at connect (2026-07-28 drops ``execution.taskSupport`` from a listing,
                     so a task-only tool is known only by its first call)

``mechanisms()`` gives both, for a caller that builds its own list around s30's offers:
``[AskForLogs(), *others, Modern()]``. The era's handshake (``harness.era``) says the rest:
how the era was found, and that a session up again says "reconnected (server/discover)".

Introduced by s34. Not handled here: a listen stream lost mid-session is not opened again (list changes go
unheard until the next session, with a warning); resource subscriptions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import anyio
import mcp_types as types
from mcp.client.subscriptions import Subscription, SubscriptionLost, listen
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from harness import sdk_compat
from harness.client import Host
from harness.errors import ToolError
from harness.guard import printable
from harness.hooks import Call, Mechanism, Send
from harness.jsonvalue import JSON

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

    from harness.hooks import Sent

LISTEN = "subscriptions/listen"
TASKS = "io.modelcontextprotocol/tasks"  # 2026-07-28's tasks extension (SEP-2663), which this client does not declare
TASK_ONLY = f"it can only run as a task (the server requires the {TASKS} extension), which this client does not do"
UNHEARD = "list changes go unheard until the next session"


def _modern(session: ClientSession) -> bool:
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


class AskForLogs(Mechanism):
    """A 2026-07-28 session of a server that declares logging asks for its log messages in every request."""

    order = 0

    def bind(self, host: Host) -> None:
        self._conn = host

    async def on_open(self, session: ClientSession) -> None:
        if _modern(session) and "logging" in self._conn.capabilities and session.discover_result:
            sdk_compat.ask_for_logs(session, "debug")


class Modern(Mechanism):
    """One connection's 2026-07-28 sessions: the listen stream, and the tools that can only run as tasks."""

    def __init__(self) -> None:
        self._listening: tuple[AsyncExitStack, Subscription] | None = None  # the listen stream on_open opened, until alongside takes it
        self._task_only: set[str] = set()  # tools the server refused to run but as a task (-32021)

    def bind(self, host: Host) -> None:
        self._conn = host

    def _listened(self, session: ClientSession) -> dict[str, bool]:
        """The lists to listen for: those whose listChanged the server declared, in 2026-07-28 only (no stream before)."""
        if not _modern(session):
            return {}  # the handshake era: list_changed notifications come on the session's own stream
        declared = self._conn.capabilities
        return {f"{kind}_list_changed": True for kind in ("tools", "resources", "prompts")
                if isinstance(declared.get(kind), Mapping) and declared[kind].get("listChanged")}

    async def on_open(self, session: ClientSession) -> None:
        """Open one ``subscriptions/listen`` for this session's life, acknowledged before the session is used."""
        if not (wanted := self._listened(session)):
            return
        conn = self._conn
        conn.hear_via(session, LISTEN)
        conn.begin(LISTEN)
        stream = AsyncExitStack()
        try:
            with anyio.fail_after(conn.timeouts.list):
                events = await stream.enter_async_context(listen(session, **wanted))
        except (MCPError, SubscriptionLost, TimeoutError) as exc:
            await stream.aclose()
            said = f"error {exc.code}: {printable(exc.message, 120)}" if isinstance(exc, MCPError) else \
                f"no acknowledgment within {conn.timeouts.list:g} s" if isinstance(exc, TimeoutError) else printable(str(exc), 120)
            conn.say("warning", f"{conn.name}: {LISTEN}: {said}; {UNHEARD}")
            return
        self._listening = (stream, events)

    async def alongside(self, session: ClientSession) -> None:
        listening, self._listening = self._listening, None
        if listening is None:
            return
        stream, events = listening
        try:
            try:
                async for _ in events:
                    pass
            except SubscriptionLost as exc:
                self._conn.say("warning", f"{self._conn.name}: {LISTEN}: {printable(str(exc), 120)}; {UNHEARD}")
            await anyio.sleep_forever()  # the stream is closed when the session ends, not before
        finally:
            with anyio.CancelScope(shield=True):
                await stream.aclose()

    async def around_send(self, call: Call, proceed: Send) -> Sent:
        try:
            return await proceed(call)
        except MCPError as exc:
            if call.method != "tools/call" or not _needs_tasks(exc):
                raise
            self._task_only.add(call.tool)
            with contextlib.suppress(Exception):  # the next listing leaves it out (listed); a failed one keeps the old list
                await self._conn.relist_tools(call.session)
            raise ToolError(f"{call.where}: {TASK_ONLY}; it is left out from now on") from None

    def on_listed(self, tools: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
        if not self._task_only:
            return tools
        for tool in (t for t in tools if t.get("name") in self._task_only):
            self._conn.say("note", f"{self._conn.name}: tool '{printable(tool['name'], 80)}' left out: {TASK_ONLY}")
        return [t for t in tools if t.get("name") not in self._task_only]


def _needs_tasks(exc: MCPError) -> bool:
    """-32021 naming the tasks extension as the capability the call lacks."""
    if exc.code != types.MISSING_REQUIRED_CLIENT_CAPABILITY or not isinstance(exc.data, dict):
        return False
    required = exc.data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, dict) else None
    return isinstance(extensions, dict) and TASKS in extensions



def mechanisms() -> tuple[AskForLogs, Modern]:
    """A 2026-07-28 connection's two: ``AskForLogs`` to put first, ``Modern`` after the mechanisms that list at opening."""
    return AskForLogs(), Modern()
