"""The declared seams: the client protocols (harness.client) and the transport registry."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from harness import client, transports
from harness.connection import Connections
from harness.errors import ConfigError
from harness.hub import Hub, kind_of
from harness.mcp_client import MockClient
from harness.spec import ServerSpec, State
from leaks import no_process_left  # noqa: F401  (the fixture)
from mock_servers.catalog import SERVERS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def relay():
    """A transport the harness does not ship: stdio's opener under another name, with an alias."""
    transports.register("relay", transports.lookup(ServerSpec("x", "stdio", command="x")), aliases=("relayed",), local=True)
    yield "relay"
    del transports._REGISTRY["relay"]


def test_a_registered_transport_is_a_name_everywhere_without_editing_spec(relay, no_process_left):
    # Mutation caught: a list of names kept in spec, the hub or the connection again.
    assert "relay" in transports.names() and transports.by_alias("relayed") == "relay"
    args = ("-m", "mock_servers.docs", "--transport", "stdio")
    spec = ServerSpec("docs", "relay", command=sys.executable, args=args, cwd=str(ROOT))
    assert kind_of(spec) == "local" and spec.where().endswith("--transport stdio")

    async def main():
        async with Connections() as conns, Hub() as hub:
            hub.add("docs", conns.connector(spec), spec)
            entry = await hub.connect("docs")
            assert entry.state is State.CONNECTED, entry.error
            result = await entry.client.call_tool("get_version", {})
            assert result.content, "expected an answer over the registered transport"

    anyio.run(main)


def test_aliases_kinds_and_unknown_names():
    assert transports.by_alias("streamableHttp") == "http" and transports.by_alias("http") == "http"
    assert transports.by_alias("carrier-pigeon") is None
    assert transports.is_local("stdio") and not transports.is_local("sse") and not transports.is_local("nope")
    assert kind_of(ServerSpec("r", "http", url="http://127.0.0.1:1/mcp")) == "remote" and kind_of(None) == "local"
    with pytest.raises(ConfigError, match="field 'url': required for transport 'sse'"):
        transports.check(ServerSpec("r", "sse"))


def test_the_spec_and_registry_import_no_transport_module():
    # Checking a name must not import an SDK: the built-ins' openers are imported on first lookup.
    import subprocess

    probe = ("import sys; from harness.spec import ServerSpec; ServerSpec('d', 'http', url='http://127.0.0.1:1'); "
             "print(sorted(n for n in sys.modules if n.startswith('harness.transports.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", f"expected no transport module imported, got {out.stdout!r} {out.stderr}"


def test_a_mock_client_is_a_client_that_lists_and_nothing_more():
    mock = MockClient(SERVERS["docs"]())
    assert isinstance(mock, client.Client) and isinstance(mock, client.Lists)
    for protocol in (client.Renews, client.Observed, client.Closes, client.Offers, client.Rooted, client.Retimed):
        assert not isinstance(mock, protocol), f"a mock client is not {protocol.__name__}"
    assert not client.has_resources(mock)


def test_a_connection_meets_every_protocol():
    from harness.connection import MCPConnection
    from harness.spec import Timeouts

    from harness.spec import Limits

    spec = ServerSpec("docs", "http", url="http://127.0.0.1:1/mcp")
    conn = MCPConnection(spec, transport=transports.lookup(spec), timeouts=Timeouts(), limits=Limits(), transcript=None)
    for protocol in (client.Client, client.Lists, client.Renews, client.Observed, client.Closes, client.Offers,
                     client.Rooted, client.Retimed, client.Stderr, client.Speaks, client.Host):
        assert isinstance(conn, protocol), f"expected MCPConnection to be {protocol.__name__}"
    assert not client.has_resources(conn), "no capabilities before a handshake"
