"""harness/survey.py, the scripted model s35 runs on a config it has never seen: the edge cases a pinned run would not show."""

from __future__ import annotations

import anyio

from harness import survey
from harness.tools import Tool


async def _never(arguments):
    raise AssertionError("the survey model only names calls; the loop makes them")


def tool(server: str, name: str, read_only: bool = False, required: tuple[str, ...] = (), **properties) -> Tool:
    schema = {"type": "object", "properties": {p: properties.get(p, {"type": "string"}) for p in required}, "required": list(required)}
    return Tool(f"mcp__{server}__{name}", "", schema, _never, source=server, annotations={"readOnlyHint": True} if read_only else {},
                original=name)


def test_of_the_read_only_tools_the_one_with_fewest_required_arguments_in_pool_order():
    tools = [tool("git", "add", required=("paths",)), tool("git", "branch", True, ("repo_path", "kind")),
             tool("git", "diff", True, ("repo_path",)), tool("git", "status", True, ("repo_path",))]
    assert survey.pick(tools).original == "diff"
    assert survey.pick([tool("desk", "file_ticket"), tool("desk", "workspace")]) is None, "nothing read-only: nothing to call"


def test_arguments_come_from_the_schema_first():
    schema = {"type": "object", "required": ["env", "kind", "tz", "count", "flag", "free"],
              "properties": {"env": {"type": "string", "default": "staging"}, "kind": {"enum": ["local", "remote"]},
                             "tz": {"type": "string", "examples": ["Europe/Paris"]}, "count": {"type": ["integer", "null"]},
                             "flag": {"type": "boolean"}, "free": {"type": "string"}}}
    assert survey.arguments(schema) == {"env": "staging", "kind": "local", "tz": "Europe/Paris", "count": 1, "flag": False, "free": "example"}
    assert survey.arguments({"type": "object", "required": ["timezone", "repo_path"]}) == {"timezone": "UTC", "repo_path": "."}


def test_a_server_that_needs_a_sign_in_is_listed_not_signed_in():
    pool = [tool("docs", "authenticate", True), tool("deploy", "status", True, ("deployment_id",))]
    model = survey.Survey()
    first = anyio.run(model.reply, "", [], pool)
    assert [c.name for c in first.tool_calls] == ["mcp__deploy__status"], "the authenticate pseudo-tool is never called"
    messages = [{"role": "assistant", "content": [{"type": "tool_use", "id": first.tool_calls[0].id, "name": "mcp__deploy__status"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.tool_calls[0].id, "is_error": True}]}]
    last = anyio.run(model.reply, "", messages, pool)
    assert last.tool_calls == ()
    assert "- docs: needs a sign-in; not signed in (call mcp__docs__authenticate to sign in)" in last.text.splitlines()
    assert "- deploy: 1 tool, 1 read-only; called status: error" in last.text.splitlines()


def test_a_tool_gone_from_the_pool_since_the_plan_is_skipped():
    pool = [tool("a", "one", True), tool("b", "two", True)]
    model = survey.Survey()
    anyio.run(model.reply, "", [], pool)
    last = anyio.run(model.reply, "", [], pool[:1])  # b crashed meanwhile: its call is dropped, the summary follows
    assert last.tool_calls == () and last.text.startswith("Summary:")
