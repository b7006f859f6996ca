"""harness.schemas against a local Messages API stand-in (issue 8, item 12).

The stand-in (tests/messages_api.py) refuses a request whose tools the real API is
reported to refuse. These tests show that it refuses the servers' raw schemas, that the
pool the harness builds from the same servers is accepted, that a call is checked against
the server's own schema before it is sent, and that a ``--live`` run through the real
``anthropic`` SDK works end to end against it.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import anyio
import pytest
from conftest import run_lesson
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import STEP
from messages_api import MessagesAPI, Refused, _check_tools
from test_app import cli

from harness import naming, schemas
from harness.errors import ModelError, ToolError
from harness.mcp_client import agent_tools
from harness.model import AnthropicModel, Scenario
from harness.results import ToolResult, text_block
from harness.tools import Tool

sys.path.insert(0, str(Path(__file__).resolve().parent / "servers"))
from combinators import TYPED, UNTYPED  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_process_left")
ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "servers"
EVERY = TYPED + UNTYPED
TOP_LEVEL = "input_schema does not support oneOf, allOf, or anyOf at the top level"
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def schema_of(name: str) -> dict:
    return next(t["inputSchema"] for t in EVERY if t["name"] == name)


class Server:
    """A client over the combinators' listing, in process; it records what reaches it."""

    def __init__(self, tools=EVERY) -> None:
        self.name, self.tools, self.received = "forms", [dict(t) for t in tools], []

    async def call_tool(self, tool, arguments):
        self.received.append((tool, arguments))
        return ToolResult((text_block(f"{tool} got {json.dumps(arguments, sort_keys=True)}"),))


def refusal(tools: list[dict]) -> str | None:
    """What the stand-in says about these tool definitions (None: accepted)."""
    try:
        _check_tools(tools)
    except Refused as refused:
        return refused.message
    return None


# --- offered: a shape the API accepts ---------------------------------------------------------


def test_an_accepted_schema_is_offered_as_the_server_sent_it():
    schema = schema_of("say")
    assert schemas.offered(schema) is schema, "an accepted schema must be the same object: nothing copied, nothing changed"


@pytest.mark.parametrize("tool", EVERY, ids=lambda t: t["name"])
def test_the_stand_in_refuses_the_raw_schema_and_accepts_the_offered_one(tool):
    raw = [{"name": tool["name"], "description": "", "input_schema": tool["inputSchema"]}]
    offered = [{"name": tool["name"], "description": "", "input_schema": schemas.offered(tool["inputSchema"])}]
    if tool["name"] != "say":
        said = refusal(raw)
        assert said in (f"tools.0.custom.input_schema: {TOP_LEVEL}",), f"expected the API's top-level refusal, got {said!r}"
    assert refusal(offered) is None, f"expected the offered schema to be accepted, got {refusal(offered)!r}"


def test_a_top_level_anyof_of_required_becomes_a_stated_rule():
    offered = schemas.offered(schema_of("lookup"))
    assert offered["properties"] == {"id": {"type": "string"}, "path": {"type": "string"}}
    assert "required" not in offered, "neither property is needed by every call"
    assert offered["description"] == ('The arguments must match at least one of these 2 schemas (top-level anyOf, checked before the call): '
                                      '(1) {"required": ["id"]} (2) {"required": ["path"]}')


def test_a_discriminated_union_moves_its_shapes_down_to_the_properties():
    offered = schemas.offered(schema_of("shape"))
    assert offered["type"] == "object" and "oneOf" not in offered
    assert offered["properties"] == {"kind": {"anyOf": [{"const": "circle"}, {"const": "square"}]},
                                     "radius": {"type": "number"}, "side": {"type": "number"}}
    assert offered["required"] == ["kind"], "only what both branches require is required of every call"
    assert offered["description"].startswith("The arguments must match exactly one of these 2 schemas (top-level oneOf")


def test_a_plain_allof_is_merged_exactly_and_needs_no_words():
    offered = schemas.offered(schema_of("pair"))
    assert offered == {"type": "object", "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
                       "required": ["name", "count"]}


def test_refs_into_defs_are_followed_and_the_defs_kept():
    offered = schemas.offered(schema_of("pet"))
    assert offered["properties"] == {"meows": {"type": "boolean"}, "barks": {"type": "boolean"}}
    assert "$defs" in offered and '"required": ["meows"]' in offered["description"]


