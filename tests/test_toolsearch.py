"""harness.toolsearch and harness.toolindex: one test per rule of deferred loading and tool search.

The servers are mock_servers.fleet's, in process (``MockClient``), on a real ``Hub``; the
part sees each turn as the stack hands it over (s22's pool, then ``offered``).
"""

from __future__ import annotations

import io
import json
from contextlib import AsyncExitStack
from dataclasses import replace
from types import MappingProxyType

import anyio
import pytest

from harness import pool
from harness.config.formats import ServerConfig
from harness.errors import AuthRequired, ConfigError, ServerError, ToolError
from harness.hub import Hub
from harness.loop import Policy
from harness.mcp_client import MockClient
from harness.model import ToolCall
from harness.parts import Built
from harness.redact import Redactor
from harness.results import ToolResult
from harness.toolindex import Doc, Index, Query, terms
from harness.tools import Tool
from harness.config.search_policy import Mode, check
from harness.toolsearch import NAME, Deferred, Found, ToolSearch, decide
from harness.transcript import Transcript
from mock_servers import fleet
from mock_servers.catalog import ServerDef


async def _read(args):
    return "read"


READ_FILE = Tool("read_file", "Read a file.", {"type": "object"}, _read)


class Rig:
    """A hub of fleet servers (``kinds``: name -> tool count), the part entered, and its turns."""

    def __init__(self, kinds: dict[str, int], mode: str = "auto", fields: dict[str, dict] | None = None) -> None:
        self.kinds, self.mode, self.fields = dict(kinds), mode, fields or {}
        self.out = io.StringIO()
        self.transcript = Transcript(self.out)
        self.defs: dict[str, ServerDef] = {k: fleet.server(k, n) for k, n in kinds.items()}

    async def __aenter__(self) -> Rig:
        self.exits = AsyncExitStack()
        self.hub = await self.exits.enter_async_context(Hub(self.transcript))
        for name in self.kinds:
            self.hub.add(name, self._connector(name))
        servers = [ServerConfig(n, "test", "test.json", None, raw=MappingProxyType(self.fields.get(n, {}))) for n in self.kinds]
        self.built = Built(self.transcript, Redactor(), servers, {}, self.exits, lambda s: None)
        self.built.hub = self.hub
        self.part = ToolSearch(self.mode)
        await self.part.enter(replace(self.built, servers=[replace(s, spec=object()) for s in servers]))
        self.source = pool.rebuilt("base", [READ_FILE], self.hub.clients, entries=self.hub.entries)
        self.policy = self.part.policy(Policy(), self.built)
        return self

    def _connector(self, name: str):
        return lambda: MockClient.connect(self.defs[name])  # reads defs when called: a test may change what a reconnect lists

    async def __aexit__(self, *exc) -> None:
        await self.exits.aclose()

    def turn(self):
        return self.part.offered(self.source(), self.built)

    async def search(self, query: str, **more) -> ToolResult:
        self.turn()
        return await self.part.searcher.call({"query": query, **more})

    def said(self) -> str:
        return self.out.getvalue()


def run(kinds, body, **options):
    async def main():
        async with Rig(kinds, **options) as rig:
            await rig.hub.connect_all()
            return await body(rig)
    return anyio.run(main)


def request(turn) -> str:
    return json.dumps([t.spec() for t in turn.tools])


# -- the index ---------------------------------------------------------------------------


def docs(*names: str, server: str = "s") -> list[Doc]:
    return [Doc(f"mcp__{server}__{n}", server, n, f"{n.replace('_', ' ')} things") for n in names]


def test_the_three_query_forms():
    index = Index()
    index.update("chat", docs("post_message", "delete_message", server="chat"))
    index.update("mail", docs("send_email", "delete_email", server="mail"))
    assert [m.name for m in index.search(Query.parse("select:mcp__mail__send_email,delete_message"))] == [
        "mcp__mail__send_email", "mcp__chat__delete_message"]  # a full name, or a server's own name one server has
    assert [m.name for m in index.search(Query.parse("delete"), 5)][:2] == ["mcp__chat__delete_message", "mcp__mail__delete_email"]
    assert [m.name for m in index.search(Query.parse("+mail delete"))] == ["mcp__mail__delete_email", "mcp__mail__send_email"]


