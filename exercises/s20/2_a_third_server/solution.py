"""A server is a factory in `mock_servers/catalog.py` plus an entry in `SERVERS`; the
lesson offers the names in its `for` loop to the hub. `connect_mcp` reads the hub's
entries, so its "unknown server" answer and its input schema list `tickets` at once,
and once connected, `mcp__tickets__search` is in the next turn's pool.
"""

EDITS = {
    "mock_servers/catalog.py": [(
        '''# --- acme wiki: names that need normalizing ------------------------------------------
''',
        '''# --- tickets (s20, exercise 2) -------------------------------------------------------


def tickets() -> ServerDef:
    def search(args: dict[str, Any]) -> str:
        query = _string(args.get("query"), "query")
        return f"TICKET-7: hooks run twice when '{query}' is set (open)"

    return ServerDef("tickets", "0.1.0", (
        ToolDef("search", "Search the ticket tracker.", _object(["query"], query={"type": "string"}), search, {"readOnlyHint": True}),
    ))


# --- acme wiki: names that need normalizing ------------------------------------------
''',
    ), (
        '''    "deploy": deploy,
''',
        '''    "deploy": deploy,
    "tickets": tickets,
''',
    )],
    "lessons/s20/code.py": [(
        'for name in ("docs", "deploy"):',
        'for name in ("docs", "deploy", "tickets"):',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    assert run.code == 0, run.text
    assert "  <! unknown server 'jira'; available: deploy, docs, tickets" in run.lines, run.text
    assert "pool: +mcp__tickets__search" in run.lines, run.text
    assert "  <- TICKET-7: hooks run twice when 'hooks' is set (open)" in run.lines, run.text