def test_the_servers_description_is_kept_before_the_rule():
    offered = schemas.offered({"description": "Pick one.", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})
    assert offered["description"].startswith("Pick one.\n\nThe arguments must match at least one")


@pytest.mark.parametrize("schema, note", [
    ({"type": ["object", "null"], "properties": {"a": {"type": "string"}}}, None),
    ({"type": "string"}, 'The server\'s schema asks for type "string": tool arguments are always an object, so every call will be refused.'),
    ({"anyOf": {"required": ["a"]}}, "malformed top-level anyOf"),
    ({"oneOf": [{"$ref": "#/$defs/missing"}, {"$ref": "https://example.com/s.json"}]}, '{"$ref": "#/$defs/missing"}'),
    ("not a schema", None),
])
def test_odd_schemas_still_give_an_accepted_shape(schema, note):
    offered = schemas.offered(schema)
    assert refusal([{"name": "t", "input_schema": offered}]) is None, f"expected {offered} to be accepted"
    if note is None:
        assert "description" not in offered
    else:
        assert note in offered["description"], offered["description"]


def test_a_huge_rule_is_cut_and_says_so():
    branches = [{"required": [f"field_{i}"]} for i in range(500)]
    description = schemas.offered({"type": "object", "anyOf": branches})["description"]
    assert len(description) < schemas.RULE_CHARS + 40 and description.endswith(" characters)"), description[-80:]
    assert "... (cut: " in description


SAMPLES = [
    {}, {"id": "a"}, {"path": "p"}, {"id": "a", "path": 5}, {"id": 3},
    {"kind": "circle", "radius": 1}, {"kind": "square", "side": 2}, {"kind": "circle"}, {"kind": "tri", "radius": 1},
    {"kind": "square", "side": 2, "radius": 1}, {"name": "n", "count": 2}, {"name": "n"}, {"count": "2", "name": "n"},
    {"meows": True}, {"barks": False}, {"meows": True, "barks": True}, {"meows": "yes"}, {"text": "hi"}, {"text": 1},
]


@pytest.mark.parametrize("tool", EVERY, ids=lambda t: t["name"])
def test_the_offered_schema_never_refuses_what_the_servers_accepts(tool):
    from jsonschema.validators import validator_for

    original, offered = tool["inputSchema"], schemas.offered(tool["inputSchema"])
    before, after = (validator_for(s)(s) for s in (original, offered))
    wrongly = [args for args in SAMPLES if before.is_valid(args) and not after.is_valid(args)]
    assert not wrongly, f"the offered schema must be looser or equal: it refuses {wrongly}"


# --- checker: the server's own schema, before the call ----------------------------------------


@pytest.mark.parametrize("tool, arguments, problem", [
    ("lookup", {"id": "a"}, None),
    ("lookup", {}, "$: matches none of the 2 alternatives of the top-level anyOf (listed in the tool's input schema description): "
                   "(1) $: 'id' is a required property (rule: anyOf/0/required); (2) $: 'path' is a required property (rule: anyOf/1/required)"),
    ("shape", {"kind": "circle", "radius": 2}, None),
    ("shape", {"kind": "circle", "radius": 2, "side": 1}, "(1) $: Additional properties are not allowed ('side' was unexpected) "
                                                          "(rule: oneOf/0/additionalProperties)"),
    ("pair", {"name": "n"}, "$: 'count' is a required property (rule: allOf/1/required)"),
    ("pet", {"meows": True, "barks": True}, "is valid under each of"),
    ("say", {"text": 5}, "$.text: 5 is not of type 'string' (rule: properties/text/type)"),
])
def test_a_call_is_checked_against_the_servers_own_schema(tool, arguments, problem):
    said = schemas.checker(schema_of(tool))(arguments)
    if problem is None:
        assert said is None, f"expected {arguments} to pass, got {said!r}"
    else:
        assert said is not None and problem in said, f"expected {problem!r} in {said!r}"


@pytest.mark.parametrize("schema", [{"type": "strnig"}, {"type": "object", "properties": {"a": {"$ref": "#/$defs/nowhere"}}},
                                    {"$ref": "https://example.com/never-fetched.json"}, "not a schema", None])
def test_a_schema_the_checker_cannot_apply_leaves_the_call_to_the_server(schema):
    assert schemas.checker(schema)({"a": 1}) is None


def test_a_refusal_quoting_long_arguments_is_cut():
    said = schemas.checker(schema_of("say"))({"text": ["x" * 5000]})
    assert said is not None and len(said) < schemas.PROBLEM_CHARS + 200 and "(cut: " in said, said


