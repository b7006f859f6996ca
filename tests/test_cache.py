"""s34's response cache (harness/cache.py): the SDK's cache on the connection's ``fetched`` hook.

First on a stub session with a fake clock (what is served, stored, evicted, and when), then
against the course's handbook over stdio with ``--cache-ttl``, counting the requests at the
wire tap: a hit sends nothing, a list change and a new session each end what was kept, and
a handshake-era session never caches.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass

import anyio
import mcp_types as types
import pytest

from harness import cache, era, hooks
from harness.connection import Connections
from harness.spec import ServerSpec
from harness import stack
from harness.stack import Cache, upto
from harness.transcript import Transcript
from harness.wire import WireTap
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

MODERN, HANDSHAKE = "2026-07-28", "2025-11-25"
URI = "handbook://pages/onboarding"


@dataclass
class Clock:
    now: float = 1_000_000.0  # epoch seconds, moved by hand

    def __call__(self) -> float:
        return self.now


class Conn:
    """What the mechanism uses of its connection: a name, and ``say``."""

    def __init__(self) -> None:
        self.name = "handbook"
        self.said: list[tuple[str, str]] = []

    def say(self, kind: str, text: str) -> None:
        self.said.append((kind, text))


class Session:
    """A ClientSession as far as the cache sees it: the era it speaks, and tools/list's absorption."""

    def __init__(self, protocol: str = MODERN) -> None:
        self.protocol_version = protocol
        self.absorbed = 0

    def _absorb_tool_listing(self, result, *, complete):
        self.absorbed += 1
        return result


def read_result(text="v1", **hints):
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=URI, text=text)], **hints)


def tools_result(*names, **hints):
    return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"}) for n in names], **hints)


class Server:
    """Answers each request with the next value, counting them."""

    def __init__(self, *answers) -> None:
        self.answers, self.sent = list(answers), 0

    async def __call__(self):
        self.sent += 1
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def made(**settings):
    mechanism = cache.ResponseCache(cache.Settings(**settings))
    conn = Conn()
    mechanism.bind(conn)
    return mechanism, conn


def fetch(mechanism, session, server, times=1, method="resources/read", key=URI):
    async def main():
        return [await mechanism.around_request(session, method, key, server) for _ in range(times)]

    return anyio.run(main)


def test_a_fresh_answer_is_served_without_a_request_and_said_once():
    clock = Clock()
    mechanism, conn = made(clock=clock)
    server = Server(read_result(ttl_ms=60_000))
    results = fetch(mechanism, Session(), server, times=3)
    assert server.sent == 1, f"expected one request for three reads within ttlMs, got {server.sent}"
    assert [r.contents[0].text for r in results] == ["v1"] * 3
    assert conn.said == [("note", f"handbook: resources/read {URI} served from cache (ttlMs 60000)")] * 2
    assert results[1] is not results[2], "expected each hit to be its own copy"


def test_after_the_ttl_the_answer_is_fetched_again():
    clock = Clock()
    mechanism, _ = made(clock=clock)
    server = Server(read_result("v1", ttl_ms=1_000), read_result("v2", ttl_ms=1_000))
    session = Session()
    fetch(mechanism, session, server)
    clock.now += 0.999
    assert fetch(mechanism, session, server)[0].contents[0].text == "v1"
    clock.now += 0.001
    assert fetch(mechanism, session, server)[0].contents[0].text == "v2"
    assert server.sent == 2, f"expected a second request once ttlMs ran out, got {server.sent} requests"


@pytest.mark.parametrize("hints", [{"ttl_ms": 0}, {}], ids=["ttlMs-0", "no-ttlMs"])
def test_ttl_zero_or_missing_is_not_kept(hints):
    mechanism, conn = made(clock=Clock())
    server = Server(types.ReadResourceResult.model_validate(
        {"contents": [{"uri": URI, "text": "v1"}], **({"ttlMs": hints["ttl_ms"]} if hints else {})}))
    fetch(mechanism, Session(), server, times=2)
    assert server.sent == 2, f"expected every read sent with {hints or 'no hint'}, got {server.sent} requests"
    assert conn.said == []


def test_the_handshake_era_never_caches_even_when_the_server_sends_ttl():
    mechanism, conn = made(clock=Clock())
    server = Server(read_result(ttl_ms=60_000, cache_scope="public"))
    fetch(mechanism, Session(HANDSHAKE), server, times=2)
    assert server.sent == 2, "expected hints to count only in 2026-07-28 (the SDK's era gate)"
    assert conn.said == []


