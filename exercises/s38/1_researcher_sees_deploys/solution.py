"""Adding `mcp__deploy__status` to the researcher's `tools` alone changes nothing: its
`mcpServers` lists docs and handbook only, so deploy's tools are not in its pool at all, and
an allowlist can only narrow what the servers give. With `- deploy` under `mcpServers` too,
the researcher gets four tools: deploy's status (read-only) joins, and its trigger stays out,
since the allowlist names status alone. Deploy still runs once: the researcher uses the
lead's connection, so the process count is the same three before and after.
"""

from expect import exit_code, has_line  # exercises/expect.py: expected, found

HINT = (
    "Two fields of `lessons/s38/project/.claude/agents/researcher.md` decide its pool: `mcpServers` (which "
    "servers) and `tools` (which of their tools); see `Agent.may_use` and `Agent.allows` in `harness/agents.py`."
)

EDITS = {
    "lessons/s38/project/.claude/agents/researcher.md": [
        ("tools: mcp__docs__*, mcp__handbook__*", "tools: mcp__docs__*, mcp__handbook__*, mcp__deploy__status"),
        ("  - handbook\n", "  - handbook\n  - deploy\n"),
    ],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "[researcher] tools (4): mcp__deploy__status, mcp__docs__get_version, mcp__docs__search, "
                  "mcp__handbook__search_pages")
    has_line(run, "note: server processes after the run: 3")
