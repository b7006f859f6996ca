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


# -- a stack of in-process servers, and a model that tries what it is told -----------------------------------

import io  # noqa: E402

import anyio  # noqa: E402
import pytest  # noqa: E402

from harness import agents, permissions  # noqa: E402
from harness.mcp_client import MockClient  # noqa: E402
from harness.model import ToolCall  # noqa: E402
from harness.stack import Output, Permissions, Stack, upto  # noqa: E402
from harness.subagents import MAX_TURNS, TASK, Agents  # noqa: E402
from mock_servers.catalog import SERVERS  # noqa: E402


class Counted(MockClient):
    """An in-process server that keeps every call that reached it."""

    def __init__(self, name, reached):
        super().__init__(SERVERS[name]())
        self.reached = reached

    async def call_tool(self, name, arguments):
        self.reached.append(f"{self.name}.{name}")
        return await super().call_tool(name, arguments)


class Trying:
    """A scripted model that keeps what it was offered each turn and calls what its script says, offered or not."""

    def __init__(self, turns):
        self.turns, self.offered, self.ids = list(turns), [], 0

    async def reply(self, system, messages, tools):
        self.offered.append([t.name for t in tools])
        text, calls = self.turns.pop(0)
        made = []
        for name, arguments in calls:
            self.ids += 1
            made.append(ToolCall(f"c{self.ids}", name, arguments))
        return Reply(text, tuple(made))


def agent(text):
    return agents.parse(text, "test.md")


RESEARCHER = agent("---\nname: researcher\ndescription: reads\ntools: mcp__docs__*\n---\nYou read the docs.\n")


async def _run(tmp_path, model, defined, rules=None, answers=(), servers=("docs", "deploy")):
    out = io.StringIO()
    transcript = Transcript(out)
    reached: list[str] = []
    parts = upto("s38", given=[Agents(defined), Output(tmp_path / "spill"),
                               Permissions(rules, permissions.ScriptedPrompter(answers))])
    async with Stack([], transcript, parts) as stack:
        for name in servers:
            async def connect(name=name):
                client = Counted(name, reached)
                await client.list_tools()
                return client
            stack.hub.add(name, connect)
        await stack.connect_all()
        await run_agent(model, "go", stack.pool("lead", []), transcript, 10, stack.policy)
    return out.getvalue(), reached


def test_a_subagent_never_sees_nor_calls_a_tool_outside_its_allowlist(tmp_path):
    model = Trying([
        ("", [(TASK, {"agent": "researcher", "prompt": "look"})]),
        ("trying deploy", [("mcp__deploy__trigger", {"service": "web"}), ("mcp__docs__search", {"query": "deploy"})]),
        ("done", []),
        ("lead done", [])])
    text, reached = asyncio.run(_run(tmp_path, model, [RESEARCHER]))
    assert "mcp__deploy__trigger" in model.offered[0], "expected the lead to be offered deploy's tool"
    assert model.offered[1] == ["mcp__docs__get_version", "mcp__docs__search"], f"expected the researcher's pool to be docs only, got {model.offered[1]}"
    assert TASK not in model.offered[1], "expected no task tool for a subagent"
    assert reached == ["docs.search"], f"expected only the allowed call to reach a server, got {reached}"
    assert "[researcher]   <! unknown tool 'mcp__deploy__trigger'" in text, text


