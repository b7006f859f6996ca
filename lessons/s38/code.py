"""s38: subagents. The lead hands tasks to a researcher and a deployer, who share its servers.

New here: `harness/agents.py` (Claude Code's agent files, `.claude/agents/NAME.md`, read and
checked) and `harness/subagents.py` (the part: the `task` tool, each agent's pool, its calls
through the parent's connections). The project folder, `lessons/s38/project/`, is laid out as
Claude Code's: `.mcp.json` (docs, handbook, deploy), `.claude/settings.json` (a deny rule),
`.claude/agents/researcher.md` and `deployer.md`.

- The researcher may use docs and handbook tools only; the deny rule on publish_page holds
  for it as for the lead, so its pool has three tools.
- The deployer may use deploy, and prod: a server only its file defines, started when it
  gets its task and stopped when it is done. The lead's "always" for deploy's trigger holds
  for it; prod's trigger asks the user, and the question says it is the deployer's.
- Each server runs once: three processes before the agents run, three after, though three
  agents used them. Everything an agent prints begins with its name.

`--scenario lessons/s38/cancel.yaml --ctrl-c-on get_version` is the cancel: docs never
answers get_version, and Ctrl-C, pressed for you once the researcher's call is on its way,
ends that call and the researcher's loop (exit 130).

Not here: the connect_mcp tool (s20), tool search (s36).

New modules: harness/agents.py, harness/subagents.py

Run: python lessons/s38/code.py            (offline, scripted model)
     python lessons/s38/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import os
import signal
import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Hand each task to the agent that fits it; be brief."
PROJECT = Path(__file__).resolve().parent / "project"


async def session(run: lesson.Run) -> None:
    from harness import agents, permissions  # the SDK: after the command line is parsed
    from harness.stack import Permissions, Stack, upto
    from harness.subagents import Agents, server_processes

    found = agents.load([("project", PROJECT / agents.FOLDER)], shown={"project": ".claude/agents"})
    for problem in found.problems:
        run.transcript.warning(problem)
    rules = permissions.Rules.read(PROJECT / ".claude" / "settings.json", ".claude/settings.json")
    settings, nowhere = config.copied(PROJECT / ".mcp.json", run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        press = [PressCtrlC(run.args.ctrl_c_on)] if run.args.ctrl_c_on else []
        parts = upto("s38", given=[Permissions(rules, lesson.prompter(run)), Agents(list(found.agents.values())), *press])
        async with Stack(servers, run.transcript, parts, environ={"PYTHON": sys.executable}, tap=tap) as stack:
            await stack.connect_all()
            run.transcript.note(f"server processes: {server_processes()}, one per server")
            await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)
            run.transcript.note(f"server processes after the run: {server_processes()}")


def PressCtrlC(tool: str):  # noqa: N802  (named as the part it makes)
    """A part whose mechanism sends this process SIGINT, as Ctrl-C does, once a call to ``tool`` is on its way."""
    from harness.hooks import Mechanism
    from harness.parts import Part

    class Press(Mechanism):
        async def around_send(self, call, proceed):
            if call.tool == tool:
                os.kill(os.getpid(), signal.SIGINT)  # the trap cancels the run at its next await: this call's
            return await proceed(call)

    class Pressing(Part):
        def mechanisms(self, server, built):
            return [Press()]

    return Pressing()


def options(parser) -> None:
    wire.options(parser)
    parser.add_argument("--ctrl-c-on", metavar="TOOL", help="press Ctrl-C once a call to TOOL is on its way (the cancel)")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
