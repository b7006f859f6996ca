"""The change is one argument in `code.py`: `{"title": "style"}`. The `note:` line names the
new choice, and the `user>` message is the server's expansion for it: the same request,
with the *style* page embedded instead of onboarding. Offline, the first user message
comes from the prompt, not from the scenario's `prompt:` (that is only what a live run
with no `--prompt` would send, and a reminder of what the expansion says). The scripted
model would have to change its turns: read `handbook://pages/style`, summarize that page,
and publish a different improvement. Otherwise it answers a question nobody asked,
which is why offline transcripts are only as true as their scripts.

The check expands the prompt on a real connection to the handbook server, as the lesson
does after the edit.
"""

from expect import show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`resources.expand(client, "summarize", {"title": ...})` in `lessons/s30/code.py` expands the '
    "prompt the user picks; the handbook's pages are in `mock_servers/handbook.py`."
)

EDITS = {
    "lessons/s30/code.py": [(
        'await resources.expand(stack.hub.clients["handbook"], "summarize", {"title": "onboarding"})',
        'await resources.expand(stack.hub.clients["handbook"], "summarize", {"title": "style"})',
    ), (
        "the user picks handbook's summarize prompt with title=onboarding",
        "the user picks handbook's summarize prompt with title=style",
    )],
}
SLOW = True


def solve(env):
    import sys

    import anyio

    from harness import resources
    from harness.connection import connect
    from harness.resources import Offering
    from harness.spec import ServerSpec

    spec = ServerSpec("handbook", "stdio", command=sys.executable, args=("-m", "mock_servers.handbook", "--transport", "stdio"),
                      env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(env.solution.folder.parents[2]))

    async def main():
        conn = await connect(spec, mechanisms=[Offering()])  # s30's mechanism: resources, prompts, list_changed
        try:
            return [await resources.expand(conn, "summarize", {"title": t}) for t in ("onboarding", "style")]
        finally:
            await conn.aclose()

    code = (env.lesson_dir / "code.py").read_text(encoding="utf-8")
    return anyio.run(main), code


def check(result):
    (onboarding, style), code = result
    that('{"title": "style"}' in code, 'lessons/s30/code.py to expand summarize with {"title": "style"}', "no such call in it")
    that("# Onboarding" in onboarding and "# Onboarding" not in style, "the style prompt without the onboarding page",
         show(style))
    that("style" in style.lower() and style != onboarding, "the style prompt to be about style", show(style))
