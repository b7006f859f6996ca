"""The scripted model refuses `mcp__jira__search` before the loop runs anything: the run
stops with exit code 1 and an `error:` line that names the scenario file, the turn and
call (`turns[0].tool_calls[0].name`) and the whole pool of that turn.

Why that is the better test: a call that fails *inside* the loop (as `unknown tool`) would
look like any other failed call in the transcript, and a scenario with a typo would still
"pass". Refusing before the call means a pinned transcript can only contain calls to
tools the model was really offered on that turn, so the transcript proves what the model
could see.
"""

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    assert run.code == 1, f"expected exit code 1, got {run.code}\n{run.text}"
    last = run.lines[-1]
    assert last.startswith("error: ") and "turns[0].tool_calls[0].name: 'mcp__jira__search' is not in this turn's pool" in last, last
    assert "mcp__deploy__trigger" in last and "read_file" in last, f"the error should list the whole pool: {last}"
    assert not any(line.startswith("  -> ") for line in run.lines), "nothing should have run"
