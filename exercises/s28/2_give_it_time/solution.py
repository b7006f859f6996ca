"""`search` waits 30 s before it answers `initialize` (`--slow-start 30`). With a connect
timeout of 40 it connects instead of failing, about 29 s later than the 1 s timeout
failed it, and since `hub.connect_all()` returns only when every server has settled, the
whole run starts (and so ends) about 29 s later. No other *server* waits: each connect has
its own timeout, started when its own connect starts, and search holds only one of the
local slots (`hub.LIMITS`), so docs and deploy open at once and join first (joins follow
the order asked). Only the agent, which starts after `connect_all`, waits.

The check reads the patched settings file, then replays the timing with three stand-in
connectors, search taking much longer than the others, and looks at the order in which
the hub reports them connected.
"""

from expect import equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'A server\'s own connect timeout is `"timeouts": {"connect": 40}` in its entry of '
    '`lessons/s28/cline_mcp_settings.json`; `harness.config.load` reads it into `.timeouts.connect`.'
)

EDITS = {
    "lessons/s28/cline_mcp_settings.json": [(
        '"timeouts": {"connect": 1}',
        '"timeouts": {"connect": 40}',
    )],
}


def solve(env):
    import tempfile
    from pathlib import Path

    import anyio

    from harness import config
    from harness.hub import Hub
    from harness.mcp_client import MockClient
    from mock_servers.catalog import SERVERS

    with tempfile.TemporaryDirectory() as root:
        nowhere = config.Paths(home=Path(root), cwd=Path(root), managed=Path(root))
        servers = {s.name: s for s in config.load(nowhere, [env.lesson_dir / "cline_mcp_settings.json"])}

    order = []

    def connector(name, slow):
        async def connect():
            if slow:
                await anyio.sleep(0.3)  # stands in for --slow-start 30
            return await MockClient.connect(SERVERS["docs" if name == "search" else name]())
        return connect

    async def main():
        async with Hub(on_change=lambda change: order.append((change.server, change.new.value))) as hub:
            for name in ("docs", "deploy", "search"):
                hub.add(name, connector(name, name == "search"), servers[name].spec)
            await hub.connect_all()
            return [name for name, state in order if state == "connected"]

    return servers["search"].timeouts.connect, anyio.run(main)


def check(result):
    timeout, connected = result
    equal(timeout, 40, "search's connect timeout (s)")
    equal(connected, ["docs", "deploy", "search"], "the servers connected, in order:")
