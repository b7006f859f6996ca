"""Connect mail with the others (``STILL_STARTING`` empty) and its 40 tools join the deferred
pool: 240 MCP tools, 238 deferred. `select:mcp__mail__send_email` now loads the tool: the
answer is a `tool_reference` block, and the system prompt no longer lists a server that is
not connected. (The scripted model still says mail is not connected: a script does not read
its results.)
"""

from expect import contains, exit_code, has_line, none_of  # exercises/expect.py: expected, found

HINT = (
    "Start the mail server with the others: `STILL_STARTING` in `lessons/s36/code.py` names the servers the lesson leaves "
    "pending; `ToolSearch`'s miss (`harness/toolsearch.py`) names them."
)

EDITS = {
    "lessons/s36/code.py": [(
        'STILL_STARTING = ("mail",)',
        "STILL_STARTING = ()",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "  <- tool_reference: mcp__mail__send_email")
    contains(run.text, "240 MCP tools", "the run")
    contains(run.text, "238 tools deferred", "the run")
    none_of(run.lines, lambda line: "Not connected, so not searchable yet" in line, "line saying mail is not searchable yet")
