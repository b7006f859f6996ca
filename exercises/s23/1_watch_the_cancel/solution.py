"""When the call timeout fires, the harness sends `notifications/cancelled` with the hung
request's id (`requestId`) and a reason, and gives up on the call: the model reads a `<!`
result that names the timeout and where to change it. The server's SDK cancels the
handler that was waiting forever and, as the spec asks, sends nothing back for a
cancelled request: there is no answer frame with that id. The server stays connected;
only that call failed.

The check opens the hanging docs server on one connection, with the same tap the
lesson's `--wire` and `--frames` use, instead of running the whole lesson.
"""

SLOW = True


def solve(env):
    import sys

    import anyio

    from harness.connection import connect
    from harness.errors import HarnessError
    from harness.spec import ServerSpec, Timeouts
    from harness.wire import WireTap

    frames = []
    tap = WireTap(lambda server, direction, message: frames.append({"direction": direction, "message": message}))
    spec = ServerSpec("docs", "stdio", command=sys.executable,
                      args=("-m", "mock_servers.docs", "--transport", "stdio", "--hang-on", "search"),
                      env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(env.solution.folder.parents[2]))

    async def main():
        conn = await connect(spec, tap=tap, timeouts=Timeouts(call=1))
        try:
            try:
                await conn.call_tool("search", {"query": "deploy"})
                error = None
            except HarnessError as exc:
                error = str(exc)
            return error, conn.state.value
        finally:
            await conn.aclose()

    error, state = anyio.run(main)
    return frames, error, state


def check(result):
    frames, error, state = result
    calls = [f for f in frames if f["message"].get("method") == "tools/call"]
    assert len(calls) == 1, calls
    call_id = calls[0]["message"]["id"]
    cancels = [f for f in frames if f["message"].get("method") == "notifications/cancelled"]
    assert len(cancels) == 1 and cancels[0]["direction"] == "send", cancels
    assert cancels[0]["message"]["params"]["requestId"] == call_id, cancels[0]
    answers = [f for f in frames if f["direction"] == "recv" and f["message"].get("id") == call_id]
    assert answers == [], f"a cancelled request gets no answer: {answers}"
    assert error.startswith("server 'docs': tool 'search': no answer within 1 s (call timeout"), error
    assert state == "connected", state
