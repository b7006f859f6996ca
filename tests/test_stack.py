"""harness.stack: which parts a stack has, the policy it composes, and closing on every exit.

The lessons from s27 and tests/test_app_stack.py run whole stacks against real servers;
these check what a snapshot would not show, on configs whose servers never start.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from harness import config, stack
from harness.loop import Policy
from harness.spec import ServerSpec, State
from harness.tools import Tool
from harness.transcript import Transcript


def kinds(parts):
    return [type(p) for p in parts]


def test_upto_keeps_the_parts_up_to_that_lesson_in_lesson_order_and_without_leaves_out_by_kind():
    assert kinds(stack.upto("s28")) == [stack.Naming, stack.Auth, stack.Lifecycle, stack.Reconnect]
    assert kinds(stack.upto("s32", without=(stack.Permissions,))) == [
        stack.Naming, stack.Auth, stack.Lifecycle, stack.Reconnect, stack.Resources, stack.Screen, stack.Output]
    assert kinds(stack.upto()) == list(stack.DEFAULTS)


def test_a_given_part_replaces_its_default_or_joins_in_its_lessons_place_and_later_ones_are_dropped():
    mine = stack.Permissions(prompter=None)
    watched = stack.Reload(Path("settings.json"), list)
    chosen = stack.upto("s31", given=[mine, watched])
    assert chosen[kinds(chosen).index(stack.Permissions)] is mine, "the given part, not a default"
    assert kinds(chosen).index(stack.Reload) == kinds(chosen).index(stack.Reconnect) + 1, "s29's part after s28's"
    assert stack.Asking not in kinds(stack.upto("s32", given=[stack.Asking()])), "an s33 part is not in a stack up to s32"


def test_a_part_written_outside_the_harness_plugs_in_by_being_passed():
    class Counting(stack.Part):
        lesson = "s99"

    assert kinds(stack.upto(given=[Counting()]))[-1] is Counting


def _off(name: str) -> config.ServerConfig:
    """A configured server the hub never starts (disabled), so a stack can be built without a child process."""
    return config.ServerConfig(name, "file", "test.json", ServerSpec(name, "stdio", command="true"), State.DISABLED, "disabled",
                               raw={"autoApprove": ["status"], "maxOutputTokens": 300})


async def _noop(args):
    return "ok"


def test_the_policy_is_permissions_then_output_and_each_can_be_left_out(tmp_path):
    async def main():
        async with stack.Stack([_off("deploy")], Transcript(), stack.upto(given=[stack.Output(tmp_path / "out")])) as whole:
            policy = whole.policy
            permissions, output = whole.find(stack.Permissions).permissions, whole.find(stack.Output).output
            assert policy.before_call == permissions.before_call and policy.render == output.render
            assert output.caps == {"deploy": 300}  # each server's maxOutputTokens
            tool = Tool("mcp__deploy__status", "", {}, _noop, source="deploy", original="status")
            assert permissions.decide(tool).verdict == "allow"  # its autoApprove
            assert whole.hub.entries["deploy"].state is State.DISABLED
        async with stack.Stack([_off("deploy")], None, stack.upto(without=(stack.Permissions, stack.Output))) as bare:
            assert bare.find(stack.Permissions) is None and bare.find(stack.Output) is None and bare.policy == Policy()

    anyio.run(main)


def test_leaving_the_stack_on_an_error_still_closes_what_it_opened():
    folders = []

    async def main():
        async with stack.Stack([_off("deploy")], Transcript()) as whole:  # no spill folder given: one for its life
            folder = whole.find(stack.Output).output.folder
            folders.append(folder)
            assert folder.is_dir()
            raise RuntimeError("boom")

    with pytest.raises(BaseException) as raised:  # the connections' task group may wrap it in a group, as without a stack
        anyio.run(main)
    assert "boom" in repr(raised.value.exceptions if isinstance(raised.value, BaseExceptionGroup) else raised.value)
    assert not folders[0].exists()