@pytest.mark.parametrize(("notification", "evicted", "kept"), [
    (types.ToolListChangedNotification(), {"tools/list"}, {"prompts/list", "resources/list", "resources/templates/list"}),
    (types.ResourceListChangedNotification(), {"resources/list", "resources/templates/list"}, {"tools/list", "prompts/list"}),
    (types.PromptListChangedNotification(), {"prompts/list"}, {"tools/list", "resources/list"}),
], ids=["tools", "resources", "prompts"])
def test_a_list_changed_evicts_the_lists_it_names(notification, evicted, kept):
    mechanism, _ = made(clock=Clock())
    session = Session()
    servers = {m: Server(tools_result("a", ttl_ms=60_000)) for m in evicted | kept}
    for method, server in servers.items():
        fetch(mechanism, session, server, method=method, key="")
    mechanism.on_notification(notification)  # as the SDK's callback calls it: it records, the next fetch evicts
    for method, server in servers.items():
        fetch(mechanism, session, server, method=method, key="")
    sent = {m for m, s in servers.items() if s.sent == 2}
    assert sent == evicted, f"expected {sorted(evicted)} fetched again after {notification.method}, got {sorted(sent)}"


def test_resources_updated_evicts_that_uri_only():
    mechanism, _ = made(clock=Clock())
    session = Session()
    one, other = Server(read_result(ttl_ms=60_000)), Server(read_result(ttl_ms=60_000))
    fetch(mechanism, session, one, key=URI)
    fetch(mechanism, session, other, key="handbook://pages/style")
    mechanism.on_notification(types.ResourceUpdatedNotification(params=types.ResourceUpdatedNotificationParams(uri=URI)))
    fetch(mechanism, session, one, key=URI)
    fetch(mechanism, session, other, key="handbook://pages/style")
    assert (one.sent, other.sent) == (2, 1)


def test_an_answer_in_flight_when_its_list_changes_is_not_kept():
    mechanism, _ = made(clock=Clock())
    session = Session()

    async def changing():
        mechanism.on_notification(types.ToolListChangedNotification())  # heard while the request was out
        return tools_result("old", ttl_ms=60_000)

    fetch(mechanism, session, changing, method="tools/list", key="")
    server = Server(tools_result("new", ttl_ms=60_000))
    assert fetch(mechanism, session, server, method="tools/list", key="")[0].tools[0].name == "new"
    assert server.sent == 1, "expected the list answered before its change not to be served"


def test_a_tools_list_hit_is_absorbed_by_the_session():
    mechanism, _ = made(clock=Clock())
    session = Session()
    fetch(mechanism, session, Server(tools_result("a", ttl_ms=60_000)), times=2, method="tools/list", key="")
    assert session.absorbed == 1, "expected the served list handed to the session, as mcp.Client does on a hit"


def test_a_new_session_starts_empty():
    mechanism, _ = made(clock=Clock())
    server = Server(read_result(ttl_ms=60_000))
    fetch(mechanism, Session(), server)
    fetch(mechanism, Session(), server)
    assert server.sent == 2, "expected nothing kept from an earlier session (its notifications went unheard in between)"


def test_scopes_and_partitions_in_a_shared_store():
    """A private answer is never served to another partition; with share_public off a public one is not either."""
    from mcp.client.caching import InMemoryResponseCacheStore

    for scope in ("private", "public"):
        shared = InMemoryResponseCacheStore()
        alice, _ = made(clock=Clock(), store=lambda: shared, partition=lambda: "alice")
        bob, _ = made(clock=Clock(), store=lambda: shared, partition=lambda: "bob")
        alice_again, _ = made(clock=Clock(), store=lambda: shared, partition=lambda: "alice")
        server = Server(read_result(ttl_ms=60_000, cache_scope=scope))
        fetch(alice, Session(), server)
        fetch(bob, Session(), server)
        assert server.sent == 2, f"expected a {scope} answer not served across partitions"
        fetch(alice_again, Session(), server)
        assert server.sent == 2, f"expected a {scope} answer served within its partition"


def test_the_partition_is_a_hash_of_the_signed_in_token():
    class Tokens:
        access_token = "secret-token"

    class Context:
        current_tokens = None

    class Provider:
        context = Context()

    class Authorizer:
        provider = Provider()

    current = cache.partition(Authorizer())
    assert current() == "", "expected no partition before a sign-in"
    Context.current_tokens = Tokens()
    assert current() and "secret-token" not in current()
    assert cache.partition(None)() == ""


class Broken:
    async def get(self, key):
        raise OSError("disk gone")

    async def set(self, key, entry):
        raise OSError("disk gone")

    async def delete(self, key):
        raise OSError("disk gone")

    async def clear(self):
        raise OSError("disk gone")


def test_a_broken_store_degrades_to_a_miss_said_once(caplog):
    mechanism, conn = made(clock=Clock(), store=Broken, partition=lambda: "p")
    server = Server(read_result(ttl_ms=60_000))
    with caplog.at_level(logging.WARNING, logger="mcp.client.caching"):
        results = fetch(mechanism, Session(), server, times=3)
    assert server.sent == 3 and all(r.contents[0].text == "v1" for r in results)
    assert conn.said == [("warning", "handbook: response cache: the store's get failed (OSError); "
                                     "answers are fetched from the server instead")]
    assert not [r for r in caplog.records if r.name == "mcp.client.caching"], "expected the SDK's traceback line dropped"


