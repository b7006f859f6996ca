"""`MCPConnection.call_tool` catches the expiry once: it re-initializes and calls again,
and if that call's session expires too it raises `the new session expired too; not
retrying again`, which the model reads as the call's error. To see it, the server has to
forget the *new* session before the retry arrives. The patch makes the mock server do
that: once it has answered N calls, every `tools/list` (the last step of re-initializing)
arms the forgetting again, so the retry is the next request and gets a 404 too.

Why not retry again: one 404 is a restart, an idle timeout or a load balancer, and one
fresh session fixes it. A second 404 at once says the server will not keep a session for
us; retrying would loop (each round costing a whole handshake) while the model waits. One
retry also keeps the guarantee that matters: the server never ran a request that got 404,
so the call runs at most once.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "The retry is `harness/expiry.py`'s; make `mock_servers/serve.py` forget the new session too (its "
    '`list_tools` handler runs on the re-initialized session, `counters.forget_pending = True`), then '
    'catch `harness.errors.HarnessError` on the second call.'
)

EDITS = {
    "mock_servers/serve.py": [(
        '''    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
''',
        '''    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if options.forget_sessions_after is not None and counters.calls >= options.forget_sessions_after:
            counters.forget_pending = True  # s25 exercise 2: the new session is forgotten before the retry
''',
    )],
}
SLOW = True


def solve(env):
    import anyio

    from harness.connection import connect
    from harness.expiry import SessionExpiry
    from harness.errors import HarnessError
    from harness.spec import ServerSpec
    from mock_servers.launch import serve_http

    async def main():
        async with serve_http("docs", "http", "--forget-sessions-after", "1") as url:
            conn = await connect(ServerSpec("docs", "http", url=url), mechanisms=[SessionExpiry()])
            try:
                first = (await conn.call_tool("search", {"query": "hooks"})).text()
                try:
                    await conn.call_tool("search", {"query": "deploy"})
                    second = None
                except HarnessError as exc:
                    second = str(exc)
                return first, second
            finally:
                await conn.aclose()

    return anyio.run(main)


def check(result):
    first, second = result
    that(first.startswith("hooks: "), "the first call to answer 'hooks: ...'", show(first))
    equal(second, "server 'docs': tool 'search': the new session expired too; not retrying again", "the second call's error")


def wrong(result):
    return result[0], None  # the second call did not fail
