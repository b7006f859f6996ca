"""With `tools_changed=False`, handbook's capabilities say `"tools": {"listChanged": false}`,
yet after `publish_page` it still sends `notifications/tools/list_changed`. The harness
believes it: it lists the tools again, and `archive_page` appears. The specification
(2025-11-25, tools) says a server that declared `listChanged` *should* send the
notification; it does not tell a client to ignore one it did not promise. Believing it
costs one `tools/list`; ignoring it, as Claude Code does (it refreshes only when the
capability was declared), leaves the model with a stale pool while the server already
offers another tool. The harness trusts the notification, not the declaration.
"""

from expect import show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`NotificationOptions(tools_changed=...)` in `mock_servers/serve.py` is what the server declares; '
    'the connection\'s `.capabilities["tools"]` shows it, and `.tools` after '
    '`call_tool("publish_page", ...)` what the client refetched.'
)

EDITS = {
    "mock_servers/serve.py": [(
        "changes = NotificationOptions(tools_changed=definition.more_tools is not None,",
        "changes = NotificationOptions(tools_changed=False,  # s30 exercise 3: a server that does not declare it",
    )],
}
SLOW = True


def solve(env):
    import sys

    import anyio

    from harness.connection import connect
    from harness.resources import Offering
    from harness.spec import ServerSpec

    spec = ServerSpec("handbook", "stdio", command=sys.executable, args=("-m", "mock_servers.handbook", "--transport", "stdio"),
                      env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(env.root))

    async def main():
        conn = await connect(spec, mechanisms=[Offering()])  # s30's mechanism: resources, prompts, list_changed
        try:
            declared = conn.capabilities.get("tools", {})
            before = [t["name"] for t in conn.tools]
            await conn.call_tool("publish_page", {"title": "checklist", "text": "# First week"})
            return declared, before, [t["name"] for t in conn.tools]
        finally:
            await conn.aclose()

    return anyio.run(main)


def check(result):
    declared, before, after = result
    that(declared.get("listChanged") is not True, "a server that does not declare tools.listChanged", show(declared))
    that("archive_page" not in before and "archive_page" in after, "archive_page to appear after publish_page",
         f"before {show(before)}, after {show(after)}")
