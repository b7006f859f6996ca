"""The cost of a turn of the whole stack with tool search, at 2,000 and 10,000 tools: ``measure(count, repeat)``.

The stack is ``harness.stack.Stack`` with every default part and ``ToolSearch``, its hub
holding in-process fleet servers (``MockClient``: no processes), and a permission
configuration of a few rules of each kind, as a user has. A turn is ``stack.pool(...)()``:
every part's ``before_turn`` (the screen), s22's pool, every part's ``offered``
(permissions, then tool search). Measured: the median turn with nothing changed; the part
alone on the same input; permissions' ``offered`` alone; and a turn after one server changed
one of its tools (its description, as a server update would), two ways: listed again in the
same session (``notifications/tools/list_changed``: ``one_changed_ms``) and reconnected, a new
session whose every tool is a new object (``one_reconnected_ms``).
Used by ``bench/toolsearch.py``.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
import time
from collections.abc import Iterator
from typing import Any

from harness import permissions
from harness.loop import Turn
from harness.mcp_client import MockClient
from harness.stack import Permissions, Stack, upto
from harness.toolsearch import ToolSearch
from mock_servers import fleet
from mock_servers.catalog import ServerDef

class Relisting(MockClient):
    """A session whose server lists its tools again, as after ``notifications/tools/list_changed``: in turns, the
    versions it is given."""

    def __init__(self, versions: Iterator[ServerDef]) -> None:
        super().__init__(next(versions))
        self._versions = versions

    async def relist(self) -> None:
        self._server = next(self._versions)
        await self.list_tools()


RULES = permissions.Rules(allow=("mcp__chat__post_message", "mcp__db__run_query"), ask=("mcp__billing",),
                          deny=("mcp__hr__get_org_chart", "mcp__cloud__delete_*"))


def _median_ms(run: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def measure(count: int, repeat: int = 200) -> dict[str, Any]:
    parts = upto(given=[Permissions(RULES), ToolSearch("on")])
    async with Stack([], None, parts) as stack:
        servers = fleet.pool(count)
        first = next(iter(servers))
        head, *rest = servers[first]
        updated = ServerDef(first, "1.0.1", (dataclasses.replace(head, description=head.description + " (updated)"), *rest))
        versions = itertools.cycle([ServerDef(first, "1.0.0", tuple(servers[first])), updated])
        relisting = Relisting(versions)

        async def connect() -> MockClient:  # the first connect is the relisting session; a reconnect is a new one
            if not relisting.tools:
                await relisting.list_tools()
                return relisting
            return await MockClient.connect(next(versions))

        stack.hub.add(first, connect)
        for name, tools in list(servers.items())[1:]:
            definition = ServerDef(name, "1.0.0", tuple(tools))
            stack.hub.add(name, lambda d=definition: MockClient.connect(d))
        await stack.hub.connect_all()
        turn = stack.pool("base", [])
        await turn()  # the first turn converts and indexes everything: not what is measured
        clock = []

        async def timed() -> None:
            start = time.perf_counter()
            await turn()
            clock.append(time.perf_counter() - start)

        for _ in range(repeat):
            await timed()
        unchanged = statistics.median(clock) * 1000
        search = stack.find(ToolSearch)
        permitted = stack.find(Permissions)
        assert search is not None and search.searcher is not None and permitted is not None
        offered = Turn("base", tuple(t for t in search.searcher.offered.values() if t.name != "tool_search"))
        part_only = _median_ms(lambda: search.offered(Turn("base", search.searcher._last[0]), stack.built), repeat)
        permissions_only = _median_ms(lambda: permitted.offered(offered, stack.built), max(repeat // 10, 5))
        changed, reconnected = [], []
        for _ in range(max(repeat // 10, 10)):
            await relisting.relist()  # the other version: one tool changed
            clock.clear()
            await timed()
            changed.append(clock[0])
        for _ in range(max(repeat // 10, 10)):
            await stack.hub.reconnect(first)  # a new session listing the other version: every tool a new object
            clock.clear()
            await timed()
            reconnected.append(clock[0])
        return {"tools": sum(len(t) for t in servers.values()), "servers": len(servers), "stack_unchanged_ms": round(unchanged, 4),
                "unchanged_ms": round(part_only, 4), "permissions_ms": round(permissions_only, 4),
                "one_changed_ms": round(statistics.median(changed) * 1000, 3),
                "one_reconnected_ms": round(statistics.median(reconnected) * 1000, 3)}
