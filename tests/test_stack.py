"""harness.stack: which parts a stack has, the policy it composes, and closing on every exit.

The lessons from s27 and tests/test_app_stack.py run whole stacks against real servers;
these check what a snapshot would not show, on configs whose servers never start.
"""

from __future__ import annotations

import anyio
import pytest

from harness import config, stack
from harness.errors import UsageError
from harness.loop import Policy
from harness.spec import ServerSpec, State
from harness.tools import Tool
from harness.transcript import Transcript


def test_until_keeps_the_parts_up_to_that_lesson_and_without_leaves_out_by_name():
    assert stack.parts("s28") == {"naming", "auth", "lifecycle", "reconnect"}
    assert stack.parts("s32", without={"permissions"}) == {"naming", "auth", "lifecycle", "reconnect", "reload", "resources",
                                                            "screen", "output"}
    assert stack.parts() == set(stack.PARTS)


def test_a_part_that_does_not_exist_is_one_clear_error():
    with pytest.raises(UsageError, match="Stack: no part named perms \\(parts: naming, auth, "):
        stack.parts(without={"perms"})


def _off(name: str) -> config.ServerConfig:
    """A configured server the hub never starts (disabled), so a stack can be built without a child process."""
    return config.ServerConfig(name, "file", "test.json", ServerSpec(name, "stdio", command="true"), State.DISABLED, "disabled",
                               raw={"autoApprove": ["status"], "maxOutputTokens": 300})


async def _noop(args):
    return "ok"


def test_the_policy_is_permissions_then_output_and_each_can_be_left_out(tmp_path):
    async def main():
        async with stack.Stack([_off("deploy")], Transcript(), spill=tmp_path / "out") as whole:
            policy = whole.policy
            assert policy.before_call == whole.permissions.before_call and policy.render == whole.output.render
            assert whole.output.caps == {"deploy": 300}  # each server's maxOutputTokens
            tool = Tool("mcp__deploy__status", "", {}, _noop, source="deploy", original="status")
            assert whole.permissions.decide(tool).verdict == "allow"  # its autoApprove
            assert whole.hub.entries["deploy"].state is State.DISABLED
        async with stack.Stack([_off("deploy")], without={"permissions", "output"}) as bare:
            assert bare.permissions is None and bare.output is None and bare.policy == Policy()

    anyio.run(main)


def test_leaving_the_stack_on_an_error_still_closes_what_it_opened():
    folders = []

    async def main():
        async with stack.Stack([_off("deploy")], Transcript()) as whole:  # no spill folder given: one for its life
            folders.append(whole.output.folder)
            assert whole.output.folder.is_dir()
            raise RuntimeError("boom")

    with pytest.raises(BaseException) as raised:  # the connections' task group may wrap it in a group, as without a stack
        anyio.run(main)
    assert "boom" in repr(raised.value.exceptions if isinstance(raised.value, BaseExceptionGroup) else raised.value)
    assert not folders[0].exists()
