"""The scripted model refuses `mcp__jira__search` before the loop runs anything: the run
stops with exit code 1 and an `error:` line that names the scenario file, the turn and
call (`turns[0].tool_calls[0].name`) and the whole pool of that turn.

Why that is the better test: a call that fails *inside* the loop (as `unknown tool`) would
look like any other failed call in the transcript, and a scenario with a typo would still
"pass". Refusing before the call means a pinned transcript can only contain calls to
tools the model was really offered on that turn, so the transcript proves what the model
could see.
"""

from expect import contains, exit_code, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Put `name: mcp__jira__search` in a `tool_calls` entry of your scenario; the check that refuses '
    'it is `ScriptedModel` in `harness/model.py`.'
)

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 1)
    last = run.lines[-1]
    contains(last, "turns[0].tool_calls[0].name: 'mcp__jira__search' is not in this turn's pool", "the last line")
    that(last.startswith("error: ") and "mcp__deploy__trigger" in last and "read_file" in last,
         "the error line to list the whole pool", show(last))
    none_of(run.lines, lambda line: line.startswith("  -> "), "tool call to run (-> lines)")
