"""The server forgets every session right after its Nth `tools/call` has been answered, and
acts on it when the next request arrives. In the lesson's scenario docs gets only two
calls, so with `--forget-sessions-after 2` *no* call gets a 404: the warning line is gone
and the run looks like s24's. A third docs call would be the one: it gets the 404, the
harness opens `<docs-session-2>` and retries it once, and the model never notices.
Shown here with three searches on one connection.
"""

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
    assert first.startswith("hooks: ") and second.startswith("deploy: ") and third.startswith("permissions: "), result
    assert warned1 == [] and warned2 == [], "the first two calls get no 404"
    assert len(warned3) == 1 and "HTTP 404" in warned3[0] and "retrying 'search' once" in warned3[0], warned3
