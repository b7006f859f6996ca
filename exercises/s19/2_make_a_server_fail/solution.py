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

RUN = ("--scenario", "{here}/scenario.yaml")


def check(run):
    assert run.code == 0, run.text
    errors = [line for line in run.lines if line.startswith("  <! ")]
    assert len(errors) == 2, run.text
    assert "so the call was not sent" in errors[0] and "'moon' is not one of ['staging', 'production']" in errors[0], errors[0]
    assert errors[1] == "  <! server 'deploy': tool 'trigger': 'service' must be a non-empty string", errors[1]
    assert run.lines[-1].startswith("assistant> "), run.text
