"""When the call timeout fires, the harness sends `notifications/cancelled` with the hung
request's id (`requestId`) and a reason, and gives up on the call: the model reads a `<!`
result that names the timeout and where to change it. The server's SDK cancels the
handler that was waiting forever and, as the spec asks, sends nothing back for a
cancelled request: there is no answer frame with that id. The server stays connected;
only that call failed.

The check opens the hanging docs server on one connection, with the same tap the
lesson's `--wire` and `--frames` use, instead of running the whole lesson.
"""

from expect import count, equal, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Start `python -m mock_servers.docs --transport stdio --hang-on search` through '
    '`harness.connection.connect(spec, tap=WireTap(callback), timeouts=Timeouts(call=1))` '
    '(`harness.spec.ServerSpec`, `harness.wire.WireTap`), call `search`, and read the frames the tap '
    'saw.'
)

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
    calls = count([f for f in frames if f["message"].get("method") == "tools/call"], 1, "tools/call frame")
    call_id = calls[0]["message"]["id"]
    cancels = count([f for f in frames if f["message"].get("method") == "notifications/cancelled"], 1,
                    "notifications/cancelled frame")
    equal(cancels[0]["direction"], "send", "the cancel's direction")
    equal(cancels[0]["message"]["params"]["requestId"], call_id, "the cancel to name the call's id")
    none_of(frames, lambda f: f["direction"] == "recv" and f["message"].get("id") == call_id, "answer to the cancelled call")
    that(error and error.startswith("server 'docs': tool 'search': no answer within 1 s (call timeout"),
         "the call to fail with 'no answer within 1 s (call timeout ...'", show(error))
    equal(state, "connected", "the connection's state after the timeout")


def wrong(result):
    frames, error, state = result
    return [f for f in frames if f["message"].get("method") != "notifications/cancelled"], error, state  # no cancel sent
