"""Subagents on the parent's servers: the task tool, each agent's pool, its calls through the parent's connections.

The lead (the parent's loop) gets one more built-in tool, ``task``, taking
``{"agent": NAME, "prompt": TEXT}``. A call runs that agent (``harness.agents.Agent``) in a
loop of its own (``harness.loop.run_agent``, on the model of the loop that called it): its
own messages, starting from the prompt alone; its file's body as the system prompt. Its
last words are the task's result, which the parent's output limits apply to as to any tool's.

- **Its pool**, rebuilt on each of its turns as s22's is: the parent's built-ins and the
  tools of the parent's live servers (those its ``mcpServers`` names, or every one), kept
  only where its allowlist allows (``Agent.allows``), less what a deny rule names (s31,
  said once). ``task`` is never in it: a subagent does not start subagents. A call to a tool
  outside the pool is the loop's "unknown tool" and never reaches a server.
- **One process per server.** Its calls go through the hub's clients, the parent's
  connections: however many agents use docs, docs runs once. A parent's server it names
  that has not started yet is connected for it, and stays the parent's. A server only its
  file defines (an inline ``mcpServers`` entry) is added to the hub when the task starts and
  removed, so stopped, when it ends, however it ends.
- **Permissions inherited.** Each call passes the parent's policy, as this part's
  ``policy`` hook receives it from the parts before it: a deny rule holds, an "always" the
  user gave the parent holds (and one given for the agent holds for the parent: one user,
  one session), autoApprove and annotations decide as for the parent; the output cap and
  spill files apply. Everything printed while it runs begins with ``[name]``
  (``harness.transcript.labelled``): its calls and results, the permission questions asked
  for it (on the terminal too), the output notes, its own servers' states, and what a
  shared server says from its own task while the agent's call is in flight on it: a form
  it asks for, a log line (``OnBehalf``, a mechanism on every connection).
- **Bounded.** At most its file's ``maxTurns`` turns, else ``MAX_TURNS``; past them the
  task's result is an error that says so, and the lead can go on.
- **Cancelled with the parent.** Ctrl-C cancels the whole run (``harness.signals``): the
  agent's call in flight and its loop end with it, its own servers are stopped (shielded),
  and a note names the call that was in flight.

Introduced by s38. Not handled here: agents running at once (two task calls in one turn
run one after the other), an agent's own ``model`` (the parent's runs), a pool deferred by
s36's tool search (the agent's tools are all loaded, and a tool the parent's search policy
refuses until loaded is refused for the agent too).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import anyio

from harness.agents import Agent, described
from harness.errors import HarnessError, ToolError
from harness.hooks import Mechanism, Proceed
from harness.jsonvalue import JSON, JSONObject
from harness.loop import Policy, Turn, run_agent, running_model
from harness.model import ToolCall
from harness.parts import Built, Part
from harness.pool import rebuilt
from harness.results import ToolResult
from harness.spec import State
from harness.tools import Tool
from harness.transcript import Transcript, label, labelled

if TYPE_CHECKING:
    from harness.client import Client, Host
    from harness.config.formats import ServerConfig
    from harness.permissions import Permissions

TASK = "task"
MAX_TURNS = 8  # an agent's turns when its file sets no maxTurns: a subagent that never answers still ends


@dataclass
class Agents(Part):
    """The task tool over ``agents``; ``max_turns``: the budget of an agent whose file sets none; ``warnings``: lines
    to say once the stack is entered (the files that did not load: ``harness.agents.Found.problems``)."""

    lesson: ClassVar[str] = "s38"
    agents: Sequence[Agent] = ()
    max_turns: int = MAX_TURNS
    warnings: Sequence[str] = ()
    _parent: Policy | None = field(default=None, init=False)  # the stack's policy, up to this part
    _builtins: Sequence[Tool] = field(default=(), init=False)  # the parent's built-ins, before the task tool

    async def enter(self, built: Built) -> None:
        for line in self.warnings:
            if built.transcript is not None:
                built.transcript.warning(line)

    def builtins(self, tools: Sequence[Tool], built: Built) -> Sequence[Tool]:
        self._builtins = tools
        if not self.agents:
            return tools
        return _Plus(tools, self._tool(built))

    def policy(self, policy: Policy, built: Built) -> Policy:
        self._parent = policy
        return policy

    def mechanisms(self, server: ServerConfig, built: Built) -> Sequence[Mechanism]:
        return [OnBehalf(built.transcript)] if self.agents and built.transcript is not None else []

    def _tool(self, built: Built) -> Tool:
        names = sorted(a.name for a in self.agents)
        schema = {"type": "object", "required": ["agent", "prompt"], "properties": {
            "agent": {"type": "string", "enum": names, "description": "which agent does the task"},
            "prompt": {"type": "string", "description": "the task in full: the agent sees nothing else of this conversation"}}}

        async def call(arguments: JSONObject) -> ToolResult:
            name, prompt = arguments.get("agent"), arguments.get("prompt")
            agent = next((a for a in self.agents if a.name == name), None)
            if agent is None:
                raise ToolError(f"no agent {name!r}: the agents are {', '.join(names)}")
            if not isinstance(prompt, str) or not prompt.strip():
                raise ToolError("'prompt': required, the task in full")
            return await self.run(agent, prompt, built)

        text = ("Hand a task to a subagent: it works in a context of its own, with the tools its file allows, and "
                "answers with its result. The agents:\n" + described(self.agents))
        return Tool(TASK, text, schema, call)

    async def run(self, agent: Agent, prompt: str, built: Built) -> ToolResult:
        """Run ``agent`` on ``prompt`` to its answer: its own servers started first and stopped after."""
        model, parent = running_model(), self._parent
        if model is None or parent is None:  # a wiring bug: the task tool runs inside a stack's loop
            raise HarnessError("the task tool ran outside an agent loop on a stack's policy")
        transcript = built.transcript if built.transcript is not None else Transcript(redactor=built.redact)
        turns = agent.max_turns or self.max_turns
        flight = _InFlight()
        own: list[str] = []
        try:
            with labelled(f"[{agent.name}] "):
                transcript.note(f"agent '{agent.name}' ({agent.source}): {turns} turns at most"
                                + (f"; not run here: {', '.join(agent.ignored)}" if agent.ignored else ""))
                await self._start(agent, built, own, transcript)
                messages = await run_agent(model, prompt, self.pool(agent, built), transcript, turns, flight.policy(parent))
        except anyio.get_cancelled_exc_class():
            what = f"its call to {flight.call} was in flight" if flight.call else "no call was in flight"
            transcript.note(f"agent '{agent.name}': cancelled, with its loop ({what})")
            raise
        finally:
            with anyio.CancelScope(shield=True), labelled(f"[{agent.name}] "):  # stopped even when cancelled
                for name in own:
                    await built.hub.remove(name, f"agent '{agent.name}' is done")
        return _answer(agent, messages, turns)

    async def _start(self, agent: Agent, built: Built, own: list[str], transcript: Transcript) -> None:
        """Connect a parent's server it names that has not started yet (it stays the parent's); add and connect the
        servers only ``agent`` defines, each put in ``own``."""
        for name in agent.servers or ():
            entry = built.hub.entries.get(name)
            if entry is None:
                transcript.note(f"agent '{agent.name}': {agent.source}: field 'mcpServers': '{name}' is not a server "
                                "of the parent: it runs without it")
            elif entry.state is State.PENDING:
                await built.hub.connect(name)
        for server in agent.inline:
            if server.name in built.hub.entries:
                raise ToolError(f"agent '{agent.name}': {server.source}: server '{server.name}' is the parent's too: "
                                "name it instead of defining it again")
            built.hub.add(server.name, built.connector(server), server.spec)
            own.append(server.name)
            entry = await built.hub.connect(server.name)
            if entry.state is not State.CONNECTED:
                transcript.note(f"agent '{agent.name}': its server '{server.name}' is {entry.state.value}: "
                                "it runs without that server's tools")

    def pool(self, agent: Agent, built: Built) -> Callable[[], Turn]:
        """The agent's pool source: the parent's built-ins and servers it may use, through its allowlist, less denied."""
        clients = _Servers(built.hub.clients, agent)
        source = rebuilt(agent.prompt, _Allowed(self._builtins, agent), clients, entries=built.hub.entries)
        permissions: Permissions | None = built.found.get("permissions")  # type: ignore[assignment]
        said: set[str] = set()

        def turn() -> Turn:
            offered = source()
            tools = tuple(t for t in offered.tools if t.source == "builtin" or agent.allows(t))
            if permissions is not None:
                tools, hidden = permissions.split(tools)
                for name, rule in hidden.items():
                    if name not in said and built.transcript is not None:
                        said.add(name)
                        built.transcript.note(f"{name} is not offered: deny rule {rule}")
            return Turn(offered.system, tools)

        return turn


def allowed_tools(agent: Agent, builtins: Sequence[Tool], clients: Mapping[str, Client],
                  permissions: Permissions | None = None) -> list[Tool]:
    """The tools ``agent`` would get now from these built-ins and live servers (``mcp-course agents``)."""
    offered = rebuilt("", _Allowed(builtins, agent), _Servers(clients, agent))().tools
    tools = tuple(t for t in offered if t.source == "builtin" or agent.allows(t))
    return list(permissions.split(tools)[0] if permissions is not None else tools)


def server_processes() -> int | None:
    """The stdio server processes this process runs now, counted in ``/proc`` (None where there is none).

    Each one carries ``MCP_COURSE_STDIO=<this pid>-...`` in its environment
    (``harness.transports.stdio``); a zombie is not counted.
    """
    from harness.transports.stdio import MARKER  # the transport's own mark: read only where processes are counted

    if not Path("/proc").is_dir():
        return None
    mark = f"{MARKER}={os.getpid()}-".encode()
    found = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:  # gone, or another user's
            continue
        if any(v.startswith(mark) for v in environ.split(b"\0")) and stat[stat.rindex(")") + 2:][:1] != "Z":
            found += 1
    return found


# -- the pieces -----------------------------------------------------------------------------


class OnBehalf(Mechanism):
    """Around each call made under a label (an agent's): the server's own lines meanwhile carry that label."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    def bind(self, host: Host) -> None:
        self.server = host.name

    async def around_call(self, tool: str, arguments: dict[str, JSON], proceed: Proceed) -> ToolResult:
        mine = label()
        if not mine:
            return await proceed()
        with self.transcript.on_behalf(self.server, mine):
            return await proceed()


@dataclass
class _InFlight:
    """The call of the agent between its before-call and its result: what a cancel names."""

    call: str = ""

    def policy(self, parent: Policy) -> Policy:
        async def before(call: ToolCall, tool: Tool) -> ToolResult | None:
            self.call = call.name
            return await parent.before_call(call, tool)

        async def after(call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
            self.call = ""
            return await parent.after_result(call, tool, result)

        return replace(parent, before_call=before, after_result=after)


def _answer(agent: Agent, messages: list[JSONObject], turns: int) -> ToolResult:
    last = messages[-1]
    if last["role"] != "assistant":  # the loop stopped on the budget, after running the last turn's calls
        return ToolResult.failure(f"agent '{agent.name}' stopped after {turns} turns (its budget) without a final answer")
    text = "\n".join(b["text"] for b in last["content"] if b.get("type") == "text").strip()
    return ToolResult.of(text or f"agent '{agent.name}' finished without a word")


class _Plus(Sequence[Tool]):
    """``tools`` then ``extra``, read afresh each time: ``tools`` may change between turns (s30's resource tools)."""

    def __init__(self, tools: Sequence[Tool], extra: Tool) -> None:
        self._tools, self._extra = tools, extra

    def _now(self) -> list[Tool]:
        return [*self._tools, self._extra]

    def __getitem__(self, index: int) -> Tool:  # type: ignore[override]
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._tools) + 1

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._now())


class _Allowed(Sequence[Tool]):
    """The built-ins ``agent`` may use, read afresh each time; never the task tool."""

    def __init__(self, tools: Sequence[Tool], agent: Agent) -> None:
        self._tools, self._agent = tools, agent

    def _now(self) -> list[Tool]:
        return [t for t in self._tools if t.name != TASK and self._agent.allows(t)]

    def __getitem__(self, index: int) -> Tool:  # type: ignore[override]
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._now())

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._now())


class _Servers(Mapping[str, "Client"]):
    """The live clients whose servers ``agent`` may use, read afresh from the hub's view each time."""

    def __init__(self, clients: Mapping[str, Client], agent: Agent) -> None:
        self._clients, self._agent = clients, agent

    def _now(self) -> dict[str, Client]:
        return {n: c for n, c in self._clients.items() if self._agent.may_use(n)}

    def __getitem__(self, name: str) -> Client:
        return self._now()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())
