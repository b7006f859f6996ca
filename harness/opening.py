"""Opening one session: the transport's streams, the tap and the guard, ``ClientSession``, the handshake.

``Opener.session(owner)`` is what a connection's owner task enters for each session: it
opens the transport for the owner's current spec, taps and guards the two streams, makes
the ``ClientSession`` with the callbacks the mechanisms add (``Mechanism.session_options``),
and runs the handshake. A ``Handshake`` is the era's opening: ``initialize``
(``harness.connection.classic_handshake``), ``server/discover``, or a negotiation of the two
(``harness.era``); it may return an ``Opening`` that says how it went. Once it succeeds,
the owner knows what the server declared (``capabilities``, ``protocol``) and the session
id is a secret in every output; the caller's ``listed`` step (tools/list, then each
mechanism's ``on_open``) follows before the session is published.

A handshake of more than one step raises ``InPhase`` to name the step that failed.

Introduced by s23. Not handled here: what each transport does (``harness.transports``), judging a failure
(``harness.sessions.explain``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.client.session import ClientSession, IncomingMessage

from harness.guard import guard
from harness.hooks import Mechanism
from harness.transports.context import Context

if TYPE_CHECKING:
    import httpx2

    from harness import transports
    from harness.sessions import SessionOwner
    from harness.spec import Timeouts
    from harness.wire import WireTap

CLIENT_INFO = types.Implementation(name="mcp-course-harness", version="0.1.0")


@dataclass(frozen=True)
class Opening:
    """How a handshake went: a transcript note (s34: how the era was negotiated), and the state line
    of a session up again, when the era says more than "session established"."""

    note: str | None = None
    state: str | None = None


# Opens a session: done, or raises. Its Opening (or None) says what there is to say beyond "connected".
Handshake = Callable[[ClientSession, "Timeouts"], Awaitable["Opening | None"]]


class InPhase(Exception):
    """A handshake of more than one step (s34: ``server/discover``, then ``initialize``) failed in ``phase``.

    The connection names that step in its error, then judges ``error`` as if that step had raised it.
    """

    def __init__(self, phase: str, error: BaseException) -> None:
        super().__init__(phase)
        self.phase, self.error = phase, error


class Opener:
    """How one connection opens each of its sessions."""

    def __init__(self, transport: transports.Transport, *, tap: WireTap | None, auth: httpx2.Auth | None, handshake: Handshake,
                 mechanisms: Sequence[Mechanism], on_message: Callable[[IncomingMessage], Awaitable[None]],
                 listed: Callable[[ClientSession], Awaitable[None]]) -> None:
        self._transport, self._tap, self._auth, self._handshake = transport, tap, auth, handshake
        self._options: dict[str, Any] = {  # ClientSession's keywords: the SDK types each
            "client_info": CLIENT_INFO, "message_handler": on_message}
        for mechanism in mechanisms:
            self._options.update(mechanism.session_options())
        self._listed = listed
        self.said: Opening | None = None  # what the last handshake said

    @asynccontextmanager
    async def session(self, owner: SessionOwner) -> AsyncIterator[ClientSession]:
        """Transport, tapped and guarded streams, ClientSession, handshake, listing; closed in reverse when the block ends."""
        spec = owner.spec
        owner.begin("connect")

        def warn(text: str) -> None:
            owner.say("warning", f"{owner.name}: {text}")

        owner.context = context = Context(owner.timeouts, owner.limits, auth=self._auth, errlog=owner.errlog, label=owner.label,
                                          trace=self._tap.trace(spec.name) if self._tap is not None else None, warn=warn)
        if self._tap is not None:
            self._tap.new_session(spec.name)
        async with self._transport(spec, context) as (read, write):
            if self._tap is not None:
                read, write = self._tap.tap(spec.name, read, write)
            read, write = guard(read, write, errors=context.errors, warn=warn, closed_code=context.closed_code_answers)
            async with ClientSession(read, write, **self._options) as session:
                await self._open(owner, session)
                yield session

    async def _open(self, owner: SessionOwner, session: ClientSession) -> None:
        owner.begin("initialize")
        try:
            self.said = await self._handshake(session, owner.timeouts)
        except InPhase as exc:
            owner.begin(exc.phase)  # the step that ran, so the error names it
            raise exc.error from None
        offered = session.server_capabilities  # from initialize, or from server/discover (s34)
        owner.capabilities = offered.model_dump(by_alias=True, mode="json", exclude_none=True) if offered else {}
        owner.protocol = session.protocol_version
        if self.said is not None and self.said.note:
            owner.say("note", f"{owner.name}: {self.said.note}")
        watch = owner.context.watch if owner.context else None
        if watch is not None and watch.session_id:
            owner.label(watch.session_id, "session")
        owner.begin("tools/list")
        await self._listed(session)

