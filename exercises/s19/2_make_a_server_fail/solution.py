"""Two different layers refuse the two calls.

- `environment: moon` never reaches the server. The tool's input schema says
  `enum: [staging, production]`, and `agent_tools` checks every call against the server's
  own schema before sending it (`harness.schemas.checker`). The model reads a `ToolError`:
  "arguments do not match the tool's input schema, so the call was not sent", naming the
  rule that failed.
- `service: ""` passes the schema (it is a string), so the call reaches the server. Its
  `trigger` handler calls `_string`, which raises `ValueError("'service' must be a
  non-empty string")`. `MockClient.call_tool` catches that and returns a `ToolResult` with
  `is_error` set and `server 'deploy': tool 'trigger'` as its origin, as a real server's
  `isError` result would be.

Both are `<!` lines, both go back to the model as error results, and the run ends
normally (exit code 0).
"""

from expect import contains, equal, exit_code, show, starting, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Copy a `tool_calls` entry of `lessons/s19/scenario.yaml` and give the first turn two calls of '
    "`mcp__deploy__trigger`; the server's check is `_string` in `mock_servers/catalog.py`, the "
    "schema's is `harness.schemas.checker`."
)

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    exit_code(run, 0)
    errors = starting(run, "  <! ", 2)
    contains(errors[0], "so the call was not sent", "the first error line (the schema's refusal)")
    contains(errors[0], "'moon' is not one of ['staging', 'production']", "the first error line")
    equal(errors[1], "  <! server 'deploy': tool 'trigger': 'service' must be a non-empty string", "the second error line")
    that(run.lines[-1].startswith("assistant> "), "the run to end with the model's answer (assistant> ...)", show(run.lines[-1]))
