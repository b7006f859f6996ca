"""The agent loop: ask the model, run the tools it calls, hand back the results.

Each turn starts by asking ``pool()`` for a ``Turn``: the system prompt and the tools the
model may use this turn. Asking every turn is the seam s22 teaches: when a server is
connected mid-run, the next turn's pool has its tools, with no cache to go stale.

A tool that fails with ``ToolError`` (a bad path, an MCP server's error, an unknown tool
name from a live model) becomes an error result the model can read and react to. Every
other exception is a bug or a setup problem and propagates.

Each call passes through a ``Policy``, three seams that later lessons fill and that do
nothing by default:

    before_call(call, tool)          -> None to run it, or a ToolResult to use instead (s31: a denial)
    after_result(call, tool, result) -> the result the model gets (s32: output limits)
    render(result)                   -> what goes into the tool_result block (default: text)

Calls run in order, one at a time, except back-to-back calls to a tool marked
``concurrent`` (``connect_mcp``): those run at once, and their output is held and printed
call by call, so the transcript is the same bytes as if they had run in order.

A tool that runs a loop of its own (s38's subagents) asks ``running_model()`` for the
model of the loop that called it, so one model, scripted or live, serves both.

Introduced by s19. Not handled here: running other tools' calls at once (a model may
write, then read), context compaction, permissions (s31), output limits (s32).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from harness.errors import ToolError
from harness.jsonvalue import JSONObject
from harness.model import Model, ToolCall
from harness.results import ToolResult
from harness.tools import Tool
from harness.transcript import Transcript, grouped

DEFAULT_MAX_TURNS = 12
_MODEL: ContextVar[Model | None] = ContextVar("loop_model", default=None)


def running_model() -> Model | None:
    """The model of the innermost ``run_agent`` this task runs in; None outside one."""
    return _MODEL.get()


@dataclass(frozen=True)
class Turn:
    """What the model is handed for one turn."""

    system: str
    tools: tuple[Tool, ...]


PoolSource = Callable[[], "Turn | Awaitable[Turn]"]


async def _run_it(call: ToolCall, tool: Tool) -> None:
    return None


async def _unchanged(call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
    return result


def _as_text(content: Any) -> str:
    return content if isinstance(content, str) else ToolResult(tuple(content)).text()


# lesson: s31, s32
@dataclass(frozen=True)
class Policy:
    """The hooks around each call. Every default lets the call through untouched."""

    before_call: Callable[[ToolCall, Tool], Awaitable[ToolResult | None]] = _run_it
    after_result: Callable[[ToolCall, Tool, ToolResult], Awaitable[ToolResult]] = _unchanged
    render: Callable[[ToolResult], Any] = ToolResult.text
    show: Callable[[Any], str] = _as_text  # the transcript's line for what render gave the model


async def run_agent(
    model: Model,
    prompt: str,
    pool: PoolSource,
    transcript: Transcript,
    max_turns: int = DEFAULT_MAX_TURNS,
    policy: Policy = Policy(),
) -> list[JSONObject]:
    """Run one user prompt to the end; returns the whole conversation."""
    token = _MODEL.set(model)
    try:
        return await _run(model, prompt, pool, transcript, max_turns, policy)
    finally:
        _MODEL.reset(token)


async def _run(model: Model, prompt: str, pool: PoolSource, transcript: Transcript, max_turns: int, policy: Policy) -> list[JSONObject]:
    messages: list[JSONObject] = [{"role": "user", "content": prompt}]
    transcript.user(prompt)
    shown: Turn | None = None
    for _ in range(max_turns):
        turn = pool()
        if inspect.isawaitable(turn):
            turn = await turn
        _report_changes(shown, turn, transcript)
        shown = turn

        reply = await model.reply(turn.system, messages, turn.tools)
        if reply.text:
            transcript.assistant(reply.text)
        messages.append(reply.as_message())
        if not reply.tool_calls:
            return messages
        tools: dict[str, Tool] = {}
        for tool in turn.tools:
            tools.setdefault(tool.name, tool)  # first one wins, as in the pool (s22)
        messages.append({"role": "user", "content": await _run_calls(list(reply.tool_calls), tools, transcript, policy)})
    transcript.warning(f"stopped after {max_turns} turns without a final answer")
    return messages


async def _run_calls(calls: list[ToolCall], tools: dict[str, Tool], transcript: Transcript, policy: Policy) -> list[JSONObject]:
    """Every call of one turn, in order; back-to-back calls to a ``concurrent`` tool run at once."""
    blocks: list[JSONObject] = []
    i = 0
    while i < len(calls):
        tool, j = tools.get(calls[i].name), i + 1
        while tool is not None and tool.concurrent and j < len(calls) and tools.get(calls[j].name) is tool:
            j += 1
        blocks += await (_run_together(calls[i:j], tool, transcript, policy) if j - i > 1 else _run_one(calls[i], tool, transcript, policy))
        i = j
    return blocks


async def _run_one(call: ToolCall, tool: Tool | None, transcript: Transcript, policy: Policy) -> list[JSONObject]:
    transcript.emit("tool_call", name=call.name, input=call.input)
    return [_finish(call, await _execute(call, tool, policy), transcript, policy)]


async def _run_together(calls: list[ToolCall], tool: Tool | None, transcript: Transcript, policy: Policy) -> list[JSONObject]:
    """Run the calls at once; print each call, what it caused and its result in call order, as if one by one.

    The policy hooks of these calls run at once too.
    """
    import anyio  # the SDK's async library: only concurrent calls need it

    results: dict[str, ToolResult] = {}

    async def run(call: ToolCall) -> None:
        with grouped(call.id):  # frames and notes this call causes are held under its id
            results[call.id] = await _execute(call, tool, policy)

    with transcript.holding():
        async with anyio.create_task_group() as tg:
            for call in calls:
                tg.start_soon(run, call)
        blocks = []
        for call in calls:
            transcript.emit("tool_call", name=call.name, input=call.input)
            transcript.release(call.id)
            blocks.append(_finish(call, results[call.id], transcript, policy))
    return blocks


async def _execute(call: ToolCall, tool: Tool | None, policy: Policy) -> ToolResult:
    if tool is None:
        return ToolResult.failure(f"unknown tool '{call.name}'")
    result = await policy.before_call(call, tool)
    if result is None:
        try:
            result = ToolResult.of(await tool.call(call.input))
        except ToolError as exc:
            result = ToolResult.failure(str(exc))
    return await policy.after_result(call, tool, result)


# lesson: s32
def _finish(call: ToolCall, result: ToolResult, transcript: Transcript, policy: Policy) -> JSONObject:
    content = policy.render(result)
    shown = policy.show(content)
    transcript.emit("tool_result", name=call.name, content=shown, is_error=result.is_error)
    return {"type": "tool_result", "tool_use_id": call.id, "content": content, "is_error": result.is_error}


def _report_changes(before: Turn | None, now: Turn, transcript: Transcript) -> None:
    """Print the pool the first time, then only what changed, so a reader sees each change."""
    names = [t.name for t in now.tools]
    if before is None:
        transcript.emit("system", text=now.system)
        transcript.emit("tools", names=names)
        return
    if now.system != before.system:
        transcript.emit("system", text=now.system)
    old = {t.name for t in before.tools}
    added, removed = [n for n in names if n not in old], sorted(old - set(names))
    if added or removed:
        transcript.emit("pool", added=added, removed=removed)
