"""Over SSE every answer comes back on the GET stream, never in the POST's response (that
is just `202 Accepted`). So the stream is the only way back: if it closes, a request
that was posted can never be answered. With `--crash-after=0` the server exits on its
first `tools/call`; the stream drops, and the harness fails that call at once with
"connection lost" instead of waiting for its timeout. The server is marked failed, and
the model reads the error naming it.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`serve_http("docs", "sse", "--crash-after", "0")` (`mock_servers.launch`) drops the stream; call '
    'a tool through `harness.connection.connect` and catch `harness.errors.HarnessError`.'
)

SLOW = True


def solve(env):
    import anyio

    from harness.connection import connect
    from harness.errors import HarnessError
    from harness.spec import ServerSpec
    from mock_servers.launch import serve_http

    async def main():
        async with serve_http("docs", "sse", "--crash-after", "0") as url:
            conn = await connect(ServerSpec("docs", "sse", url=url))
            try:
                with anyio.fail_after(20):  # far below the 60 s call timeout: it must fail fast
                    await conn.call_tool("search", {"query": "hooks"})
                return None
            except HarnessError as exc:
                return str(exc), conn.state.value
            finally:
                await conn.aclose()

    return anyio.run(main)


def check(result):
    that(result is not None, "the call to fail", "a call that succeeded")
    error, state = result
    that(error.startswith("server 'docs': tool 'search': connection lost"),
         "the error 'server 'docs': tool 'search': connection lost...'", show(error))
    equal(state, "failed", "the connection's state")


def wrong(result):
    return None  # the call did not fail