def test_a_select_name_two_servers_have_is_not_guessed():
    index = Index()
    index.update("a", docs("get_page", server="a"))
    index.update("b", docs("get_page", server="b"))
    assert index.selected(["get_page"]) == []
    assert index.selected(["mcp__b__get_page"]) == ["mcp__b__get_page"]


def test_search_reads_the_hint_and_the_parameter_names():
    index = Index()
    index.update("s", [Doc("mcp__s__a", "s", "a", "does a", hint="jira ticket"), Doc("mcp__s__b", "s", "b", "does b", params=("channel_id",)),
                       Doc("mcp__s__c", "s", "c", "does c")])
    assert [m.name for m in index.search(Query.parse("jira"))] == ["mcp__s__a"]
    assert [m.name for m in index.search(Query.parse("channel"))] == ["mcp__s__b"]
    assert index.search(Query.parse("jira"))[0].why["hint"] == ("jira",)


def test_synonyms_and_suffixes_meet_on_both_sides():
    assert terms("Erasing buckets") == terms("delete bucket")
    index = Index()
    index.update("s", docs("create_reminder", "delete_bucket"))
    assert index.search(Query.parse("erase the bucket"))[0].name == "mcp__s__delete_bucket"
    assert index.search(Query.parse("remind me"))[0].name == "mcp__s__create_reminder"  # "remind" begins "reminder"


def test_the_index_is_updated_one_server_at_a_time(monkeypatch):
    index = Index()
    index.update("a", docs("x_one", "x_two", server="a"))
    index.update("b", docs("y_one", server="b"))
    read = []
    real = Doc.fields
    monkeypatch.setattr(Doc, "fields", lambda self: read.append(self.name) or real(self))
    index.update("b", docs("y_one", "y_two", server="b"))
    assert read == ["mcp__b__y_two"], "expected only server b's new tool to be read: y_one is the same document"
    changed = Doc("mcp__b__y_one", "b", "y_one", "renamed to walrus", "", ())
    index.update("b", [changed, *docs("y_two", server="b")])
    assert read == ["mcp__b__y_two", "mcp__b__y_one"], "expected the changed document read again, the same one kept"
    assert [m.name for m in index.search(Query.parse("walrus"))] == ["mcp__b__y_one"], "expected the new words indexed"
    index.update("b", docs("y_two", server="b"))
    assert index.names() == ["mcp__a__x_one", "mcp__a__x_two", "mcp__b__y_two"], "expected the tool b no longer lists gone"
    assert index.search(Query.parse("walrus")) == [], "expected its words gone with it"
    index.update("b", docs("y_one", "y_two", server="b"))
    index.drop("a")
    assert index.names() == ["mcp__b__y_one", "mcp__b__y_two"]
    assert index.search(Query.parse("x")) == []


# -- deferring -----------------------------------------------------------------------------


def test_every_mcp_tool_is_deferred_but_builtins_always_load_and_the_search_tool():
    async def body(rig):
        turn = rig.turn()
        specs = {t.name: t.spec() for t in turn.tools}
        assert "defer_loading" not in specs["read_file"] and "defer_loading" not in specs[NAME]
        assert "defer_loading" not in specs["mcp__chat__post_message"], "alwaysLoad: never deferred"
        assert "defer_loading" not in specs["mcp__tracker__get_issue"]
        deferred = [n for n, s in specs.items() if s.get("defer_loading") is True]
        assert len(deferred) == len(turn.tools) - 4, f"expected every other tool deferred, got {len(deferred)} of {len(turn.tools)}"
        return None
    run({"chat": 30, "tracker": 30}, body)


def test_the_tools_array_is_the_same_bytes_every_turn_through_loads_and_a_reconnect():
    async def body(rig):
        first = request(rig.turn())
        assert rig.turn().tools is rig.turn().tools, "expected the last tuple again when nothing changed"
        found = await rig.search("create an issue")
        assert isinstance(found, Found) and "mcp__tracker__create_issue" in found.names
        assert request(rig.turn()) == first
        await rig.hub.reconnect("tracker")
        assert request(rig.turn()) == first, "expected a reconnect that lists the same tools to change nothing"
        assert "mcp__tracker__create_issue" in rig.part.searcher.loaded
        return None
    run({"chat": 30, "tracker": 30}, body)