def test_a_deny_holds_for_the_agent_the_leads_always_holds_and_its_question_says_whose_it_is(tmp_path):
    deployer = agent("---\nname: deployer\ndescription: deploys\ntools: mcp__deploy__*, mcp__docs__*\n---\nYou deploy.\n")
    model = Trying([
        ("", [("mcp__deploy__trigger", {"service": "docs-site"})]),
        ("", [(TASK, {"agent": "deployer", "prompt": "deploy web"})]),
        ("", [("mcp__deploy__trigger", {"service": "web"}), ("mcp__deploy__status", {"deployment_id": "dep-0002"})]),
        ("", [("mcp__docs__search", {"query": "x"})]),
        ("deployed", []),
        ("all done", [])])
    rules = permissions.Rules(deny=("mcp__docs__get_version",), ask=("mcp__docs__search",))
    text, reached = asyncio.run(_run(tmp_path, model, [deployer], rules, answers=["always", "no"]))
    assert "mcp__docs__get_version" not in model.offered[2], "expected the deny rule to keep the tool out of the agent's pool"
    assert "[deployer] note: mcp__docs__get_version is not offered: deny rule mcp__docs__get_version" in text, text
    assert "  ?? mcp__deploy__trigger: destructive, as the server says: asked, scripted answered always" in text, text
    assert "[deployer]   ok mcp__deploy__trigger: allowed (answered always, this session)" in text, text
    assert "[deployer]   ?? mcp__docs__search: ask rule mcp__docs__search: asked, scripted answered no" in text, text
    assert reached == ["deploy.trigger", "deploy.trigger", "deploy.status"], f"expected the declined search not to reach docs, got {reached}"
    assert "  <- deployed" in text, "expected the agent's last words as the task's result"


def test_the_agents_turns_are_bounded_and_the_result_names_the_budget(tmp_path):
    bounded = agent("---\nname: looper\ndescription: loops\ntools: mcp__docs__search\nmaxTurns: 2\n---\nLoop.\n")
    search = ("mcp__docs__search", {"query": "again"})
    model = Trying([("", [(TASK, {"agent": "looper", "prompt": "loop"})]), ("", [search]), ("", [search]), ("lead done", [])])
    text, reached = asyncio.run(_run(tmp_path, model, [bounded]))
    assert reached == ["docs.search", "docs.search"], reached
    assert "[looper] warning: stopped after 2 turns without a final answer" in text, text
    assert "  <! agent 'looper' stopped after 2 turns (its budget) without a final answer" in text, text
    assert MAX_TURNS == 8, "the budget of an agent whose file sets none"


def test_cancelling_the_run_cancels_the_agents_call_in_flight_and_its_loop(tmp_path):
    started = anyio.Event()

    class Hanging(MockClient):
        async def call_tool(self, name, arguments):
            started.set()
            await anyio.sleep_forever()

    model = Trying([("", [(TASK, {"agent": "researcher", "prompt": "look"})]), ("", [("mcp__docs__search", {"query": "x"})])])
    out = io.StringIO()
    transcript = Transcript(out)

    async def main():
        async with Stack([], transcript, upto("s38", given=[Agents([RESEARCHER]), Output(tmp_path / "spill")])) as stack:
            async def connect():
                client = Hanging(SERVERS["docs"]())
                await client.list_tools()
                return client
            stack.hub.add("docs", connect)
            await stack.connect_all()
            with anyio.CancelScope() as scope:  # what the signal trap does on Ctrl-C
                async with anyio.create_task_group() as tg:
                    tg.start_soon(run_agent, model, "go", stack.pool("lead", []), transcript, 10, stack.policy)
                    with anyio.fail_after(30):
                        await started.wait()
                    scope.cancel()
            return scope.cancelled_caught

    assert asyncio.run(main()), "expected the run to be cancelled"
    assert "note: agent 'researcher': cancelled, with its loop (its call to mcp__docs__search was in flight)" in out.getvalue(), out.getvalue()
    assert not model.turns, "expected the loop to have asked for no turn after the cancel"


# -- the files ---------------------------------------------------------------------------------


