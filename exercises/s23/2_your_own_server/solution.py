"""A `ServerSpec` is just where a server is: a name, a transport, and for stdio a command
line (here the course's docs server, run from the repository root). `connect` spawns it,
runs the handshake and lists its tools; the connection is an ordinary client, so
`call_tool` returns a `ToolResult`. `aclose()` must run in the task that connected,
because the SDK's transport is closed by the task that opened it; `anyio.run` of one
function does both in one task. Put your own server's command in the spec to try it
(the appendix "Build your own server" writes one).
"""

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
    assert names == ["search", "get_version"], names
    assert not is_error and text.startswith("hooks: Hooks run shell commands"), text
