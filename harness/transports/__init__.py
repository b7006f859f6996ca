"""The transport seam: a registry of named transports, each in its own module.

A transport is a function ``open(spec, context)`` that returns an async context manager
yielding ``(read, write)``: the two streams of JSON-RPC messages that the SDK's
``ClientSession`` takes (``receive()`` and ``send()``, the shape of the SDK's memory streams;
stdio's are the pipes themselves, with no task between). It opens whatever carries the frames (a
child process, an event stream, HTTP requests) and closes it when the block ends.

    stdio   harness/transports/stdio.py   a child process, JSON-RPC lines     s23
    sse     harness/transports/sse.py     legacy HTTP+SSE                     s24
    http    harness/transports/http.py    Streamable HTTP, session ids        s25
    http-or-sse  harness/transports/fallback.py  Streamable HTTP, else SSE on a 4xx  issue 21 (a bare url)

Each transport is registered once, with the words a config file may use for it and its
kind: ``local`` (a command spawned on this machine: it needs ``command``, and waits in the
hub's local pool) or remote (reached at ``url``). Everything else asks the registry:
``spec`` checks a name with ``names()``, the hub's connect pools ask ``is_local``, config
reads a ``type`` with ``by_alias``, and ``harness.connection`` opens what ``lookup``
returns. A lesson (s34's era) or a test adds a transport with ``register``, and edits none
of them::

    register(name, opener, *, aliases=(), local=False)   a name, the words for it, its kind
    lookup(spec) -> opener      names() -> the names      by_alias(word) -> a name or None
    is_local(name) -> bool

The built-in transports are registered below with the dotted path of their opener, so
that ``spec`` and config can check a name without importing an SDK (each transport module
imports one); the module is imported on its first ``lookup``.

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

Introduced by s23, one module per transport lesson; ``fault``, ``errors`` and ``limits``
by the hardening of issue 8.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from harness.errors import ConfigError

Streams = tuple[Any, Any]  # (read, write) of SessionMessage | Exception
# open(spec, context): a harness.spec.ServerSpec and a harness.transports.context.Context.
# Named loosely here because spec asks this registry: the registry names neither module.
Transport = Callable[[Any, Any], AbstractAsyncContextManager[Streams]]


class _Spec(Protocol):
    name: str
    transport: str


@dataclass(frozen=True)
class Registered:
    name: str
    opener: Transport | str  # the function, or "module:function", imported on first lookup
    aliases: tuple[str, ...]
    local: bool


_REGISTRY: dict[str, Registered] = {}


def register(name: str, opener: Transport | str, *, aliases: tuple[str, ...] = (), local: bool = False) -> None:
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


def lookup(spec: _Spec) -> Transport:
    try:
        found = _REGISTRY[spec.transport]
    except KeyError:
        raise ConfigError(f"server '{spec.name}': field 'transport': no transport named '{spec.transport}'") from None
    if isinstance(found.opener, str):
        module, _, function = found.opener.partition(":")
        opener = getattr(importlib.import_module(module), function)
        _REGISTRY[found.name] = found = Registered(found.name, opener, found.aliases, found.local)
    return found.opener  # type: ignore[return-value]


register("stdio", "harness.transports.stdio:open_stdio", local=True)  # s23
register("sse", "harness.transports.sse:open_sse")  # s24
register("http", "harness.transports.http:open_http", aliases=("streamableHttp",))  # s25: Cline's word for it
register("http-or-sse", "harness.transports.fallback:open_http_or_sse")  # issue 21: a bare url, as Cursor and VS Code read it

__all__ = ["Registered", "Streams", "Transport", "by_alias", "is_local", "lookup", "names", "register"]