def test_the_hook_chain_is_free_without_a_cache_and_the_stack_part_is_s34s():
    plain = [hooks.Mechanism()]
    assert hooks.fetches(plain) is hooks._request, "expected no wrapper when no mechanism overrides around_request"
    kinds = [type(p) for p in upto()]
    assert Cache in kinds and Cache not in [type(p) for p in upto(without=(Cache,))]
    assert Cache not in [type(p) for p in upto("s33")]


# --- the handbook over stdio, counting requests at the wire tap ---------------------------------


def handbook(*flags):
    return ServerSpec("handbook", "stdio", sys.executable, ("-m", "mock_servers.handbook", "--transport", "stdio", *flags))


async def opened(conns, sent, protocol, *flags, clock=None):
    def count(server, direction, message):
        if direction == "send" and "method" in message:
            sent.append(message["method"])

    mechanisms = [*stack.mechanisms(eras=True), cache.ResponseCache(cache.Settings(clock=clock or Clock()))]
    return await conns.open(handbook(*flags), tap=WireTap(count), timeouts=TIMEOUTS, handshake=era.handshake(protocol),
                            mechanisms=sorted(mechanisms, key=lambda m: m.order))


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_the_handbook_in_2026_a_second_read_sends_nothing_and_a_change_ends_the_list():
    said = Transcript()
    clock = Clock()

    async def main():
        sent: list[str] = []
        async with Connections(said) as conns:
            conn = await opened(conns, sent, MODERN, "--cache-ttl", "60000", clock=clock)
            start = len(sent)
            await conn.read_resource(URI)
            await conn.read_resource(URI)
            await conn.list_resources()  # listed at connect: served
            reads = sent[start:]
            before = len(sent)
            await conn.call_tool("publish_page", {"title": "faq", "text": "x"})  # changes the lists: listen events
            changed = [m for m in sent[before:] if m.endswith("/list")]  # the refresher's, before the call returns
            after = len(sent)
            listed = await conn.list_resources()  # the list fetched after the change is the fresh entry
            served = sent[after:]
            clock.now += 60
            await conn.read_resource(URI)
            return reads, changed, served, sent[after + len(served):], [r["uri"] for r in listed]

    reads, changed, served, expired, uris = anyio.run(main)
    assert reads == ["resources/read"], f"expected one read sent, the second and the list served; sent {reads}"
    assert changed == ["resources/list", "tools/list"], f"expected the changed lists fetched again, not served; sent {changed}"
    assert served == [] and "handbook://pages/faq" in uris, f"expected the fresh list served after its change; sent {served}"
    assert expired == ["resources/read"], f"expected the read sent again once ttlMs ran out; sent {expired}"
    notes = [e["text"] for e in said.events if e["kind"] == "note" and "served from cache" in e["text"]]
    assert notes[0] == f"handbook: resources/read {URI} served from cache (ttlMs 60000)"


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_the_handbook_in_the_handshake_era_and_after_a_reconnect_sends_every_read():
    async def main():
        sent: list[str] = []
        async with Connections(Transcript()) as conns:
            old = await opened(conns, sent, HANDSHAKE, "--cache-ttl", "60000")
            await old.read_resource(URI)
            await old.read_resource(URI)
            handshake = sent.count("resources/read")
            new = await opened(conns, sent, MODERN, "--cache-ttl", "60000")
            await new.read_resource(URI)
            assert await new.reconnect()
            await new.read_resource(URI)
            return handshake, sent.count("resources/read") - handshake

    handshake, modern = anyio.run(main)
    assert handshake == 2, "expected the handshake era never cached"
    assert modern == 2, "expected a new session to fetch again what the last one kept"


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
@pytest.mark.parametrize(("without", "reads"), [((), 1), ((Cache,), 2)], ids=["stack", "without-cache"])
def test_the_stack_plugs_the_cache_in_as_its_part_cache(without, reads):
    from types import MappingProxyType

    from harness import config
    from harness.stack import Permissions, Stack

    server = config.ServerConfig("handbook", "file", "test.json", handbook("--cache-ttl", "60000"), timeouts=TIMEOUTS,
                                 raw=MappingProxyType({"protocol": MODERN}))

    async def main():
        sent: list[str] = []
        tap = WireTap(lambda name, direction, message: sent.append(message.get("method")) if direction == "send" else None)
        async with Stack([server], Transcript(), upto(without=(Permissions, *without)), tap=tap) as built:
            await built.connect_all()
            client = built.hub.clients["handbook"]
            await client.read_resource(URI)
            await client.read_resource(URI)
        return sent.count("resources/read")

    assert anyio.run(main) == reads
