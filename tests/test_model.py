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
        ({"prompt": "p", "promt": 1, "turns": [{}]}, "s.yaml: promt: unknown key (allowed: prompt, turns)"),
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
