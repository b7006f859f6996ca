"""s30: MCP beyond tools. Resources, prompts, log messages and list_changed notifications.

New here: `harness/resources.py`, and the connection now lists what a server declares
besides tools. The servers come from a Cline settings file: docs (tools only) and
handbook (tools, resources, a resource template, a prompt, log messages, list_changed).

- The conversation starts from a prompt: the user picks handbook's `summarize` with
  title=onboarding (a slash command in Claude Code); `resources.expand` turns the server's
  messages into the first user message.
- Resources reach the model as two built-in tools, `list_mcp_resources` and
  `read_mcp_resource`, offered once because one connected server has resources.
- `publish_page` makes the server log a message (shown with that call) and send
  notifications/resources/list_changed and notifications/tools/list_changed. The
  connection lists both again before the call returns, so the next turn's pool shows
  `archive_page`. The server's "index rebuilt" log, sent while no call ran, waits and is
  shown at the start of the next turn.

Not here: the connect_mcp tool (s20), since every server comes from the settings file.
Not yet: images, audio and other non-text results for the model (s32).

New module: harness/resources.py

Run: python lessons/s30/code.py            (offline, scripted model)
     python lessons/s30/code.py --wire     (and every JSON-RPC frame)
     python lessons/s30/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire
from harness.loop import run_agent

BASE = "You are a coding agent. Use the tools to answer; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"


async def session(run: lesson.Run) -> None:
    from harness import resources
    from harness.stack import Reload, Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        async with Stack(servers, run.transcript, upto("s30", given=[Reload(settings, lambda: config.load(nowhere, [settings]))]), environ=environ, tap=tap) as stack:
            await stack.connect_all()
            for row in resources.prompt_rows(stack.hub):
                run.transcript.note(f"prompt {row['server']}/{row['name']}: {row['description']}")
            run.transcript.note("the user picks handbook's summarize prompt with title=onboarding")
            prompt = run.args.prompt or await resources.expand(stack.hub.clients["handbook"], "summarize", {"title": "onboarding"})
            # The pool offers the two resource tools while a server has resources, and shows queued logs each turn.
            await run_agent(run.model, prompt, stack.pool(BASE, run.workspace.tools(), report=run.transcript.note),
                            run.transcript, run.args.max_turns)


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
