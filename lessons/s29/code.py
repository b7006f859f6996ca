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

Not here: the name checker (s21), whose notes on the wiki's renamed tools would crowd this
run; the connect_mcp tool (s20), since every server comes from the file.
Not yet: resources, prompts and notifications (s30).

New module: harness/reload.py

Run: python lessons/s29/code.py            (offline, scripted model)
     python lessons/s29/code.py --wire     (and every JSON-RPC frame)
     python lessons/s29/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import json
import sys
from pathlib import Path

from harness import config, lesson, nesting, wire
from harness.config.files import read_config
from harness.errors import ConfigError

BASE = "You are a coding agent. Use the tools to answer; your MCP settings are in cline_mcp_settings.json; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"


async def session(run: lesson.Run) -> None:
    from harness.stack import Naming, Reload, Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}  # what ${...} may use in this lesson
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        watched = Reload(settings, lambda: config.load(nowhere, [settings]))
        async with Stack(servers, run.transcript, upto("s29", given=[watched], without=(Naming,)), environ=environ, tap=tap) as stack:
            await stack.connect_all()
            await run.agent(stack.pool(BASE, run.workspace.tools(), report=run.transcript.note))  # each turn applies the edits first
            run.transcript.note("the user answers 'always allow' for docs' search: the harness records it in the file")
            try:  # the model may have left it anything: a FIFO, 5,000 levels deep, without docs
                data = nesting.loads(read_config(settings, settings.name) or b"")
                data["mcpServers"]["docs"]["autoApprove"] = ["search"]
            except (ConfigError, ValueError) as exc:  # ValueError: not JSON, or nested past the limit
                run.transcript.note(f"the settings file cannot be read ({exc}): the harness writes nothing")
            except (KeyError, TypeError):
                run.transcript.note("the settings file has no docs entry the harness can edit: it writes nothing")
            else:
                watched.reloader.watcher.write(json.dumps(data, indent=2) + "\n")
                await watched.reloader.settled()


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
