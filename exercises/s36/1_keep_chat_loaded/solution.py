"""With `"toolSearch": "off"` in chat's entry, chat's 40 tools are sent loaded and the other four
servers' tools stay deferred: the first note says search is on for cloud, db, storage and
tracker only, and the model reads 45 definitions up front instead of 6 (the three file
tools, `tool_search`, chat's 40 and the tracker's always-loaded `get_issue`). The search for a
direct message now finds nothing to load (it searches deferred tools only, and chat's are
all loaded already), so the answer is a miss; the model could have called
`mcp__chat__send_direct_message` straight away. A server's field wins over the stack's
policy, in both directions.
"""

from expect import contains, exit_code, first_starting  # exercises/expect.py: expected, found

HINT = (
    "Add `\"toolSearch\": \"off\"` to chat's entry in `lessons/s36/cline_mcp_settings.json`: a server's own field wins "
    "over the stack's policy (`harness/config/search_policy.py`, `Mode.parse`)."
)

EDITS = {
    "lessons/s36/cline_mcp_settings.json": [(
        '"args": ["-m", "mock_servers.fleet", "chat", "--transport", "stdio", "--tools", "40"]',
        '"args": ["-m", "mock_servers.fleet", "chat", "--transport", "stdio", "--tools", "40"],\n      "toolSearch": "off"',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    first = first_starting(run, "note: tool search: on")
    contains(first, "note: tool search: on for cloud, db, storage, tracker (", "the first tool-search note")
    contains(first, "the model reads 45 definitions up front", "the first tool-search note")
    contains(run.text, "note: tool search 'send a direct message': no match", "the run")
