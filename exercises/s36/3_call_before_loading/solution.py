"""The first call never reaches the server: the harness refuses a deferred tool that no
search has loaded, and the error says which query loads it
(`select:mcp__db__run_query`). The model runs that query, gets one `tool_reference` back,
and the same call then goes through. Against the real API the first call could not even be
made: a deferred tool is not in the model's context until a `tool_reference` loads it; the
refusal is what a scripted (or confused) model meets instead. The refusal comes before the
permission check, so the user is asked only about the call that runs (run_query is not
marked read-only; the scenario's user answers yes).
"""

from expect import exit_code, first_starting, has_line  # exercises/expect.py: expected, found

HINT = (
    "Write a scenario whose first turn calls `mcp__db__run_query` before any `tool_search`, then searches "
    "`select:mcp__db__run_query` and calls it again; run `python lessons/s36/code.py --scenario YOUR_FILE`."
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "  <! mcp__db__run_query is deferred and not loaded: call tool_search with query "
                  "'select:mcp__db__run_query' first")
    has_line(run, "  <- tool_reference: mcp__db__run_query")
    first_starting(run, "  <- db.run_query: ok")
