"""The server-bounded response cache: a 2026-07-28 result reused for as long as its server says.

A 2026-07-28 server puts two caching hints on every answer to a cacheable request
(``tools/list``, ``resources/list``, ``resources/templates/list``, ``prompts/list``,
``resources/read``): ``ttlMs``, how many milliseconds the client may reuse it, and
``cacheScope``, whether it may be shared across authorization contexts (``public``) or
not (``private``). ``ResponseCache`` is a ``hooks.Mechanism`` on the connection's
``around_request`` hook. It does not cache by itself: it hands each request to the SDK's own
``ClientResponseCache`` over an ``InMemoryResponseCacheStore`` (``mcp.client.caching``, as
``mcp.Client`` uses them), which

    serves a fresh entry, a deep copy, without a request        (``read``)
    stores an answer for its ``ttlMs`` (capped at 24 h) in its ``cacheScope``'s arm  (``write``)
    counts the hints only when the session speaks 2026-07-28    (a handshake-era server's ttlMs is ignored)
    treats ``ttlMs: 0``, or no hint, as "do not keep"           (no default TTL here)
    turns a failing store into a miss, never a failed request
    keeps at most ``ENTRIES`` answers, dropping the least recently used (the store's cap)

What this module adds is when entries end. A ``list_changed`` (or ``resources/updated``)
notification, which in 2026-07-28 comes on the ``subscriptions/listen`` stream and reaches
``on_notification`` the same way, evicts the entries it makes stale: that hook runs in the
SDK's callback and must not wait, so it records the notification, and the eviction is
done before the next read, and before an answer that was on its way is stored (so it is
not). A new session starts with an empty store: between sessions nobody heard the
server's notifications, so nothing kept from before can be trusted (``mcp.Client`` gets
the same by building a new store per client).

A served request says so once in the transcript, as a note in place of the frames it did
not send (``note: handbook: resources/read handbook://pages/faq served from cache (ttlMs
60000)``); with ``--wire`` the request is simply missing. A failing store is said once per
connection as a warning, and the SDK's own log line about it (with a traceback) is dropped.

``Settings`` are what ``ResponseCache(settings)`` takes: the clock (epoch seconds, as
the SDK's; tests pass a fake one and never sleep), a factory for each session's store, and
``partition``, which the SDK's ``CacheConfig`` says to derive from a verified credential:
``partition(authorizer)`` hashes the access token the session signs in with (s26), and is
"" for a server without OAuth. The composition root plugs it in as its part ``Cache``.

Introduced by s34. Not handled here: a store shared between connections or kept between
runs (the in-memory store lives as long as one session, so ``public`` entries are never
served to anyone else and ``share_public`` stays off), a default TTL for results with no
hint, a per-request ``cache_mode`` (``refresh``/``bypass``), and caching
``input_required`` rounds (never cached, as the spec says; the harness does not read
resources through rounds).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from mcp.client.caching import ClientResponseCache, InMemoryResponseCacheStore
from mcp_types import (CacheableResult, PromptListChangedNotification, ResourceListChangedNotification,
                       ResourceUpdatedNotification, ToolListChangedNotification)

from harness import sdk_compat
from harness.client import Host
from harness.echo import line as printable
from harness.hooks import Mechanism, Request

if TYPE_CHECKING:
    from mcp.client.caching import CacheEntry, CacheKey, ResponseCacheStore
    from mcp.client.session import ClientSession
    from mcp_types import Result, ServerNotification

T = TypeVar("T")
ENTRIES = 256  # answers kept per session at most, the least recently used dropped first: a server's big answers stay bounded


def _nobody() -> str:
    return ""


@dataclass(frozen=True)
class Settings:
    """How a connection's cache runs: ``ResponseCache(Settings(...))``."""

    clock: Callable[[], float] = time.time  # epoch seconds, as the SDK's CacheConfig.clock
    store: Callable[[], ResponseCacheStore] | None = None  # a new ResponseCacheStore per session; None: the SDK's in-memory one
    partition: Callable[[], str] = field(default=_nobody)  # the session's authorization identity, read when it opens


def partition(authorizer: object | None) -> Callable[[], str]:
    """The partition for a server behind ``authorizer`` (``harness.auth.Authorizer``, or None): a hash of the
    access token its session opens with, "" before a sign-in or without OAuth. The token itself is kept nowhere."""
    if authorizer is None:
        return _nobody

    def current() -> str:
        provider = getattr(authorizer, "provider", None)
        tokens = provider.context.current_tokens if provider is not None else None
        if tokens is None or not tokens.access_token:
            return ""
        return hashlib.sha256(tokens.access_token.encode()).hexdigest()

    return current


