"""The reload line names the file and where the JSON broke (line and column), and says
nothing was changed; no `state:` line follows. A file that is not valid JSON changes
nothing: every server keeps running as it was (docs, deploy and the mirror), so the next
turn offers the same tools, `mcp__mirror__page_get` included, and no `pool:` line. The
next good save applies, as if the broken one never happened: the solution's scenario
saves the good file on the next turn, and the wiki's tools arrive.
"""

from expect import count, exit_code, has_line, line_at, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Copy `lessons/s29/scenario.yaml`; the scripted model writes the settings file with `write_file`: '
    'write it once with a JSON error on line 8, then once fixed. `harness/reload.py` reads each save.'
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    first = line_at(run, "assistant> I'll edit the MCP settings file in the workspace.")
    second = line_at(run, "assistant> The edit did not apply, so the mirror is still here; I'll read Home there and fix the file.")
    between = run.lines[first:second]
    reload = [line for line in between if "cline_mcp_settings.json" in line and not line.startswith("  ")]
    count(reload, 1, "line about the broken settings file")
    that("line 8" in reload[0] and "column" in reload[0], "the line to name line 8 and a column", show(reload[0]))
    none_of(between, lambda line: line.startswith(("state: ", "pool: ")), "state: or pool: line after the broken save")
    has_line(run, "  <- [acme wiki] page 'Home': Welcome to the wiki.")
    has_line(run, "  <- [acme.wiki] page 'Home': Welcome to the wiki.", "after the next good save")
