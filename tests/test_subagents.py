"""s38: subagent definitions (harness.agents) and the task tool that runs them (harness.subagents)."""

from __future__ import annotations

import asyncio

from harness.loop import Turn, run_agent, running_model
from harness.model import Reply
from harness.tools import Tool
from harness.transcript import Transcript


def test_a_tool_called_by_the_loop_finds_the_loops_model_and_none_outside():
    seen = []

    class Model:
        def __init__(self):
            self.turns = 0

        async def reply(self, system, messages, tools):
            self.turns += 1
            from harness.model import ToolCall
            return Reply("", (ToolCall("t1", "probe", {}),)) if self.turns == 1 else Reply("done", ())

    async def probe(arguments):
        seen.append(running_model())
        return "ok"

    model = Model()
    tool = Tool("probe", "", {"type": "object"}, probe)
    asyncio.run(run_agent(model, "go", lambda: Turn("", (tool,)), Transcript()))
    assert seen == [model], "expected the tool to see the model of the loop that called it"
    assert running_model() is None, "expected no model outside a loop"
