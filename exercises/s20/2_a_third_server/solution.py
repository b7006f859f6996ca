"""A server is a factory in `mock_servers/catalog.py` plus an entry in `SERVERS`; the
lesson offers the names in its `for` loop to the hub. `connect_mcp` reads the hub's
entries, so its "unknown server" answer and its input schema list `tickets` at once,
and once connected, `mcp__tickets__search` is in the next turn's pool.
"""

from expect import exit_code, has_line  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Add a factory like `docs()` to `mock_servers/catalog.py` and put it in `SERVERS`; in '
    '`lessons/s20/code.py`, the servers `connect_mcp` may connect are the names in the tuple the hub is given '
    '(`("docs", "deploy")`): add yours there.'
)

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
    exit_code(run, 0)
    has_line(run, "  <! unknown server 'jira'; available: deploy, docs, tickets")
    has_line(run, "pool: +mcp__tickets__search")
    has_line(run, "  <- TICKET-7: hooks run twice when 'hooks' is set (open)")
