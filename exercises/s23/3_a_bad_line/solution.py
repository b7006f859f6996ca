"""The tap records the line as it came, as a frame of its own: `{"invalid": "this line is
not JSON-RPC"}` (with `--wire`: `<< docs {"invalid": ...}`). The stdio transport passes
a line it cannot parse along as a value, not as an exception that ends the session, so
the SDK skips it and the next line, the real answer, completes the call: the search still
succeeds.
"""

SLOW = True


def solve(env):
    import sys

    import anyio

    from harness.connection import connect
    from harness.spec import ServerSpec
    from harness.wire import WireTap

    frames = []
    tap = WireTap(lambda server, direction, message: frames.append((direction, message)))
    spec = ServerSpec("docs", "stdio", command=sys.executable,
                      args=("-m", "mock_servers.docs", "--transport", "stdio", "--malformed-stdout"),
                      env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(env.solution.folder.parents[2]))

    async def main():
        conn = await connect(spec, tap=tap)
        try:
            result = await conn.call_tool("search", {"query": "hooks"})
            return result.text(), result.is_error
        finally:
            await conn.aclose()

    text, is_error = anyio.run(main)
    return frames, text, is_error


def check(result):
    frames, text, is_error = result
    invalid = [m for d, m in frames if "invalid" in m]
    assert invalid == [{"invalid": "this line is not JSON-RPC"}], invalid
    assert not is_error and text.startswith("hooks: "), text
