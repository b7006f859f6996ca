"""With `"tasks": "off"` in media's entry the harness does not declare the tasks extension on
media's requests, so the server may not answer with a task handle, and render_video runs
only as one: the call is refused with -32021, and s34's era side says so and leaves the tool
out from then on. Nothing else changes: the handbook's forms and the deploy task are as
before, since the field is per server.
"""

from expect import exit_code, first_starting, none_of  # exercises/expect.py: expected, found

HINT = (
    "Give media's entry in `lessons/s39/cline_mcp_settings.json` `\"tasks\": \"off\"` instead of its list of long tools "
    "(`harness/config/task_policy.py`, `TaskPolicy.parse`)."
)

EDITS = {
    "lessons/s39/cline_mcp_settings.json": [('"tasks": ["render_video"]', '"tasks": "off"')],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    first_starting(run, "  <! server 'media': tool 'render_video': it can only run as a task")
    none_of(run.lines, lambda line: "task 'render_video-1'" in line, "line about a render_video task")
    first_starting(run, "note: deploy: task 'trigger-1' cancelled (tasks/cancel sent)")
