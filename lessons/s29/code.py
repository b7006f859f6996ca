"""s29: hot reload. The settings file is watched, and each edit is applied while the agent runs.

New here: `harness/reload.py`. A `Watcher` polls the settings file and reads it once it
has stopped changing for 100 ms. `diff` compares the new reading with the running one,
server by server, into add, remove, restart (a connection-relevant field changed) and
unchanged (`timeout` or `autoApprove` patched in place). A `Reloader` prints that plan
and asks the hub to act on those servers only.

- The model rewrites the file with write_file: the mirror goes, the wiki comes, deploy
  gets "disabled": true, docs gets "timeout": 120. Before its next turn the edit is
  applied: mirror stopped, deploy stopped and listed disabled, wiki started, docs left
  running with its new call timeout. The pool shows the tools that came and went.
- At the end the harness writes the file itself (the user answered "always allow" for
  docs' search). The watcher recognises its own write and does nothing: the fingerprint
  guard, without the time window older Cline used.

Not yet: resources, prompts and notifications (s30).

New module: harness/reload.py

Run: python lessons/s29/code.py            (offline, scripted model)
     python lessons/s29/code.py --wire     (and every JSON-RPC frame)
     python lessons/s29/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import json
import sys
from pathlib import Path

import anyio

from harness import config, lesson, lifecycle, pool, reload, wire
from harness.connection import Connections
from harness.hub import Hub

BASE = "You are a coding agent. Use the tools to answer; your MCP settings are in cline_mcp_settings.json; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"


async def session(run: lesson.Run) -> None:
    environ = {"PYTHON": sys.executable}  # what ${...} may use in this lesson
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        async with Connections(run.transcript) as conns, \
                Hub(run.transcript, on_change=lifecycle.show(run.transcript)) as hub, \
                anyio.create_task_group() as watching:

            def connector(server):
                return config.connector(server, conns, environ, tap=tap, reconnect=lifecycle.Backoff())

            config.add_to(hub, servers, connector)
            await hub.connect_all()
            reloader = reload.Reloader(hub, settings, lambda: config.load(nowhere, [settings]), servers, connector,
                                       run.transcript)
            watching.start_soon(reloader.run)
            rebuilt = pool.rebuilt(BASE, run.workspace.tools(), hub.clients, report=run.transcript.note)

            async def turn():
                await reloader.settled()  # an edit made during the last turn is applied before this one
                return rebuilt()

            await run.agent(turn)
            run.transcript.note("the user answers 'always allow' for docs' search: the harness records it in the file")
            try:
                data = json.loads(settings.read_text(encoding="utf-8"))
                data["mcpServers"]["docs"]["autoApprove"] = ["search"]
            except (ValueError, KeyError, TypeError):  # the model left the file broken, or without docs
                run.transcript.note("the settings file has no docs entry the harness can edit: it writes nothing")
            else:
                reloader.watcher.write(json.dumps(data, indent=2) + "\n")
                await reloader.settled()
            watching.cancel_scope.cancel()


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
