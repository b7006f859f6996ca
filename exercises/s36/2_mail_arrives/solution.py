"""Connect mail with the others (``STILL_STARTING`` empty) and its 40 tools join the deferred
pool: 240 MCP tools, 238 deferred. `select:mcp__mail__send_email` now loads the tool: the
answer is a `tool_reference` block, and the system prompt no longer lists a server that is
not connected. (The scripted model still says mail is not connected: a script does not read
its results.)
"""

EDITS = {
    "lessons/s36/code.py": [(
        'STILL_STARTING = ("mail",)',
        "STILL_STARTING = ()",
    )],
}
RUN = ()
SLOW = True


def check(run):
    assert run.code == 0, run.text
    assert "  <- tool_reference: mcp__mail__send_email" in run.text, run.text
    assert "240 MCP tools" in run.text and "238 tools deferred" in run.text, run.text
    assert "Not connected, so not searchable yet" not in run.text