def test_a_broken_agent_file_is_one_problem_naming_file_and_field_and_the_others_load(tmp_path):
    user, project = tmp_path / "home" / agents.FOLDER, tmp_path / "work" / agents.FOLDER
    user.mkdir(parents=True)
    project.mkdir(parents=True)
    (user / "researcher.md").write_text("---\nname: researcher\ndescription: the user's\n---\nUser scope.\n")
    (project / "researcher.md").write_text("---\nname: researcher\ndescription: the project's\ntools: [mcp__docs__search]\n---\nProject.\n")
    (project / "bad-tools.md").write_text("---\nname: bad-tools\ndescription: x\ntools: 3\n---\n")
    (project / "typo.md").write_text("---\nname: typo\ndescription: x\nmaxTurn: 3\n---\n")
    (project / "no-front.md").write_text("Just prose.\n")
    (project / "inline.md").write_text("---\nname: inline\ndescription: x\nmcpServers:\n  - prod: {args: [x]}\n---\n")
    (project / "fine.md").write_text("---\nname: fine\ndescription: fine\nmcpServers: [docs]\ncolor: blue\n---\nFine.\n")
    found = agents.load(agents.folders(tmp_path / "home", tmp_path / "work"), shown={"project": ".claude/agents", "user": "~/.claude/agents"})
    assert sorted(found.agents) == ["fine", "researcher"], found
    assert found.agents["researcher"].prompt == "Project." and found.agents["researcher"].tools == ("mcp__docs__search",)
    assert found.notes == ("agent 'researcher': .claude/agents/researcher.md (project) is used, not ~/.claude/agents/researcher.md",)
    assert found.problems == (
        ".claude/agents/bad-tools.md: field 'tools': expected a comma-separated string or a list of tool names",
        ".claude/agents/inline.md: field 'mcpServers[0]': server 'prod': field 'command': required",
        ".claude/agents/no-front.md: no frontmatter: the file must begin with a '---' line",
        ".claude/agents/typo.md: field 'maxTurn': not a field of Claude Code's agent files (did you mean 'maxTurns'?)",
    ), found.problems
    assert found.agents["fine"].servers == ("docs",) and found.agents["fine"].ignored == ("color",)


def test_the_allowlist_takes_exact_names_and_server_patterns_and_disallowed_first():
    def tool(name, server):
        return Tool(name, "", {}, probe_call, source=server)

    async def probe_call(arguments):
        return "ok"

    defined = agent("---\nname: a\ndescription: x\ntools: mcp__docs__*, read_file, mcp__deploy__status\n"
                    "disallowedTools: mcp__docs__get_version\n---\n")
    names = [("mcp__docs__search", "docs"), ("mcp__docs__get_version", "docs"), ("mcp__deploy__trigger", "deploy"),
             ("mcp__deploy__status", "deploy"), ("read_file", "builtin"), ("write_file", "builtin"), ("mcp__docs__x", "docs__evil")]
    allowed = [n for n, server in names if defined.allows(tool(n, server))]
    assert allowed == ["mcp__docs__search", "mcp__deploy__status", "read_file"], allowed
    everything = agent("---\nname: b\ndescription: x\n---\n")
    assert all(everything.allows(tool(n, s)) for n, s in names), "expected no tools field to allow every tool"


def test_a_named_server_not_started_yet_is_connected_for_the_agent_and_an_unknown_one_is_said(tmp_path):
    named = agent("---\nname: reader\ndescription: reads\nmcpServers: [docs, wiki]\ntools: mcp__docs__search\n---\nRead.\n")
    model = Trying([("", [(TASK, {"agent": "reader", "prompt": "look"})]), ("", [("mcp__docs__search", {"query": "x"})]),
                    ("read", []), ("done", [])])
    out = io.StringIO()
    transcript = Transcript(out)
    reached: list[str] = []

    async def main():
        async with Stack([], transcript, upto("s38", given=[Agents([named]), Output(tmp_path / "spill")])) as stack:
            async def connect():
                client = Counted("docs", reached)
                await client.list_tools()
                return client
            stack.hub.add("docs", connect)  # pending: the lead never connects it
            await run_agent(model, "go", stack.pool("lead", []), transcript, 10, stack.policy)
            return stack.hub.entries["docs"].state

    state = asyncio.run(main())
    assert reached == ["docs.search"], reached
    assert state.value == "connected", "expected docs to stay connected, the parent's, after the agent"
    assert "[reader] note: agent 'reader': test.md: field 'mcpServers': 'wiki' is not a server of the parent: it runs without it" in out.getvalue(), out.getvalue()