def test_agent_tools_offer_accepted_schemas_and_never_send_a_call_that_breaks_the_servers():
    server = Server()
    tools = {t.name: t for t in agent_tools([server], naming.assign)}
    assert refusal([t.spec() for t in tools.values()]) is None

    async def main():
        ok = await tools["mcp__forms__lookup"].call({"path": "/a"})
        with pytest.raises(ToolError) as caught:
            await tools["mcp__forms__lookup"].call({"id": 7})
        return ok, str(caught.value)

    ok, refused = anyio.run(main)
    assert ok.text() == 'lookup got {"path": "/a"}'
    assert refused.startswith("server 'forms': tool 'lookup': arguments do not match the tool's input schema, so the call was not sent: $")
    assert server.received == [("lookup", {"path": "/a"})], "the refused call must never reach the server"


# --- the stand-in over HTTP, and the live model through the SDK ---------------------------------


def _post(url: str, body: dict, headers: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url + "/v1/messages", json.dumps(body).encode(), {"content-type": "application/json", **headers})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
    try:
        with opener.open(request, timeout=STEP) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


SCRIPT = Scenario.parse({"prompt": "go", "turns": [{"text": "done"}]}, "script")
HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}


def test_the_stand_in_answers_as_the_api_does():
    raw = [{"name": "mcp__forms__lookup", "description": "", "input_schema": schema_of("lookup")}]
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    with MessagesAPI(SCRIPT) as api:
        assert _post(api.url, body, {"anthropic-version": "2023-06-01"})[0] == 401
        status, answer = _post(api.url, {**body, "tools": raw}, HEADERS)
        assert (status, answer["error"]) == (400, {"type": "invalid_request_error", "message": f"tools.0.custom.input_schema: {TOP_LEVEL}"})
        status, answer = _post(api.url, {**body, "tools": [{**raw[0], "input_schema": schemas.offered(raw[0]["input_schema"])}]}, HEADERS)
        assert status == 200 and answer["content"] == [{"type": "text", "text": "done"}] and answer["stop_reason"] == "end_turn"


@pytest.fixture
def live_env(monkeypatch):
    """The SDK's environment for a run against the stand-in: its URL, a made-up key, no proxy."""
    def point(url: str) -> None:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in (*PROXIES, "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_MODEL"):
            monkeypatch.delenv(name, raising=False)

    return point


def test_the_live_model_is_refused_the_raw_pool_and_accepted_the_harnesss(live_env):
    server = Server()
    raw = [Tool(f"mcp__forms__{t['name']}", t.get("description", ""), t["inputSchema"], server.call_tool, source="forms") for t in EVERY]
    converted = agent_tools([server], naming.assign)
    with MessagesAPI(SCRIPT) as api:
        live_env(api.url)
        model = AnthropicModel("claude-test")

        async def main():
            with pytest.raises(ModelError) as caught:
                await model.reply("s", [{"role": "user", "content": "go"}], raw)
            return str(caught.value), await model.reply("s", [{"role": "user", "content": "go"}], converted)

        refused, reply = anyio.run(main)
    assert "BadRequestError" in refused and TOP_LEVEL in refused, refused
    assert reply.text == "done"


@pytest.mark.parametrize("lesson", ["s20", "s23"])
def test_a_live_lesson_run_against_the_stand_in_gives_the_pinned_transcript(lesson, live_env):
    """The lesson's own scenario, played by the stand-in through the real SDK and HTTP, prints
    exactly what the scripted model prints: the same pool, the same calls, the same results."""
    with MessagesAPI.from_file(ROOT / "lessons" / lesson / "scenario.yaml") as api:
        live_env(api.url)
        code, text = run_lesson(lesson, "--live", "--model", "claude-stand-in")
        assert [e.status for e in api.exchanges] == [200] * len(api.exchanges), api.refusals
    assert code == 0, text
    pinned = (ROOT / "tests" / "snapshots" / lesson / "default.transcript").read_text(encoding="utf-8")
    assert text == pinned, "a live run against the stand-in must print the offline run's transcript"


CHAT = {"prompt": "Look up record a1, then try without an id, then pair n with 2.", "turns": [
    {"text": "Looking it up.", "tool_calls": [{"name": "mcp__forms__lookup", "input": {"id": "a1"}},
                                              {"name": "mcp__forms__lookup", "input": {}},
                                              {"name": "mcp__forms__pair", "input": {"name": "n", "count": 2}}]},
    {"text": "Record a1 found; the second lookup needs an id or a path."}]}


