"""The hub asks `accept` with the clients that *would* be live, after it has connected the
newcomer. When `accept` raises, the hub closes that client, marks deploy `failed`, prints
a `warning:` naming it, and `connect_mcp` returns the reason as an error result: the
model reads `not allowed here`. Nothing else changes: docs connects next and answers, so
a veto costs exactly one server.
"""

from expect import contains, exit_code, first_starting, has_line, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`Hub(transcript, accept=hook)` (`harness/hub.py`) calls `hook(clients)` before a server joins, '
    'with the clients that would then be live; raise `harness.errors.ConfigError("server \'deploy\': '
    'not allowed here")` from it to refuse.'
)

EDITS = {
    "lessons/s20/code.py": [(
        '''async def session(run: lesson.Run) -> None:
    async with Hub(run.transcript) as hub:
''',
        '''def veto(clients) -> None:
    """The hub's accept hook: refuse deploy, whatever else is connected."""
    if "deploy" in clients:
        raise ConfigError("server 'deploy': not allowed here")


async def session(run: lesson.Run) -> None:
    async with Hub(run.transcript, accept=veto) as hub:
''',
    ), (
        "from harness.connect import connect_tool\n",
        "from harness.connect import connect_tool\nfrom harness.errors import ConfigError\n",
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 0)
    refused = first_starting(run, "  <! ")
    contains(refused, "server 'deploy': not allowed here", "the refusal")
    that(any(line.startswith("warning: ") and "deploy" in line for line in run.lines),
         "a warning: line naming deploy", "none")
    has_line(run, "  <- hooks: Hooks run shell commands before or after a tool call; configure them in settings.json.")
