"""s39: long tools as tasks. A render polled to its end across a restart, a deploy cancelled, and input asked for.

New here: `harness/tasks.py` (the part `Tasks`, its mechanism `TaskCalls`). Three servers
speak 2026-07-28; media and deploy run with `--tasks` (mock_servers.tasks), so a long tool
answers `tools/call` with a task handle (SEP-2663, `io.modelcontextprotocol/tasks`) when the
request declares the extension, and the harness polls `tasks/get` until the task ends:

- The user picks handbook's `summarize` prompt; the handbook (`--ask-first`) answers
  `prompts/get` with an input-required result, a form asking who reads, and again for the
  page the model reads (`resources/read`). The scenario's user answers both.
- media's `render_video` runs only as a task: each new status is a note, and the media
  server crashes at the third poll (`--crash-on-poll 3`); the hub spawns it again, and the
  same task id is polled on the new session (2026-07-28 has no session to lose; the server
  kept the task in a folder). The config marks render_video long (`"tasks": [...]`).
- deploy's `trigger` becomes a task that never ends; deploy's call timeout is 1 s and its
  poll interval 10 s, so the timeout runs out before the first poll: the harness sends
  `tasks/cancel`, and the model gets the timeout as an error result.

`--wire` shows every frame: the task handle, each `tasks/get`, the `tasks/cancel`.

Not here: permissions (s31), so no call is asked about; tool search (s36); s20's connect_mcp.
Not yet: the handshake era's tasks (SEP-1686), `notifications/tasks`.

New modules: harness/tasks.py, harness/config/task_policy.py, mock_servers/tasks.py

Run: python lessons/s39/code.py            (offline, scripted model and answers)
     python lessons/s39/code.py --wire     (and every frame)
     python lessons/s39/code.py --live     (real model; you answer on the terminal)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire
from harness.loop import run_agent

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent


async def session(run: lesson.Run) -> None:
    from harness import elicit, resources
    from harness.ask import Ask
    from harness.stack import Asking, Permissions, Stack, upto  # the SDK: after the command line is parsed
    from harness.tasks import Tasks

    answers = getattr(getattr(run.model, "scenario", None), "answers", None)
    script = elicit.Script(answers) if answers is not None and not run.args.live else None
    asker = elicit.Asker(transcript=run.transcript, ask=Ask.terminal_or_nobody(script))
    environ = {"PYTHON": sys.executable, "TASKS": str(run.workspace.root / ".tasks")}  # where media keeps its tasks
    settings, nowhere = config.copied(HERE / "cline_mcp_settings.json", run.workspace.root)
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        parts = upto("s39", given=[Asking(asker), Tasks(asker)], without=(Permissions,))
        async with Stack(servers, run.transcript, parts, environ=environ, tap=tap) as stack:
            await stack.connect_all()
            run.transcript.note("the user picks handbook's summarize prompt with title=onboarding")
            prompt = run.args.prompt or await resources.expand(stack.hub.clients["handbook"], "summarize", {"title": "onboarding"})
            # Each call goes through the connection's mechanisms: a task handle is followed to its end by TaskCalls.
            await run_agent(run.model, prompt, stack.pool(BASE, run.workspace.tools()), run.transcript, run.args.max_turns,
                            policy=stack.policy)


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