class ResponseCache(Mechanism):
    """One connection's cache: the SDK's ``ClientResponseCache``, a new one for each session."""

    order = 60

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.hits = 0  # requests served without being sent, over the connection's life
        self._session: ClientSession | None = None  # the session the cache below belongs to
        self._cache: ClientResponseCache | None = None
        self._heard: list[ServerNotification] = []  # notifications that make entries stale, not yet applied
        self._failed = False  # the store failed once: said once

    def bind(self, host: Host) -> None:
        self._conn = host

    def on_notification(self, message: object) -> None:
        if isinstance(message, (ToolListChangedNotification, PromptListChangedNotification, ResourceListChangedNotification,
                                ResourceUpdatedNotification)):
            self._heard.append(message)  # evicted before the next read or store: a callback must not wait

    async def around_request(self, session: ClientSession, method: str, key: str, request: Request) -> Result:
        cache = self._for(session)
        await self._evict(cache)
        if (hit := await cache.read(method, key)) is not None:
            if method == "tools/list":
                hit = sdk_compat.absorb_tool_listing(session, hit)  # the session's per-tool state, rebuilt from the list
            self.hits += 1
            what = f"{method} {printable(key, 80)}" if key else method
            self._conn.say("note", f"{self._conn.name}: {what} served from cache (ttlMs {hit.ttl_ms})")
            return hit
        generation = cache.capture(method, key)
        result = await request()
        await self._evict(cache)  # a change heard while the request was out: the answer is not stored
        if isinstance(result, CacheableResult):
            await cache.write(method, key, result, generation, "use")
        return result

    def _for(self, session: ClientSession) -> ClientResponseCache:
        """The cache of ``session``: a new, empty one when the session is new (what was heard before is moot)."""
        if session is not self._session:
            _quiet_sdk()
            settings = self.settings
            store = settings.store() if settings.store is not None else InMemoryResponseCacheStore(max_entries=ENTRIES)
            self._session, self._heard = session, []
            self._cache = ClientResponseCache(
                store=_Reported(store, self._store_failed), partition=settings.partition(),
                arm_id=hashlib.sha256(self._conn.name.encode()).hexdigest(), default_ttl_ms=0, clock=settings.clock,
                share_public=False, negotiated_version=lambda: session.protocol_version)
        return self._cache

    async def _evict(self, cache: ClientResponseCache) -> None:
        heard, self._heard = self._heard, []
        for notification in heard:
            await cache.evict_for_notification(notification)

    def _store_failed(self, operation: str, exc: BaseException) -> None:
        if not self._failed:
            self._failed = True
            self._conn.say("warning", f"{self._conn.name}: response cache: the store's {operation} failed "
                                      f"({type(exc).__name__}); answers are fetched from the server instead")


class _Reported:
    """A store that tells ``failed`` of each failing operation, then raises on, so the SDK degrades to a miss."""

    def __init__(self, inner: ResponseCacheStore, failed: Callable[[str, BaseException], None]) -> None:
        self._inner, self._failed = inner, failed

    async def get(self, key: CacheKey) -> CacheEntry | None:
        return await self._do("get", self._inner.get, key)

    async def set(self, key: CacheKey, entry: CacheEntry) -> None:
        await self._do("set", self._inner.set, key, entry)

    async def delete(self, key: CacheKey) -> None:
        await self._do("delete", self._inner.delete, key)

    async def clear(self) -> None:
        await self._do("clear", self._inner.clear)

    async def _do(self, operation: str, act: Callable[..., Awaitable[T]], *args: CacheKey | CacheEntry) -> T:
        try:
            return await act(*args)
        except Exception as exc:
            self._failed(operation, exc)
            raise


class _QuietStoreFailures(logging.Filter):
    """Drops the SDK's "continuing without the cache" records (with a traceback, on stderr by logging's last
    resort): ``ResponseCache`` says it once, in one line, in the transcript and the CLI's warnings."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Response cache store")


def _quiet_sdk() -> None:
    sdk = logging.getLogger("mcp.client.caching")
    if not any(isinstance(f, _QuietStoreFailures) for f in sdk.filters):  # once per process
        sdk.addFilter(_QuietStoreFailures())

