"""With `--task-end fail` the render fails at its last step: the task's status becomes `failed`,
with a JSON-RPC error (-32603) as the task's `error`. The harness does not turn that into a
tool result: it is an error result naming the task and the server's error, which the model
reads as it reads any failed call. The restart still happens first (the third poll), and the
task is polled again after it.
"""

from expect import exit_code, first_starting, has_line  # exercises/expect.py: expected, found

HINT = (
    "Add `\"--task-end\", \"fail\"` to media's `args` in `lessons/s39/cline_mcp_settings.json` (the switches are in "
    "`mock_servers/tasks.py`); a failed task's error is said by `Following._outcome` in `harness/tasks.py`."
)

EDITS = {
    "lessons/s39/cline_mcp_settings.json": [('"--crash-on-poll", "3"]', '"--crash-on-poll", "3", "--task-end", "fail"]')],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    first_starting(run, "note: media: render_video: the connection was lost while task 'render_video-1' runs")
    has_line(run, "  <! server 'media': tool 'render_video': task 'render_video-1' failed: error -32603: out of disk space at scene 3")
