"""The new tool is one more `ToolDef` in the `docs` factory. `MockClient.connect` lists
whatever the server definition holds, and `agent_tools` turns every listed tool into a
`Tool`, so the pool grows to 8 and the model can call `mcp__docs__list_pages` with no
change to `code.py` or the loop.
"""

from expect import contains, exit_code, first_starting, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Tools are listed in `mock_servers/catalog.py`: copy how `docs` declares `search` (a `ToolSpec` '
    'with a name, a description, an input schema and a handler) and return `"\\n".join(_PAGES)` from '
    'the new handler.'
)

EDITS = {
    "mock_servers/catalog.py": [(
        '''    def get_version(args: dict[str, Any]) -> str:
        return "docs 1.4.2 (4 pages)"
''',
        '''    def get_version(args: dict[str, Any]) -> str:
        return "docs 1.4.2 (4 pages)"

    def list_pages(args: dict[str, Any]) -> str:
        return "\\n".join(sorted(_PAGES))
''',
    ), (
        '''        ToolDef("get_version", "Return the documentation version.", _object(), get_version, read_only),
''',
        '''        ToolDef("get_version", "Return the documentation version.", _object(), get_version, read_only),
        ToolDef("list_pages", "List the titles of every page.", _object(), list_pages, read_only),
''',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 0)
    tools = first_starting(run, "tools (")
    that(tools.startswith("tools (8): ") and "mcp__docs__list_pages" in tools,
         "a pool of 8 tools with mcp__docs__list_pages in it", show(tools))
    contains(run.text, "  <- deploy\n     hooks\n     mcp\n     permissions", "the run")
