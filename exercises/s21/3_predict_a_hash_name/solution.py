"""The 70-character tool `list_every_page_title_in_the_documentation_site_sorted_by_recent_edits`
gives `mcp__docs__` + 70 characters = 81, over 64. Rule 3 keeps the first 55 characters,
`mcp__docs__list_every_page_title_in_the_documentation_s`, then `_` and the first 8 hex
digits of SHA-256 of `docs` + NUL + the tool's original name. The prediction is computed
here with `hashlib` alone and compared with the `warning:` line; the second run prints the
same name, because nothing in the hash depends on the run.
"""

from expect import equal, exit_code, has_line, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'The hashed name is in `harness/naming.py`: the first 55 characters, `_`, then 8 hex digits of '
    '`hashlib.sha256(f"{server}\\x00{tool}".encode())`.'
)

TOOL = "list_every_page_title_in_the_documentation_site_sorted_by_recent_edits"
EDITS = {
    "mock_servers/catalog.py": [(
        '''        ToolDef("get_version", "Return the documentation version.", _object(), get_version, read_only),
''',
        '''        ToolDef("get_version", "Return the documentation version.", _object(), get_version, read_only),
        ToolDef("list_every_page_title_in_the_documentation_site_sorted_by_recent_edits", "List page titles.", _object(),
                lambda args: "\\n".join(sorted(_PAGES)), read_only),
''',
    )],
}


def solve(env):
    import hashlib

    full = f"mcp__docs__{TOOL}"
    predicted = full[:55] + "_" + hashlib.sha256(f"docs\x00{TOOL}".encode()).hexdigest()[:8]
    runs = [env.run("--scenario", "{here}/scenario.yaml") for _ in range(2)]
    return {"tool": TOOL, "predicted": predicted, "runs": runs}


def check(result):
    equal(len(result["tool"]), 70, "a tool name of length")
    warning = (f"warning: 'docs' tool '{result['tool']}': name is 81 characters, over 64; "
               f"using '{result['predicted']}'")
    first, second = result["runs"]
    exit_code(first, 0)
    has_line(first, warning)
    that(first.text == second.text, "two runs to print the same names", "two different transcripts")
