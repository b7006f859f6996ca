"""The transport seam: a registry of named transports, each in its own module.

A transport is a function ``open(spec, context)`` that returns an async context manager
yielding ``(read, write)``: the two streams of JSON-RPC messages that the SDK's
``ClientSession`` takes (``receive()`` and ``send()``, the shape of the SDK's memory streams;
stdio's are the pipes themselves, with no task between). It opens whatever carries the frames (a
child process, an event stream, HTTP requests) and closes it when the block ends.

    stdio   harness/transports/stdio.py   a child process, JSON-RPC lines     s23
    sse     harness/transports/sse.py     legacy HTTP+SSE                     s24
    http    harness/transports/http.py    Streamable HTTP, session ids        s25
    http-or-sse  harness/transports/fallback.py  Streamable HTTP, else SSE on a 4xx  (a bare url)

Each transport is registered once, with the words a config file may use for it and its
kind: ``local`` (a command spawned on this machine: it needs ``command``, and waits in the
hub's local pool) or remote (reached at ``url``). Everything else asks the registry:
``check(spec)`` refuses a spec whose transport is unknown or lacks its ``command`` or
``url``, the hub's connect pools ask ``is_local``, config reads a ``type`` with
``by_alias``, and ``harness.connection`` opens what ``lookup`` returns. A lesson (s34's era) or a test adds a transport with ``register``, and edits none
of them::

    register(name, opener, *, aliases=(), local=False)   a name, the words for it, its kind
    lookup(spec) -> opener      names() -> the names      by_alias(word) -> a name or None
    is_local(name) -> bool      check(spec)

The built-in openers below import their module when first called, so that config can
check a name without importing an SDK (each transport module imports one).

``Context`` (``harness.transports.context``) is what the connection lends each session: its timeouts and limits, its auth,
the file stdio's stderr goes to, a way to name session ids as secrets, and (http) the
session watch that notices an expired session. A transport
reports back through it too: ``fault`` says why it ended the session's stream when it
knows better than "connection closed" (a frame over the limit, a dropped event stream),
and ``errors`` holds what an HTTP error looked like (status and body excerpt) for each
request it answered with an error, for the connection to show in that call's error. A
transport that runs a process (stdio) says so with ``process``: ``exit_code()`` and
``stderr_tail()`` then have something to tell, and the connection asks them, never a name.
``trace``, when set, is told what the transport does (a spawn, a GET, a POST's status);
``warn`` takes a warning about the server (stdio: bytes that are not UTF-8), which the
connection names the server in and shows as its other warnings.

    lines   harness/transports/lines.py   stdio's line reader: linear, each line capped
    web     harness/transports/web.py     what sse and http share: bounded bodies, HTTP errors shown

Introduced by s23, one module per transport lesson.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.errors import ConfigError
from harness.spec import ServerSpec

from harness.transports.context import Streams

if TYPE_CHECKING:
    from harness.transports.context import Context

Transport = Callable[[ServerSpec, "Context"], AbstractAsyncContextManager[Streams]]


@dataclass(frozen=True)
class Registered:
    name: str
    opener: Transport
    aliases: tuple[str, ...]
    local: bool


_REGISTRY: dict[str, Registered] = {}


def register(name: str, opener: Transport, *, aliases: tuple[str, ...] = (), local: bool = False) -> None:
    """Make ``name`` a transport (again: the last registration wins). ``local``: spawned from ``command``."""
    _REGISTRY[name] = Registered(name, opener, tuple(aliases), local)


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def by_alias(word: str) -> str | None:
    """The transport a config's word names (its own name, or one of its aliases); None if none does."""
    if word in _REGISTRY:
        return word
    return next((r.name for r in _REGISTRY.values() if word in r.aliases), None)


def is_local(name: str) -> bool:
    """Whether ``name`` spawns its server on this machine (needs ``command``); False for a URL or an unknown name."""
    found = _REGISTRY.get(name)
    return found is not None and found.local


def check(spec: ServerSpec) -> ServerSpec:
    """``spec``, or ``ConfigError`` naming the field: an unknown transport, or a missing ``command`` (local) or ``url``."""
    if spec.transport not in _REGISTRY:
        raise ConfigError(f"server '{spec.name}': field 'transport': expected one of {', '.join(_REGISTRY)}")
    needed = "command" if is_local(spec.transport) else "url"  # a local transport spawns a command
    if not getattr(spec, needed):
        raise ConfigError(f"server '{spec.name}': field '{needed}': required for transport '{spec.transport}'")
    return spec


def lookup(spec: ServerSpec) -> Transport:
    """The opener for ``spec`` (checked first: ``ConfigError`` naming the field)."""
    check(spec)
    return _REGISTRY[spec.transport].opener


# The built-ins: each imports its module (and so its SDK) on its first call, not here.
def _stdio(spec: ServerSpec, context: Context) -> AbstractAsyncContextManager[Streams]:
    from harness.transports.stdio import open_stdio  # each transport loads the SDK: only the kind a server uses

    return open_stdio(spec, context)


def _sse(spec: ServerSpec, context: Context) -> AbstractAsyncContextManager[Streams]:
    from harness.transports.sse import open_sse  # as above

    return open_sse(spec, context)


def _http(spec: ServerSpec, context: Context) -> AbstractAsyncContextManager[Streams]:
    from harness.transports.http import open_http  # as above

    return open_http(spec, context)


def _http_or_sse(spec: ServerSpec, context: Context) -> AbstractAsyncContextManager[Streams]:
    from harness.transports.fallback import open_http_or_sse  # as above

    return open_http_or_sse(spec, context)


register("stdio", _stdio, local=True)
register("sse", _sse)
register("http", _http, aliases=("streamableHttp",))  # Cline's word for it
register("http-or-sse", _http_or_sse)  # a bare url, as Cursor and VS Code read it: Streamable HTTP, else SSE

__all__ = ["Registered", "Streams", "Transport", "by_alias", "check", "is_local", "lookup", "names", "register"]