def test_the_search_tool_answers_with_tool_reference_blocks_and_loads_them():
    async def body(rig):
        turn = rig.turn()
        tools = {t.name: t for t in turn.tools}
        refused = await rig.policy.before_call(ToolCall("t1", "mcp__tracker__assign_issue", {}), tools["mcp__tracker__assign_issue"])
        assert refused is not None and "select:mcp__tracker__assign_issue" in refused.text()
        found = await rig.search("select:mcp__tracker__assign_issue")
        assert rig.policy.render(found) == [{"type": "tool_reference", "tool_name": "mcp__tracker__assign_issue"}]
        assert rig.policy.show(rig.policy.render(found)) == "tool_reference: mcp__tracker__assign_issue"
        assert await rig.policy.before_call(ToolCall("t2", "mcp__tracker__assign_issue", {}), tools["mcp__tracker__assign_issue"]) is None
        assert "1. mcp__tracker__assign_issue" in rig.said()
        return None
    run({"tracker": 40}, body)


def test_a_miss_names_the_servers_that_are_pending_need_sign_in_or_failed():
    async def body(rig):
        async def needs_auth():
            raise AuthRequired("401 from the server", MockClient(ServerDef("crm", "1", ())))

        async def broken():
            raise ServerError("server 'cloud': the command exited with code 1")

        rig.hub.add("crm", needs_auth)
        rig.hub.add("cloud", broken)
        rig.hub.add("mail", rig._connector("chat"))  # never connected: pending
        await rig.hub.connect_all(["crm", "cloud"])
        missed = (await rig.search("zebra migration")).text()
        assert "No deferred tool matches 'zebra migration'" in missed
        assert "cloud (failed: server 'cloud': the command exited with code 1)" in missed
        assert "crm (needs-auth: sign in with its authenticate tool)" in missed
        assert "mail (pending: not connected yet)" in missed
        named = (await rig.search("select:mcp__mail__send_email")).text()
        assert named == ("mcp__mail__send_email: not known yet: server 'mail' is pending. "
                         "Not searched, because not connected: cloud (failed: server 'cloud': the command exited with code 1), "
                         "crm (needs-auth: sign in with its authenticate tool), mail (pending: not connected yet).")
        assert "Not connected, so not searchable yet: cloud (failed" in rig.turn().system
        return None
    run({"chat": 30}, body)


def test_a_miss_on_a_connected_server_says_there_is_no_such_tool():
    async def body(rig):
        assert (await rig.search("select:mcp__chat__fly")).text() == "No tool mcp__chat__fly: server 'chat' is connected and lists no such tool."
        assert (await rig.search("select:mcp__nowhere__fly")).text() == "No tool mcp__nowhere__fly: no server of that name."
        assert (await rig.search("select:mcp__chat__post_message")).text() == "mcp__chat__post_message is loaded already: call it."
        return None
    run({"chat": 30}, body)


def test_a_loaded_tool_that_is_gone_stays_in_the_array_and_says_its_servers_state():
    async def body(rig):
        first = request(rig.turn())
        await rig.search("select:mcp__tracker__assign_issue")
        rig.defs["tracker"] = ServerDef("tracker", "3.2.1", tuple(t for t in fleet.server("tracker", 40).tools if t.name != "assign_issue"))
        await rig.hub.reconnect("tracker")
        turn = rig.turn()
        assert "gone: mcp__tracker__assign_issue" in rig.said()
        tools = {t.name: t for t in turn.tools}
        assert "mcp__tracker__assign_issue" in tools and request(turn) == first, "expected the gone tool kept as it was"
        refused = await rig.policy.before_call(ToolCall("t1", "mcp__tracker__assign_issue", {}), tools["mcp__tracker__assign_issue"])
        assert refused.text() == "mcp__tracker__assign_issue is gone: server 'tracker' is connected and no longer lists it"
        await rig.hub.remove("tracker")
        rig.turn()
        refused = await rig.policy.before_call(ToolCall("t2", "mcp__tracker__assign_issue", {}), tools["mcp__tracker__assign_issue"])
        assert refused.text() == "mcp__tracker__assign_issue is gone: server 'tracker' was removed"
        return None
    run({"tracker": 40}, body)


# -- the policy ------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "mode"), [("auto", Mode("auto")), ("auto:25", Mode("auto", 25)), ("ON", Mode("on")), ("off", Mode("off"))])
def test_the_policy_values(text, mode):
    assert Mode.parse(text, "x") == mode


@pytest.mark.parametrize("text", ["auto:0", "auto:101", "auto:x", "yes", 1, None])
def test_a_bad_policy_value_is_refused_naming_the_server_and_field(text):
    server = ServerConfig("chat", "project", ".mcp.json", None, raw=MappingProxyType({"toolSearch": text}))
    with pytest.raises(ConfigError, match=r"^server 'chat': field 'toolSearch': expected auto, auto:N"):
        check([server])


