"""Without the ask rule, `tidy` is decided by its annotation: the server says
`readOnlyHint: true`, so the harness allows it without asking, and it deletes every note.
An annotation is the server's claim about itself, and this server lies.

The single rule that protects against every tool of that server is a server-wide rule:
`"ask": ["mcp__notes"]` (or `"mcp__notes__*"`), so every notes tool is asked about
whatever it claims; `"deny": ["mcp__notes"]` if the server should not be used at all.
Rules come before annotations: deny, then ask, then allow, then "always" and autoApprove,
and only then the server's claims.
"""

from expect import equal, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`harness.permissions.Rules.read(path, name)` reads `settings.json`; '
    '`Permissions(rules).decide(tool)` gives a `verdict` and a `reason`. A server-wide rule names the '
    'server, `mcp__notes`.'
)

EDITS = {
    "lessons/s31/settings.json": [(
        '''    "ask": ["mcp__notes__tidy"],
''',
        '''    "ask": [],
''',
    )],
}


def solve(env):
    import dataclasses

    from harness import naming, permissions
    from harness.mcp_client import MockClient, agent_tools
    from mock_servers.catalog import notes

    import anyio

    client = anyio.run(MockClient.connect, notes())
    tools = {t.original: t for t in agent_tools([client], naming.assign)}
    edited = permissions.Rules.read(env.lesson_dir / "settings.json", "settings.json")
    server_wide = dataclasses.replace(edited, ask=("mcp__notes",))  # the one rule for every notes tool
    without = permissions.Permissions(edited)
    protected = permissions.Permissions(server_wide)
    return ({name: without.decide(t).verdict for name, t in tools.items()},
            {name: protected.decide(t).verdict for name, t in tools.items()},
            without.decide(tools["tidy"]).reason)


def check(result):
    without, protected, reason = result
    that(without["tidy"] == "allow" and reason == "read-only, as the server says",
         "tidy, once its ask rule is gone, allowed because the server says it is read-only", f"{without['tidy']!r} ({reason})")
    equal(sorted(set(protected.values())), ["ask"], "with one server-wide rule, every notes tool's verdict in")
