"""The transport seam: a registry of named transports, each in its own module.

A transport is a function ``open(spec, context)`` that returns an async context manager
yielding ``(read, write)``: the two memory streams of JSON-RPC messages that the SDK's
``ClientSession`` takes (the SDK's own shape). It opens whatever carries the frames (a
child process, an event stream, HTTP requests) and closes it when the block ends.

    stdio   harness/transports/stdio.py   a child process, JSON-RPC lines     s23
    sse     harness/transports/sse.py     legacy HTTP+SSE                     s24
    http    harness/transports/http.py    Streamable HTTP, session ids        s25

``harness.connection`` looks a spec's transport up here and knows nothing else about it.
A lesson adds a transport with ``register``, without editing the connection.

``Context`` is what the connection lends each session: its timeouts and limits, its auth,
the file stdio's stderr goes to, where to put the child process, a way to name session ids
as secrets, and (http) the session watch that notices an expired session. A transport
reports back through it too: ``fault`` says why it ended the session's stream when it
knows better than "connection closed" (a frame over the limit, a dropped event stream),
and ``errors`` holds what an HTTP error looked like (status and body excerpt) for each
request it answered with an error, for the connection to show in that call's error.
``trace``, when set, is told what the transport does (a spawn, a GET, a POST's status).

    lines   harness/transports/lines.py   stdio's line reader: linear, each line capped
    web     harness/transports/web.py     what sse and http share: bounded bodies, HTTP errors shown

Introduced by s23, one module per transport lesson; ``fault``, ``errors`` and ``limits``
by the hardening of issue 8.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from harness.errors import ConfigError
from harness.spec import Limits, ServerSpec, Timeouts

Streams = tuple[Any, Any]  # (read, write) of SessionMessage | Exception
Transport = Callable[[ServerSpec, "Context"], AbstractAsyncContextManager[Streams]]


@dataclass
class Context:
    """What one session's transport may use and report (mutable: the transport fills ``child`` and ``watch``)."""

    timeouts: Timeouts
    limits: Limits = field(default_factory=Limits)
    auth: Any = None  # an httpx2.Auth for the URL transports (s26)
    errlog: Any = None  # a file for the child's stderr (stdio)
    label: Callable[[str, str], None] = lambda secret, kind: None  # (a session id, its kind): a secret to name
    child: list[Any] = field(default_factory=list)  # stdio: the process of this session
    watch: Any = None  # http: an object with .session_id and .expired (harness.transports.http.SessionWatch)
    fault: str | None = None  # set by the transport before it ends the read stream on purpose: why, in a few words
    errors: dict[Any, str] = field(default_factory=dict)  # JSON-RPC request id -> "HTTP 500: <body excerpt>" (sse, http)
    trace: Callable[[str], None] | None = None  # what the transport does, in words, when a lesson shows it (harness.wire)


_REGISTRY: dict[str, Transport] = {}


def register(name: str, transport: Transport) -> None:
    _REGISTRY[name] = transport


def lookup(spec: ServerSpec) -> Transport:
    try:
        return _REGISTRY[spec.transport]
    except KeyError:
        raise ConfigError(f"server '{spec.name}': field 'transport': no transport named '{spec.transport}'") from None


from harness.transports import http, sse, stdio  # noqa: E402  (each registers itself)

__all__ = ["Context", "Streams", "Transport", "http", "lookup", "register", "sse", "stdio"]
