"""The run stops before anything is called, with exit code 1. The error lists the pool
of turn 1: `read_file, write_file, list_dir, connect_mcp`. `mcp__docs__search` is not in
it because the loop asked `pool()` for this turn's tools *before* the model replied, and
at that moment docs was still `pending`: its tools only exist once `connect_mcp` has run,
and they join the pool the loop builds for the *next* turn. The scripted model refuses
the call outright (a live model would get an `unknown tool` error result instead), so
even `connect_mcp`, the first call of that reply, never runs.
"""

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    assert run.code == 1, f"expected exit code 1, got {run.code}\n{run.text}"
    last = run.lines[-1]
    assert "turns[0].tool_calls[1].name: 'mcp__docs__search' is not in this turn's pool" in last, last
    assert last.endswith("(read_file, write_file, list_dir, connect_mcp)"), last
    assert not any(line.startswith("  -> ") for line in run.lines), "the scripted model refuses the whole reply"
