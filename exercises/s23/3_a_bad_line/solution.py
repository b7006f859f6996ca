"""The tap records the line as it came, as a frame of its own: `{"invalid": "this line is
not JSON-RPC"}` (with `--wire`: `<< docs {"invalid": ...}`). The stdio transport passes
a line it cannot parse along as a value, not as an exception that ends the session, so
the SDK skips it and the next line, the real answer, completes the call: the search still
succeeds.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`python -m mock_servers.docs --transport stdio --malformed-stdout` prints a line that is not '
    'JSON-RPC; watch it with `harness.wire.WireTap` passed as `connect(spec, tap=...)`.'
)

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
    equal(invalid, [{"invalid": "this line is not JSON-RPC"}], "the tap to show the bad line as")
    that(not is_error and text.startswith("hooks: "), "the call after it to still answer 'hooks: ...'", show(text))


def wrong(result):
    frames, text, is_error = result
    return [(d, m) for d, m in frames if "invalid" not in m], text, is_error  # the bad line not seen