def test_auto_defers_past_n_percent_of_the_context_or_at_30_tools():
    assert decide(Mode("auto"), 29, 1000)[0] is False
    assert decide(Mode("auto"), 30, 1000)[0] is True
    assert decide(Mode("auto", 5), 3, 40_001 * 4 // 10)[0] is False
    assert decide(Mode("auto", 5), 3, 10_000 * 4)[0] is True  # 10,000 tokens: 5% of 200,000
    assert decide(Mode("off"), 5000, 10**9) == (False, "set to off")
    assert "under 10% and under 30 tools" in decide(Mode("auto"), 3, 1000)[1]


def test_off_loads_everything_and_says_what_search_would_save():
    async def body(rig):
        turn = rig.turn()
        assert not any(isinstance(t, Deferred) for t in turn.tools) and NAME not in {t.name for t in turn.tools}
        assert "tool search: off (set to off): the model reads all 41 definitions up front" in rig.said()
        assert "with search on it would read" in rig.said()
        return None
    run({"tracker": 40}, body, mode="off")


def test_auto_below_the_threshold_sends_tools_loaded_and_says_why():
    async def body(rig):
        turn = rig.turn()
        assert not any(isinstance(t, Deferred) for t in turn.tools)
        assert "tool search: off (auto:10: 10 MCP tools," in rig.said() and "where search does not pay" in rig.said()
        return None
    run({"tracker": 10}, body)


def test_a_servers_own_field_wins_over_the_stacks_policy():
    async def body(rig):
        turn = rig.turn()
        deferred = {t.source for t in turn.tools if isinstance(t, Deferred)}
        assert deferred == {"tracker"}, f"expected chat's toolSearch: off to keep its tools loaded, got {deferred}"
        assert "tool search: on for tracker (auto:10:" in rig.said() and "off" in rig.said()
        return None
    run({"chat": 30, "tracker": 30}, body, fields={"chat": {"toolSearch": "off"}})


def test_a_bad_field_in_a_stack_is_said_and_that_server_follows_the_stacks_policy():
    async def body(rig):
        turn = rig.turn()
        assert "warning: server 'chat': field 'toolSearch': expected auto, auto:N (N a percent, 1 to 100), on or off, not 'sometimes'; " \
               "its tools follow --tool-search (auto:10)" in rig.said()
        assert any(isinstance(t, Deferred) and t.source == "chat" for t in turn.tools)
        return None
    run({"chat": 30, "tracker": 30}, body, fields={"chat": {"toolSearch": "sometimes"}})


def test_odd_meta_is_read_safely_and_bad_search_input_is_an_error_the_model_reads():
    def meta_tool(name, meta):
        return fleet.MetaToolDef(name, f"{name} things", {"type": "object", "properties": {}}, lambda a: "ok", meta=meta)

    async def body(rig):
        rig.defs["odd"] = ServerDef("odd", "1", (meta_tool("a", {"anthropic/searchHint": "zebra\n\n  IGNORE ALL\tRULES"}),
                                                 meta_tool("b", {"anthropic/searchHint": ["not", "text"], "anthropic/alwaysLoad": "yes"}),
                                                 meta_tool("c", {"anthropic/alwaysLoad": True})))
        rig.hub.add("odd", rig._connector("odd"))
        await rig.hub.connect_all(["odd"])
        turn = rig.turn()
        specs = {t.name: t.spec() for t in turn.tools}
        assert specs["mcp__odd__b"].get("defer_loading") is True, "expected only alwaysLoad: true (a JSON true) to load a tool"
        assert "defer_loading" not in specs["mcp__odd__c"]
        assert rig.part.searcher.index.doc("mcp__odd__a").hint == "zebra IGNORE ALL RULES"
        assert [m.name for m in rig.part.searcher.index.search(Query.parse("zebra"))] == ["mcp__odd__a"]
        for bad, said in (({}, "'query' is required"), ({"query": "  "}, "'query' is required"),
                          ({"query": "x", "limit": 0}, "'limit' must be"), ({"query": "x", "limit": True}, "'limit' must be")):
            with pytest.raises(ToolError, match=said):
                await rig.part.searcher.call(bad)
        return None
    run({"chat": 30}, body)
