"""The server forgets every session right after its Nth `tools/call` has been answered, and
acts on it when the next request arrives. In the lesson's scenario docs gets only two
calls, so with `--forget-sessions-after 2` *no* call gets a 404: the warning line is gone
and the run looks like s24's. A third docs call would be the one: it gets the 404, the
harness opens `<docs-session-2>` and retries it once, and the model never notices.
Shown here with three searches on one connection.
"""

from expect import count, equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`serve_http("docs", "http", "--forget-sessions-after", "2")` forgets the session after two '
    '`tools/call` requests; pass a `harness.transcript.Transcript()` to `connect(..., transcript=...)` and read '
    'its `warning` events.'
)

SLOW = True


def solve(env):
    import anyio

    from harness.connection import connect
    from harness.expiry import SessionExpiry
    from harness.spec import ServerSpec
    from harness.transcript import Transcript
    from mock_servers.launch import serve_http

    transcript = Transcript()  # no output: the events are enough

    async def main():
        async with serve_http("docs", "http", "--forget-sessions-after", "2") as url:
            conn = await connect(ServerSpec("docs", "http", url=url), transcript=transcript, mechanisms=[SessionExpiry()])
            try:
                answers = []
                for query in ("hooks", "deploy", "permissions"):
                    answers.append((await conn.call_tool("search", {"query": query})).text())
                    answers.append([e["text"] for e in transcript.events if e["kind"] == "warning"])
                return answers
            finally:
                await conn.aclose()

    return anyio.run(main)


def check(result):
    first, warned1, second, warned2, third, warned3 = result
    that(first.startswith("hooks: ") and second.startswith("deploy: ") and third.startswith("permissions: "),
         "three answers, 'hooks: ', 'deploy: ', 'permissions: '", show((first, second, third)))
    equal((warned1, warned2), ([], []), "no warning after the first two calls:")
    warned = count(warned3, 1, "warning after the third call")
    that("HTTP 404" in warned[0] and "retrying 'search' once" in warned[0],
         "the warning to name HTTP 404 and 'retrying 'search' once'", show(warned[0]))


def wrong(result):
    return (*result[:5], [])  # the third call got no 404
