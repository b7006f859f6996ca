"""Whoever connects first wins: now `acme wiki` is connected and `acme.wiki` is refused.
The checker runs on the clients that *would* be live with the newcomer added, and the
newcomer is the one refused, so the order of `connect_mcp` calls decides. The refusal
still names both servers and both tools (`server 'acme wiki' tool 'page.get' and server
'acme.wiki' tool 'page.get'`), in the order they joined, so the user can see exactly
which two collide, and the model can keep using the one that is connected.
"""

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    assert run.code == 0, run.text
    assert "  <- Connected to 'acme wiki'. Discovered 1 tool: mcp__acme_wiki__page_get" in run.lines, run.text
    refusal = next(line for line in run.lines if line.startswith("  <! "))
    assert refusal == ("  <! 'acme.wiki' not connected: 'mcp__acme_wiki__page_get' would name both "
                       "server 'acme wiki' tool 'page.get' and server 'acme.wiki' tool 'page.get'"), refusal
    assert "  <- [acme wiki] page 'Home': Welcome to the wiki." in run.lines, run.text
