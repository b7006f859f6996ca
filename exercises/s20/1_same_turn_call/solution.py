"""The run stops before anything is called, with exit code 1. The error lists the pool
of turn 1: `read_file, write_file, list_dir, connect_mcp`. `mcp__docs__search` is not in
it because the loop asked `pool()` for this turn's tools *before* the model replied, and
at that moment docs was still `pending`: its tools only exist once `connect_mcp` has run,
and they join the pool the loop builds for the *next* turn. The scripted model refuses
the call outright (a live model would get an `unknown tool` error result instead), so
even `connect_mcp`, the first call of that reply, never runs.
"""

from expect import contains, exit_code, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Give one turn two `tool_calls`: `connect_mcp` with `{name: docs}`, then `mcp__docs__search`; the '
    'pool a turn is checked against is fixed when the turn starts (`harness/loop.py`).'
)

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 1)
    last = run.lines[-1]
    contains(last, "turns[0].tool_calls[1].name: 'mcp__docs__search' is not in this turn's pool", "the last line")
    that(last.endswith("(read_file, write_file, list_dir, connect_mcp)"),
         "the error to list the pool of that turn, (read_file, write_file, list_dir, connect_mcp)", show(last))
    none_of(run.lines, lambda line: line.startswith("  -> "), "tool call to run (the scripted model refuses the whole reply)")
