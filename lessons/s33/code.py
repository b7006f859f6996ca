"""s33: elicitation, sampling and roots. Servers ask the client, and the client answers only what it offers.

New here: `harness/elicit.py`, and the connection's input rounds. The desk server asks,
while a tool runs:

- file_ticket: a form (team required, priority and notify with defaults). The user fills
  in the team; the defaults fill the rest (SEP-1034). The second ticket is declined.
- link_account: error -32042, "visit this page first". The harness shows the URL, waits
  for the user's "done", and calls again.
- suggest_title: sampling. The user allows it; the harness's own model answers (scripted
  here, the real API with --live), at most 3 requests and 1000 tokens per server.
- workspace: roots. The root is the workspace; when the user moves it to project/, every
  server is told (notifications/roots/list_changed) and the next listing shows it.
- desk2026 is the same server reached the 2026-07-28 way (server/discover, no session):
  it cannot send requests, so triage answers "input required" with a form; the
  harness answers it and calls again with the answer. Each entry pins its era in the
  file (`"protocol"`: "2025-11-25" for desk, "2026-07-28" for desk2026; s34 negotiates).

The client declares exactly these capabilities, because it passes exactly these callbacks.
Sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577), and still widely served.

Not here: permissions (s31), so no call is asked about and every answer is for a server;
the connect_mcp tool (s20), since every server comes from the file.
Not yet: the 2026-07-28 protocol in full (s34).

New module: harness/elicit.py

Run: python lessons/s33/code.py            (offline: scripted model and answers)
     python lessons/s33/code.py --live     (real model; you answer on the terminal)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"
MOVE_BEFORE_TURN = 6  # the user switches the workspace to project/ before the model's sixth turn


async def session(run: lesson.Run) -> None:
    from harness import elicit
    from harness.ask import Ask
    from harness.stack import Asking, Output, Permissions, Reload, Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    answers = getattr(getattr(run.model, "scenario", None), "answers", None)
    script = elicit.Script(answers) if answers is not None and not run.args.live else None
    asker = elicit.Asker(transcript=run.transcript, ask=Ask.terminal_or_nobody(script))
    sampler = elicit.Sampler(run.model, asker, script)
    roots = elicit.Roots(run.workspace.root)

    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        async with Stack(servers, run.transcript, upto(given=[Reload(settings, lambda: config.load(nowhere, [settings])), Output(run.workspace.root / ".mcp-output", ".mcp-output"),
                                                      Asking(asker, sampler, roots)], without=(Permissions,)),
                         environ=environ, tap=tap) as stack:
            await stack.connect_all()
            rebuilt = stack.pool(BASE, run.workspace.tools())
            turns = 0

            async def turn():
                nonlocal turns
                turns += 1
                if turns == MOVE_BEFORE_TURN:
                    (run.workspace.root / "project").mkdir()
                    run.transcript.note("the user moves the workspace to project/")
                    await roots.move(run.workspace.root / "project", stack.hub.clients.values())
                return await rebuilt()

            await run.agent(turn, stack.policy)


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
