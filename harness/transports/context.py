"""What the connection lends one session's transport, and what the transport reports back.

The fields are described in ``harness.transports``. Apart from the registry, so that
``spec`` can ask the registry and the registry need not know a spec.

Introduced by s23.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Protocol

from harness.spec import Limits, Timeouts

if TYPE_CHECKING:
    import httpx2

    from harness.transports.http import SessionWatch
    from harness.wire import Receives, Sends

Streams = tuple["Receives", "Sends"]  # (read, write): the SDK's message streams, of SessionMessage | Exception


class Process(Protocol):
    """A server run as a process, as its transport reports it (stdio)."""

    async def exit_code(self, within: float) -> int | None: ...

    def stderr_tail(self, lines: int) -> list[str]: ...


@dataclass
class Context:
    """What one session's transport may use and report (mutable: the transport fills ``process`` and ``watch``)."""

    timeouts: Timeouts
    limits: Limits
    auth: httpx2.Auth | None = None  # for the URL transports (s26)
    errlog: IO[bytes] | None = None  # a file for the child's stderr (stdio)
    label: Callable[[str, str], None] = lambda secret, kind: None  # (a session id, its kind): a secret to name
    watch: SessionWatch | None = None  # http: the session id and whether it expired
    fault: str | None = None  # set by the transport before it ends the read stream on purpose: why, in a few words
    errors: dict[str | int, str] = field(default_factory=dict)  # JSON-RPC request id -> "HTTP 500: <body excerpt>" (sse, http)
    # Error answers the server itself sent with the code the SDK also uses for a closed
    # connection (-32000, which servers send for "server error"), by message: counted in by
    # harness.guard, taken out by the call that got one, so the two are never confused.
    closed_code_answers: Counter[str] = field(default_factory=Counter)
    process: Process | None = None  # set by a transport that runs the server as a process (stdio)
    warn: Callable[[str], None] = lambda text: None  # a warning about this server, in words (the connection names the server)
    trace: Callable[[str], None] | None = None  # what the transport does, in words, when a lesson shows it (harness.wire)

    async def exit_code(self) -> int | None:
        """The server process's exit code, after giving it ``kill_grace`` to exit; None if there is none, or it runs on."""
        return await self.process.exit_code(self.timeouts.kill_grace) if self.process is not None else None

    def server_sent_closed_code(self, message: str) -> bool:
        """Whether a -32000 with ``message`` was an error answer the server sent (taken out once), not the SDK's "closed"."""
        if self.closed_code_answers[message] <= 0:
            return False
        self.closed_code_answers[message] -= 1
        return True
