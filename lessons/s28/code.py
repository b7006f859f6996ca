"""s28: lifecycle. Every state is shown; a crashed server is spawned again after a backoff wait.

New here: `harness/lifecycle.py`. The servers come from a Cline settings file (as s27
taught), and each connection gets a reconnect policy, `Backoff()`: after a failure wait
1 s, then 2, 4, 8, 16 (at most 30), and give up after 5 failures in a row, for every
transport, stdio included. Every transition the hub makes is printed as a `state:` line.

- docs connects. deploy connects, answers one call, and its process exits on the next
  (`--crash-after 1`): the call fails, the hub shows failed, then pending with the wait.
  The model calls deploy again: the call cuts the wait short (reconnect on next use), the
  server is spawned again, with its ${PYTHON} expanded again, and the call goes through.
- search hangs at start (`--slow-start 30`). Its own connect timeout (`"timeouts":
  {"connect": 1}` in its entry) fails it after 1 s, and the error says which timeout fired
  and where to change it. It holds one of the local slots; the others are not delayed.
- At the end the user reconnects deploy by hand (`hub.reconnect`), as `/mcp` does.

Not here: the connect_mcp tool (s20), since every server comes from the settings file.
Not yet: reloading the settings file while the agent runs (s29).

New module: harness/lifecycle.py

Run: python lessons/s28/code.py            (offline, scripted model)
     python lessons/s28/code.py --wire     (and every JSON-RPC frame)
     python lessons/s28/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"


async def session(run: lesson.Run) -> None:
    from harness.stack import Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}  # what ${...} may use in this lesson
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        async with Stack(servers, run.transcript, upto("s28"), environ=environ, tap=tap) as stack:
            await stack.connect_all()  # a few local (hub.local_limit) and at most 20 remote servers starting at once
            await run.agent(stack.pool(BASE, run.workspace.tools(), report=run.transcript.note))
            run.transcript.note("the user reconnects deploy by hand")
            await stack.hub.reconnect("deploy")


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
