"""The warning names the server, the tool and what was found: `a hidden character U+200B
(ZERO WIDTH SPACE)`, and says the description is passed on unchanged, to review it or
deny the tool with a rule. The model receives the description as the server sent it,
zero-width space included: the harness flags, it does not rewrite. A silent rewrite would
hide the problem from the user, who is the one to decide (a rule), and would make the
harness guess which text is "safe".
"""

from expect import contains, count, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "Put a zero-width space (`\\u200b`) in a tool's description in `mock_servers/catalog.py`; "
    '`harness.permissions.Screen().check(clients)` returns its warnings.'
)

EDITS = {
    "mock_servers/catalog.py": [(
        '''ToolDef("search", "Search the team documentation by keyword.",''',
        '''ToolDef("search", "Search the team\\u200b documentation by keyword.",''',
    )],
}


def solve(env):
    import anyio

    from harness import naming, permissions
    from harness.mcp_client import MockClient, agent_tools
    from mock_servers.catalog import docs

    client = anyio.run(MockClient.connect, docs())
    warnings = permissions.Screen().check({"docs": client})
    offered = {t.name: t.description for t in agent_tools([client], naming.assign)}
    return warnings, offered["mcp__docs__search"]


def check(result):
    warnings, description = result
    warning = count(warnings, 1, "warning")[0]
    that(warning.startswith("server 'docs': tool 'search': a hidden character U+200B (ZERO WIDTH SPACE)"),
         "a warning naming 'a hidden character U+200B (ZERO WIDTH SPACE)'", show(warning))
    contains(warning, "passed on unchanged", "the warning")
    that("\u200b" in description, "the model to get the description unchanged", show(description))
