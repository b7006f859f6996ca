"""harness.model: scenario errors name the file and key path; the scripted model refuses
tools it was not handed."""

from __future__ import annotations

import asyncio

import pytest

from harness.errors import ScenarioError, ToolNotInPool
from harness.model import Reply, Scenario, ScriptedModel, ToolCall
from harness.tools import Tool


def parse(data):
    return Scenario.parse(data, "s.yaml")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "s.yaml: : expected a mapping"),
        ({"turns": [{"text": "hi"}]}, "s.yaml: prompt: required"),
        ({"prompt": "  ", "turns": [{"text": "hi"}]}, "s.yaml: prompt: expected a non-empty string"),
        ({"prompt": "p"}, "s.yaml: turns: required"),
        ({"prompt": "p", "turns": []}, "s.yaml: turns: expected a non-empty list"),
        ({"prompt": "p", "turns": [{"txt": "x"}]}, "s.yaml: turns[0].txt: unknown key (allowed: text, tool_calls)"),
        ({"prompt": "p", "promt": 1, "turns": [{}]}, "s.yaml: promt: unknown key (allowed: answers, prompt, turns)"),
        ({"prompt": "p", "turns": [{"tool_calls": [{"input": {}}]}, {}]}, "s.yaml: turns[0].tool_calls[0].name: required"),
        ({"prompt": "p", "turns": [{"tool_calls": [{"name": "x", "input": [1]}]}, {}]}, "s.yaml: turns[0].tool_calls[0].input: expected a mapping"),
        ({"prompt": "p", "turns": [{"tool_calls": "x"}]}, "s.yaml: turns[0].tool_calls: expected a list"),
        ({"prompt": "p", "turns": [{"tool_calls": [{"name": "x"}]}]}, "s.yaml: turns[0]: the last turn must make no tool calls (it ends the run)"),
    ],
)
def test_malformed_scenarios_name_file_and_key_path(data, message):
    with pytest.raises(ScenarioError) as caught:
        parse(data)
    assert str(caught.value) == message


def test_invalid_yaml_names_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("prompt: [unclosed\nturns: []\n")
    with pytest.raises(ScenarioError, match=r"^lesson\.yaml: not valid YAML \(line \d+\)$"):
        Scenario.load(path, "lesson.yaml")


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match=r"^x\.yaml: cannot read: No such file or directory$"):
        Scenario.load(tmp_path / "nope.yaml", "x.yaml")


async def _noop(args):
    return ""


def _tools(*names):
    return [Tool(n, "", {"type": "object"}, _noop) for n in names]


def test_scripted_model_replays_turns_with_stable_ids():
    model = ScriptedModel(parse({"prompt": "p", "turns": [{"text": "a", "tool_calls": [{"name": "t", "input": {"k": 1}}, {"name": "t"}]}, {"text": "done"}]}))
    first = asyncio.run(model.reply("", [], _tools("t")))
    assert first == Reply("a", (ToolCall("toolu_01", "t", {"k": 1}), ToolCall("toolu_02", "t", {})))
    assert asyncio.run(model.reply("", [], _tools("t"))) == Reply("done")


def test_scripted_model_refuses_a_tool_not_in_the_pool_and_lists_the_pool():
    model = ScriptedModel(parse({"prompt": "p", "turns": [{"tool_calls": [{"name": "mcp__docs__search"}]}, {}]}))
    with pytest.raises(ToolNotInPool) as caught:
        asyncio.run(model.reply("", [], _tools("read_file", "connect_mcp")))
    assert str(caught.value) == "s.yaml: turns[0].tool_calls[0].name: 'mcp__docs__search' is not in this turn's pool (read_file, connect_mcp)"


def test_running_past_the_script_is_an_error():
    model = ScriptedModel(parse({"prompt": "p", "turns": [{"text": "only"}]}))
    asyncio.run(model.reply("", [], []))
    with pytest.raises(ScenarioError, match="asked for turn 2 but the script has 1"):
        asyncio.run(model.reply("", [], []))


def test_every_lesson_scenario_parses():
    from cases import LESSONS, ROOT

    for lesson in LESSONS:
        Scenario.load(ROOT / "lessons" / lesson / "scenario.yaml")


# --- hostile scenario files: one line each, before any expansion -----------------------------

ALIAS_BOMB = "\n".join(
    [f"l0: &l0 [{', '.join(['lol'] * 9)}]"]
    + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    + ["prompt: hi", "turns:", "  - tool_calls: [{name: read_file, input: {path: *l8}}]", "  - text: done", ""])


@pytest.mark.parametrize(("content", "message"), [
    (ALIAS_BOMB.encode(), r"^s\.yaml: line 2: YAML aliases are not allowed \(\*l0\): write the value out$"),
    (b"base: &b {text: hi}\nprompt: p\nturns:\n  - <<: *b\n", r"^s\.yaml: line 4: YAML aliases are not allowed \(\*b\): write the value out$"),
    (b"prompt: p\nturns:\n  - text: caf\xe9\n", r"^s\.yaml: not UTF-8 \(byte 0xe9 on line 3\)$"),
    (b"prompt: p\nturns:\n  - text: " + b"[" * 10_000 + b"\n", r"^s\.yaml: line 3: nested deeper than 50 levels$"),
    (b"prompt: p\nturns: [{text: x}]\n" + b"#" * (1 << 20), r"^s\.yaml: too large \(over 1048576 bytes; a scenario is a short script\)$"),
    (b"prompt: p\nturns: [{text: x}]\n---\nprompt: q\n", r"^s\.yaml: not valid YAML \(line 3\)$"),
])
def test_hostile_files_are_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "s.yaml"
    path.write_bytes(content)
    with pytest.raises(ScenarioError, match=message):
        Scenario.load(path, "s.yaml")


def test_an_anchor_without_an_alias_is_fine(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("prompt: &p hi\nturns:\n  - text: done\n")
    assert Scenario.load(path, "s.yaml").prompt == "hi"


@pytest.mark.parametrize(("value", "problem"), [
    ("2024-01-01", "input.when: not JSON data (YAML read it as a date; quote it to make it a string)"),
    ("!!binary aGk=", "input.when: not JSON data (YAML read it as a bytes; quote it to make it a string)"),
    ("!!set {a: null}", "input.when: not JSON data (YAML read it as a set; quote it to make it a string)"),
    (".nan", "input.when: not a JSON number (nan)"),
    ("[1, {2: x}]", "input.when[1]: keys must be strings, not int (2)"),
])
def test_a_tool_input_must_be_json_data(tmp_path, value, problem):
    path = tmp_path / "s.yaml"
    path.write_text(f"prompt: p\nturns:\n  - tool_calls:\n      - name: t\n        input:\n          when: {value}\n  - text: done\n")
    with pytest.raises(ScenarioError) as caught:
        Scenario.load(path, "s.yaml")
    assert str(caught.value) == f"s.yaml: turns[0].tool_calls[0].{problem}"


def test_nested_json_input_within_the_depth_limit_loads(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("prompt: p\nturns:\n  - tool_calls: [{name: t, input: {a: [1, 2.5, true, null, {b: [x]}]}}]\n  - text: done\n")
    assert Scenario.load(path, "s.yaml").turns[0].calls[0].input == {"a": [1, 2.5, True, None, {"b": ["x"]}]}
