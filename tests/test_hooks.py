"""The connection's hooks (harness.hooks) and s33's pure input-rounds loop (harness.elicit.rounds)."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from harness import hooks
from harness.elicit import INPUT_ROUNDS, URL_RETRIES, rounds
from harness.errors import ToolError


def run(main):
    return anyio.run(main)


def test_call_hooks_nest_with_the_first_mechanism_outermost():
    # Mutation caught: the chain built in list order (s25's retry would then run outside s28's reconnect).
    seen = []

    class Tag(hooks.Mechanism):
        def __init__(self, name):
            self.name = name

        async def around_call(self, tool, arguments, proceed):
            seen.append(f"{self.name}>")
            result = await proceed()
            seen.append(f"<{self.name}")
            return result

    async def innermost(tool, arguments):
        seen.append(f"call {tool}")
        return "result"

    call = hooks.calls([Tag("a"), Tag("b")], innermost)
    assert run(lambda: call("t", {})) == "result"
    assert seen == ["a>", "b>", "call t", "<b", "<a"]


def test_send_hooks_pass_their_extra_arguments_inward():
    class More(hooks.Mechanism):
        async def around_send(self, call, proceed):
            return await proceed(call, request_state="s")

    async def sent(call, **more):
        return more

    send = hooks.sends([More(), hooks.Mechanism()], sent)
    assert run(lambda: send(object())) == {"request_state": "s"}


def test_only_the_hooks_a_mechanism_overrides_are_called():
    class Listing(hooks.Mechanism):
        def on_listed(self, tools):
            return tools[:1]

    plain, listing = hooks.Mechanism(), Listing()
    assert hooks.overriding([plain, listing, plain], "on_listed") == [listing]
    assert hooks.overriding([plain, listing], "around_call") == []
    assert hooks.calls([plain], "innermost") == "innermost", "a chain of defaults is the innermost call itself"


def _asking(state):
    return types.InputRequiredResult(input_requests={"q": types.ListRootsRequest()}, request_state=state)


def test_rounds_answer_each_request_and_send_again_with_the_state_until_a_result():
    sent, restarts = [], []

    async def send(responses, state):
        sent.append((responses, state))
        return _asking(f"s{len(sent)}") if len(sent) < 3 else "done"

    async def answer(requests):
        return {key: f"answer to {key}" for key in requests}

    async def main():
        return await rounds(send, answer=answer, visit=None, restart=lambda: restarts.append(1), where="w")

    assert run(main) == "done"
    assert sent == [(None, None), ({"q": "answer to q"}, "s1"), ({"q": "answer to q"}, "s2")]
    assert len(restarts) == 2, "each round starts the call timeout again"


def test_rounds_stop_after_the_limit_with_one_error():
    async def send(responses, state):
        return _asking("again")

    async def answer(requests):
        return {}

    async def main():
        await rounds(send, answer=answer, visit=None, restart=lambda: None, where="server 'x': tool 't'")

    with pytest.raises(ToolError, match=f"server 'x': tool 't': still asking for input after {INPUT_ROUNDS} rounds"):
        run(main)


def test_a_url_error_is_visited_then_sent_again_at_most_url_retries_times():
    required = MCPError(types.URL_ELICITATION_REQUIRED, "open a page")
    calls, visits = [], []

    async def send(responses, state):
        calls.append(1)
        raise required

    async def visit(exc):
        visits.append(exc)
        return True

    async def answer(requests):
        return {}

    async def main(visit):
        await rounds(send, answer=answer, visit=visit, restart=lambda: None, where="w")

    with pytest.raises(MCPError):
        run(lambda: main(None))  # nobody to show the page to: the error stands
    assert len(calls) == 1
    calls.clear()
    with pytest.raises(MCPError):
        run(lambda: main(visit))
    assert len(visits) == URL_RETRIES and len(calls) == URL_RETRIES + 1

    async def refuse(exc):
        return False

    with pytest.raises(ToolError, match="needs a step in the browser first \\(open a page\\); it was not done"):
        run(lambda: main(refuse))
