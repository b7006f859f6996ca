"""s30: resources as two tools, prompts expanded, log messages queued between calls, list_changed refreshes.

Against the handbook mock server, a real MCP server over stdio that declares resources,
a template, a prompt with completion, logging, and listChanged for tools and resources.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from harness import resources
from harness.connection import Connections
from harness.errors import ToolError
from harness.hub import Hub
from harness.mcp_client import MockClient
from harness import stack
from harness.spec import ServerSpec
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS
from mock_servers.catalog import SERVERS

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("no_process_left")


def spec(module: str) -> ServerSpec:
    return ServerSpec(module, "stdio", command=sys.executable, args=("-m", f"mock_servers.{module}", "--transport", "stdio"), cwd=str(ROOT))


def by_name(tools):
    return {t.name: t for t in tools}


def test_resources_two_tools_once_routing_errors_list_changed_and_logs():
    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns, Hub(transcript) as hub:
            for module in ("docs", "handbook"):
                hub.add(module, conns.connector(spec(module), mechanisms=stack.mechanisms), spec(module))
            offered = resources.WithResources([], hub)
            assert list(offered) == []  # nothing connected yet: no resource tools
            await hub.connect_all()
            tools = by_name(offered)
            assert sorted(tools) == [resources.LIST, resources.READ]  # once, though two servers are connected

            listing = (await tools[resources.LIST].call({})).text()
            assert "handbook: handbook://pages/onboarding  onboarding (text/markdown): the onboarding page" in listing
            assert "handbook: template handbook://pages/{title}" in listing and "docs" not in listing
            page = await tools[resources.READ].call({"server": "handbook", "uri": "handbook://pages/style"})
            assert page.text().startswith("# Style")
            for args, message in [({"server": "docs", "uri": "x://y"}, "server 'docs' does not offer resources"),
                                  ({"server": "nope", "uri": "x://y"}, "server 'nope' not found"),
                                  ({"server": "handbook", "uri": "handbook://pages/nope"}, "error -32002: no page at handbook://pages/nope"),
                                  ({"server": "handbook"}, "needs 'server' and 'uri'")]:
                with pytest.raises(ToolError, match=message):
                    await tools[resources.READ].call(args)
            with pytest.raises(ToolError, match="server 'docs' not found among the servers with resources"):
                await tools[resources.LIST].call({"server": "docs"})

            handbook = hub.clients["handbook"]
            assert handbook.drain_logs() == []
            result = await handbook.call_tool("publish_page", {"title": "faq", "text": "Q and A"})
            assert result.text() == "published handbook://pages/faq"
            # Both lists were fetched again before the call returned: the next turn sees them.
            assert [t["name"] for t in handbook.tools] == ["search_pages", "publish_page", "archive_page"]
            assert "handbook://pages/faq" in [r["uri"] for r in handbook.resources]
            # The log sent during the call was shown with it; the one sent while listing again waits.
            shown = [e for e in transcript.events if e["kind"] == "log"]
            assert shown == [{"kind": "log", "server": "handbook", "level": "info", "text": "published handbook://pages/faq"}]
            resources.show_logs(hub, transcript)
            assert [e["text"] for e in transcript.events if e["kind"] == "log"][1:] == ["index rebuilt: 3 pages"]
            notes = [e["text"] for e in transcript.events if e["kind"] == "note"]
            assert "handbook: notifications/tools/list_changed: tools listed again: +archive_page" in notes

            text = await resources.expand(handbook, "summarize", {"title": "faq"})
            assert text.startswith("Summarize the handbook's faq page") and text.endswith("Q and A")
            with pytest.raises(ToolError, match="missing argument: title"):
                await resources.expand(handbook, "summarize", {})

    anyio.run(main)


def test_servers_without_resources_get_no_resource_tools_and_in_process_servers_are_fine():
    async def main():
        async with Hub() as hub:
            hub.add("docs", lambda: _mock("docs"))
            await hub.connect_all()
            assert list(resources.WithResources([], hub)) == []
            assert resources.resource_rows(hub) == [] and resources.prompt_rows(hub) == []

    anyio.run(main)


async def _mock(name: str):
    return MockClient(SERVERS[name]())


def test_a_config_tool_filter_holds_after_list_changed():
    """A tool the config leaves out stays out when the server lists its tools again (s30's list_changed)."""
    from harness.config.toolfilter import ToolFilter

    async def main():
        transcript = Transcript()
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            handbook = await conns.open(spec("handbook"), mechanisms=[*stack.mechanisms(), ToolFilter(None, ("archive_page",))])
            assert [t["name"] for t in handbook.tools] == ["search_pages", "publish_page"]
            await handbook.call_tool("publish_page", {"title": "faq", "text": "Q and A"})  # the server now lists archive_page too
            assert [t["name"] for t in handbook.tools] == ["search_pages", "publish_page"]
            refused = await handbook.call_tool("archive_page", {"title": "faq"})
            assert refused.is_error and "its config leaves it out" in refused.text()

    anyio.run(main)
