"""Whoever connects first wins: now `acme wiki` is connected and `acme.wiki` is refused.
The checker runs on the clients that *would* be live with the newcomer added, and the
newcomer is the one refused, so the order of `connect_mcp` calls decides. The refusal
still names both servers and both tools (`server 'acme wiki' tool 'page.get' and server
'acme.wiki' tool 'page.get'`), in the order they joined, so the user can see exactly
which two collide, and the model can keep using the one that is connected.
"""

from expect import equal, exit_code, first_starting, has_line  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "Connect `acme wiki` first, then `acme.wiki`, in your scenario's `connect_mcp` calls; "
    '`harness.naming.assign` refuses the second, and `connect_tool` reports it.'
)

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 0)
    has_line(run, "  <- Connected to 'acme wiki'. Discovered 1 tool: mcp__acme_wiki__page_get")
    equal(first_starting(run, "  <! "), "  <! 'acme.wiki' not connected: 'mcp__acme_wiki__page_get' would name both "
          "server 'acme wiki' tool 'page.get' and server 'acme.wiki' tool 'page.get'", "the refusal")
    has_line(run, "  <- [acme wiki] page 'Home': Welcome to the wiki.")
