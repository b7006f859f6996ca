"""The warning names the server, the tool and what was found: `a hidden character U+200B
(ZERO WIDTH SPACE)`, and says the description is passed on unchanged, to review it or
deny the tool with a rule. The model receives the description as the server sent it,
zero-width space included: the harness flags, it does not rewrite. A silent rewrite would
hide the problem from the user, who is the one to decide (a rule), and would make the
harness guess which text is "safe".
"""

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
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("server 'docs': tool 'search': a hidden character U+200B (ZERO WIDTH SPACE)"), warnings[0]
    assert "passed on unchanged" in warnings[0]
    assert "\u200b" in description, "the model gets the description unchanged"