def test_the_cli_chats_live_with_a_combinator_server_through_the_stand_in(tmp_path, live_env):
    """As a user would: ``python -m harness --config F chat --live`` against the stand-in (in process: tests/test_app.py)."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"forms": {"command": sys.executable, "args": [str(SERVERS / "combinators.py")]}}}))
    scenario = tmp_path / "chat.yaml"
    scenario.write_text(json.dumps(CHAT))
    with MessagesAPI.from_file(scenario) as api:
        live_env(api.url)
        done = cli("--config", str(config), "chat", "--live", "--model", "claude-stand-in", "--prompt", CHAT["prompt"], "--yes",
                   cwd=tmp_path)  # lookup is not marked read-only: chat would ask, and with no terminal the answer is no
        statuses = [e.status for e in api.exchanges]
        sent = api.exchanges[0].request["tools"] if api.exchanges else []
    assert done.returncode == 0 and "Traceback" not in done.stderr, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert statuses == [200, 200], f"expected two accepted requests, got {statuses}: {api.refusals}"
    assert {t["name"] for t in sent} == {"mcp__forms__lookup", "mcp__forms__pair", "mcp__forms__say"}
    lines = done.stdout.splitlines()
    results = [line for line in lines if line.startswith(("  <- ", "  <! "))]
    assert results[0] == '  <- lookup got {"id": "a1"}'
    assert results[1].startswith("  <! server 'forms': tool 'lookup': arguments do not match the tool's input schema, so the call was not sent: "
                                 "$: matches none of the 2 alternatives of the top-level anyOf"), results[1]
    assert results[2] == '  <- pair got {"count": 2, "name": "n"}'
    assert "assistant> Record a1 found; the second lookup needs an id or a path." in lines, done.stdout


# -- the plain fast path (schemas.plainly_valid): it may only ever agree with jsonschema's "valid" --

PLAIN_CASES = [
    ({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, [{"q": "x"}, {}, {"q": 1}, {"q": None}, {"q": "x", "more": 1}]),
    ({"type": "object", "properties": {"n": {"type": "integer"}, "f": {"type": "number"}, "b": {"type": "boolean"}}},
     [{"n": 1}, {"n": True}, {"n": 1.0}, {"n": 1.5}, {"f": 2}, {"f": 2.5}, {"f": False}, {"b": True}, {"b": 1}, {"b": 0}]),
    ({"type": "object", "properties": {"e": {"type": "string", "enum": ["a", "b"], "default": "a"}}}, [{"e": "a"}, {"e": "c"}, {"e": 1}, {}]),
    ({"type": "object", "properties": {"e": {"enum": [1, True, "a"]}}}, [{"e": 1}, {"e": True}, {"e": 1.0}, {"e": "a"}, {"e": "b"}]),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}, [{"a": "x"}, {"a": "x", "b": 1}, {}]),
    ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, [{"a": None}, {"a": "x"}, {"a": 1}]),
    ({"type": "object", "properties": {"a": {"type": "string", "minLength": 3}}}, [{"a": "abcd"}, {"a": "ab"}]),
    ({"type": "object", "required": ["a", 1]}, [{"a": 1}]),
    ({"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, [{"a": 1}, {}]),
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, [{"a": "x"}, {}]),
    ({"type": "object"}, [{}, {"x": [1, 2]}, [], "text"]),
    ({"type": "string"}, ["x", {}]),
]


def test_the_plain_fast_path_never_passes_what_jsonschema_refuses():
    from jsonschema.validators import Draft202012Validator

    passed = 0
    for schema, calls in PLAIN_CASES:
        for arguments in calls:
            if schemas.plainly_valid(schema, arguments):
                passed += 1
                assert Draft202012Validator(schema).is_valid(arguments), f"fast path passed {arguments!r} against {schema!r}; jsonschema refuses it"
    assert passed >= 12, "the fast path should pass the plain valid calls"


def test_a_refusal_is_worded_by_jsonschema_as_before():
    check = schemas.checker({"type": "object", "properties": {"e": {"type": "string", "enum": ["a", "b"]}}, "required": ["e"]})
    assert check({"e": "a"}) is None
    assert check({"e": "c"}) == "$.e: 'c' is not one of ['a', 'b'] (rule: properties/e/enum)"
