"""Without `--task-end never` and the 10 s poll interval, deploy's task ends after three polls
20 ms apart, well inside its 1 s call timeout (each new status starts the timeout again):
the model gets `deployed api to production`, no `tasks/cancel` is sent, and the notes show
the three steps.
"""

from expect import exit_code, has_line, none_of  # exercises/expect.py: expected, found

HINT = (
    "Take `\"--task-end\", \"never\", \"--task-poll-ms\", \"10000\"` out of deploy's `args` in "
    "`lessons/s39/cline_mcp_settings.json`; `mock_servers/tasks.py` says what the defaults are."
)

EDITS = {
    "lessons/s39/cline_mcp_settings.json": [(', "--task-end", "never", "--task-poll-ms", "10000"]', "]")],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "note: deploy: trigger: task 'trigger-1' working: deploying: step 1 of 3")
    has_line(run, "  <- deployed api to production")
    none_of(run.lines, lambda line: "tasks/cancel" in line, "line about tasks/cancel")
