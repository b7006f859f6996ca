"""The hub asks `accept` with the clients that *would* be live, after it has connected the
newcomer. When `accept` raises, the hub closes that client, marks deploy `failed`, prints
a `warning:` naming it, and `connect_mcp` returns the reason as an error result: the
model reads `not allowed here`. Nothing else changes: docs connects next and answers, so
a veto costs exactly one server.
"""

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
    assert run.code == 0, run.text
    refused = next(line for line in run.lines if line.startswith("  <! "))
    assert "server 'deploy': not allowed here" in refused, refused
    assert any(line.startswith("warning: ") and "deploy" in line for line in run.lines), run.text
    assert "  <- hooks: Hooks run shell commands before or after a tool call; configure them in settings.json." in run.lines, run.text
