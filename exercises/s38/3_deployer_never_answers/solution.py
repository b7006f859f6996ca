"""The deployer's file gives it `maxTurns: 4`. After its fourth turn the loop stops it with a
warning that begins `[deployer]`, and the task's result is an error the lead reads: the agent
stopped after 4 turns (its budget) without a final answer. Its prod server, started for it,
is stopped all the same. The lead goes on: it checks the deployment itself. Without
`maxTurns` the budget is `MAX_TURNS` (8, `harness/subagents.py`), never the lead's own.
"""

from expect import exit_code, has_line  # exercises/expect.py: expected, found

HINT = (
    "Write a scenario whose deployer calls `mcp__deploy__status` on every turn and never answers; run "
    "`python lessons/s38/code.py --scenario YOUR_FILE`. The budget is `maxTurns` in its file."
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "[deployer] warning: stopped after 4 turns without a final answer")
    has_line(run, "  <! agent 'deployer' stopped after 4 turns (its budget) without a final answer")
    has_line(run, "[deployer] state: prod: connected -> closed: agent 'deployer' is done")