def test_the_output_cap_and_spill_apply_to_an_agents_call(tmp_path):
    from harness.results import ToolResult, text_block

    class Flooding(MockClient):
        async def call_tool(self, name, arguments):
            return ToolResult((text_block("line of the docs\n" * 20_000),))  # about 80,000 tokens, past the 25,000 cap

    model = Trying([("", [(TASK, {"agent": "researcher", "prompt": "look"})]), ("", [("mcp__docs__search", {"query": "x"})]),
                    ("read", []), ("done", [])])
    out = io.StringIO()
    transcript = Transcript(out)

    async def main():
        async with Stack([], transcript, upto("s38", given=[Agents([RESEARCHER]), Output(tmp_path / "spill", "spill")])) as stack:
            async def connect():
                client = Flooding(SERVERS["docs"]())
                await client.list_tools()
                return client
            stack.hub.add("docs", connect)
            await stack.connect_all()
            await run_agent(model, "go", stack.pool("lead", []), transcript, 10, stack.policy)

    asyncio.run(main())
    spilled = [line for line in out.getvalue().splitlines() if "[cut: about" in line]
    assert len(spilled) == 1 and spilled[0].startswith("[researcher]") and "over the cap of 25000. The whole text is in spill/001-docs-search.txt" in spilled[0], spilled
    assert (tmp_path / "spill" / "001-docs-search.txt").stat().st_size == len("line of the docs\n" * 20_000), "expected the whole text spilled"


@pytest.mark.slow
def test_a_form_a_server_asks_for_during_an_agents_call_says_whose_call_it_is_in_both_eras(tmp_path):
    import sys
    from pathlib import Path

    from harness import config, elicit
    from harness.ask import Ask, Script
    from harness.model import Scenario, ScriptedModel
    from harness.stack import Asking

    root = Path(__file__).resolve().parent.parent
    settings = tmp_path / "cline_mcp_settings.json"
    settings.write_text((root / "lessons/s33/cline_mcp_settings.json").read_text(encoding="utf-8"), encoding="utf-8")
    servers = config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path), [settings])
    helper = agent("---\nname: helper\ndescription: files tickets\ntools: mcp__desk__file_ticket, mcp__desk2026__triage\n---\nFile.\n")
    scenario = Scenario.parse({"prompt": "p", "answers": [{"form": {"team": "web"}}, {"form": {"team": "ops"}}], "turns": [
        {"tool_calls": [{"name": TASK, "input": {"agent": "helper", "prompt": "file it"}}]},
        {"tool_calls": [{"name": "mcp__desk__file_ticket", "input": {"summary": "Login fails"}}]},
        {"tool_calls": [{"name": "mcp__desk2026__triage", "input": {"summary": "Login fails"}}]},
        {"text": "filed"}, {"text": "done"}]}, "s.yaml")
    out = io.StringIO()

    async def main():
        transcript = Transcript(out)
        asker = elicit.Asker(transcript=transcript, ask=Ask(Script(scenario.answers)))
        parts = upto("s38", given=[Asking(asker), Agents([helper]), Output(tmp_path / "spill")], without=(Permissions,))
        async with Stack(servers, transcript, parts, environ={"PYTHON": sys.executable}) as stack:
            await stack.connect_all()
            await run_agent(ScriptedModel(scenario), scenario.prompt, stack.pool("lead", []), transcript, 10, stack.policy)

    asyncio.run(main())
    lines = out.getvalue().splitlines()
    assert "[helper]   ?? desk asks: form: Filing 'Login fails': who owns it, and how urgent is it?" in lines, out.getvalue()
    assert "[helper]   ?? desk2026 asks: form: Triage 'Login fails': which team?" in lines, out.getvalue()
