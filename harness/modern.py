"""A 2026-07-28 session's side (s34): what a session of that era needs once ``harness.era`` has opened it.

In the handshake era a server sends its notifications and log messages on the session's
own stream whenever it likes. A 2026-07-28 server has no session stream, so ``Modern``, a
``harness.hooks.Mechanism``, does on each 2026-07-28 session what the handshake era got
for free (on a handshake-era session it does nothing):

    opened     a server that declares logging is sent log messages only for requests that
               ask (in their ``_meta``): from now on every request asks, at every level
    ready      one ``subscriptions/listen`` for the lists whose ``listChanged`` the discover
               result declares, acknowledged before the session is used, so its frames come
               in the same order on every run; its events reach every mechanism's
               ``notified`` (the SDK passes them to the message handler), so s30's
               offers handle a change as in the handshake era
    beside     drains that stream, and closes it when the session ends
    heard_on   "subscriptions/listen", which s30's note of a list change names
    answered   a result without ``resultType`` gets "complete", which its absence means,
               though the SDK's schema requires it (the handshake era's results lose the
               field again in the SDK)
    send       a call refused with -32021 for want of the tasks extension: that tool can only
               run as a task, which this client does not do; the call fails saying so, and
    listed     leaves the tool out from then on, with the note the handshake era gives at
               connect (2026-07-28 drops ``execution.taskSupport`` from a listing, so a
               task-only tool is known only by its first call)
    up         a session up again after a loss says "reconnected (server/discover)" in its
               state line, not the handshake era's "session established": there is no session

``harness.era.mechanisms()`` puts ``PLUG`` first, before s30's offers: its ``opened`` must
ask for log messages before the offers are listed; its ``ready`` runs after them. The stack's
``eras`` part plugs it for every server; a caller that opens connections itself passes
``mechanisms=era.mechanisms()`` beside ``handshake=era.handshake(...)``.

Introduced by s34. Not handled here: a listen stream lost mid-session is not opened again
(list changes go unheard until the next session, with a warning); resource subscriptions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
from mcp.shared.exceptions import MCPError

from harness.errors import ToolError
from harness.guard import printable
from harness.hooks import Call, Mechanism, Send

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

LISTEN = "subscriptions/listen"
TASKS = "io.modelcontextprotocol/tasks"  # 2026-07-28's tasks extension (SEP-2663), which this client does not declare
TASK_ONLY = f"it can only run as a task (the server requires the {TASKS} extension), which this client does not do"
UNHEARD = "list changes go unheard until the next session"


def _modern(session: ClientSession) -> bool:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


class Modern(Mechanism):
    """One connection's 2026-07-28 sessions: log messages asked for, the listen stream, ``resultType``."""

    def __init__(self) -> None:
        self._listening: Any = None  # the listen stream ready opened, until beside takes it
        self._task_only: set[str] = set()  # tools the server refused to run but as a task (-32021)

    def bind(self, conn: Any) -> None:
        self._conn = conn

    async def opened(self, session: ClientSession) -> None:
        if _modern(session) and "logging" in self._conn.capabilities and session.discover_result:
            # Hazard: the SDK takes the level only when the session is made, before anyone knows
            # whether the server logs; set it, then stamp the requests again (adopt) with it.
            session._log_level = "debug"
            session.adopt(session.discover_result)

    def _listened(self, session: ClientSession) -> dict[str, bool]:
        """The lists to listen for: those whose listChanged the server declared, in 2026-07-28 only (no stream before)."""
        if not _modern(session):
            return {}  # the handshake era: list_changed notifications come on the session's own stream
        declared = self._conn.capabilities
        return {f"{kind}_list_changed": True for kind in ("tools", "resources", "prompts")
                if isinstance(declared.get(kind), Mapping) and declared[kind].get("listChanged")}

    async def ready(self, session: ClientSession) -> None:
        """Open one ``subscriptions/listen`` for this session's life, acknowledged before the session is used."""
        from contextlib import AsyncExitStack

        from mcp.client.subscriptions import SubscriptionLost, listen

        if not (wanted := self._listened(session)):
            return
        conn = self._conn
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

    async def beside(self, session: ClientSession) -> None:
        from mcp.client.subscriptions import SubscriptionLost

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

    def heard_on(self, session: ClientSession) -> str | None:
        return LISTEN if self._listened(session) else None

    async def send(self, call: Call, proceed: Send) -> Any:
        try:
            return await proceed(call)
        except MCPError as exc:
            if not _needs_tasks(exc):
                raise
            self._task_only.add(call.tool)
            with contextlib.suppress(Exception):  # the next listing leaves it out (listed); a failed one keeps the old list
                await self._conn.relist_tools(call.session)
            raise ToolError(f"{call.where}: {TASK_ONLY}; it is left out from now on") from None

    def listed(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not self._task_only:
            return tools
        for tool in (t for t in tools if t.get("name") in self._task_only):
            self._conn.say("note", f"{self._conn.name}: tool '{printable(tool['name'], 80)}' left out: {TASK_ONLY}")
        return [t for t in tools if t.get("name") not in self._task_only]

    def up(self, session: ClientSession) -> str | None:
        return "reconnected (server/discover)" if _modern(session) else None  # there is no session to establish

    def answered(self, result: dict[str, Any]) -> None:
        if "resultType" not in result:
            result["resultType"] = "complete"  # 2026-07-28: "absent resultType is equivalent to complete"


def _needs_tasks(exc: MCPError) -> bool:
    """-32021 naming the tasks extension as the capability the call lacks."""
    import mcp_types as types

    if exc.code != types.MISSING_REQUIRED_CLIENT_CAPABILITY or not isinstance(exc.data, dict):
        return False
    required = exc.data.get("requiredCapabilities")
    extensions = required.get("extensions") if isinstance(required, dict) else None
    return isinstance(extensions, dict) and TASKS in extensions


def plug(options: dict[str, Any]) -> Modern:
    return Modern()
