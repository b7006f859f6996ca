"""A `ServerSpec` is just where a server is: a name, a transport, and for stdio a command
line (here the course's docs server, run from the repository root). `connect` spawns it,
runs the handshake and lists its tools; the connection is an ordinary client, so
`call_tool` returns a `ToolResult`. `aclose()` must run in the task that connected,
because the SDK's transport is closed by the task that opened it; `anyio.run` of one
function does both in one task. Put your own server's command in the spec to try it
(the appendix "Build your own server" writes one).
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`harness.connection.connect(ServerSpec("docs", "stdio", command=sys.executable, args=("-m", '
    '"mock_servers.docs", "--transport", "stdio")))` gives a connection with `.tools`, `await '
    '.call_tool(name, args)` and `await .aclose()`; run it with `anyio.run`.'
)

SLOW = True


def solve(env):
    import sys

    import anyio

    from harness.connection import connect
    from harness.spec import ServerSpec

    spec = ServerSpec("docs", "stdio", command=sys.executable, args=("-m", "mock_servers.docs", "--transport", "stdio"),
                      env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(env.solution.folder.parents[2]))

    async def main():
        conn = await connect(spec)
        try:
            names = [tool["name"] for tool in conn.tools]
            result = await conn.call_tool("search", {"query": "hooks"})
            return names, result.text(), result.is_error
        finally:
            await conn.aclose()

    return anyio.run(main)


def check(result):
    names, text, is_error = result
    equal(names, ["search", "get_version"], "the tools")
    that(not is_error and text.startswith("hooks: Hooks run shell commands"),
         "a result that starts 'hooks: Hooks run shell commands'", show(text) + (" (an error)" if is_error else ""))


def wrong(result):
    names, text, is_error = result
    return names, "unknown tool 'search'", True
