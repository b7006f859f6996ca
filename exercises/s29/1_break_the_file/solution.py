"""The reload line names the file and where the JSON broke (line and column), and says
nothing was changed; no `state:` line follows. A file that is not valid JSON changes
nothing: every server keeps running as it was (docs, deploy and the mirror), so the next
turn offers the same tools, `mcp__mirror__page_get` included, and no `pool:` line. The
next good save applies, as if the broken one never happened: the solution's scenario
saves the good file on the next turn, and the wiki's tools arrive.
"""

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    assert run.code == 0, run.text
    first = run.lines.index("assistant> I'll edit the MCP settings file in the workspace.")
    second = run.lines.index("assistant> The edit did not apply, so the mirror is still here; I'll read Home there and fix the file.")
    between = run.lines[first:second]
    reload = [line for line in between if "cline_mcp_settings.json" in line and not line.startswith("  ")]
    assert len(reload) == 1 and "line 8" in reload[0] and "column" in reload[0], reload
    assert not any(line.startswith(("state: ", "pool: ")) for line in between), "a broken file changes nothing"
    assert "  <- [acme wiki] page 'Home': Welcome to the wiki." in run.lines, run.text
    assert "  <- [acme.wiki] page 'Home': Welcome to the wiki." in run.lines, "the next good save applies"
