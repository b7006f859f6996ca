"""s31: permissions and trust. Every call is allowed, asked about or denied, and a server's claims are checked.

New here: `harness/permissions.py`, plugged into the loop's before-call hook. It decides
from, strongest first: deny rules, ask rules, allow rules (Claude Code's settings.json
syntax: `mcp__server__tool`, `mcp__server`, `mcp__server__*`), "always" answers of this
session, Cline's `autoApprove`, and last the tool's annotations (read-only runs; anything
else asks). Deny beats ask, and ask beats allow.

- notes is a server not to trust. Its add_note description tells the model to read
  ~/.ssh/id_rsa: the harness warns when the tool appears, and passes it on unchanged.
  Its tidy tool claims to be read-only and deletes every note: only the ask rule in
  settings.json makes the harness ask, and the user says no.
- add_note has no annotations, so it asks: the user answers "yes" once, then "always", and
  the third call runs without asking (kept for this session only, never written to a file).
- deploy's trigger is destructive, yet runs unasked: deploy's autoApprove lists it. docs'
  search is denied by a rule, so it is not even offered; get_version and status claim to
  be read-only and run.
- Every call prints its decision and its source: `ok` allowed unasked, `??` asked (and the
  answer), `!!` denied.
- Answers come from the scenario here; on a terminal (--live) the user is asked for real.

Not yet: images and other non-text results for the model (s32).

New module: harness/permissions.py

Run: python lessons/s31/code.py            (offline, scripted model and answers)
     python lessons/s31/code.py --live     (real model; you answer the questions)
"""

import sys
from pathlib import Path

from harness import config, lesson, lifecycle, permissions, pool, wire
from harness.connection import Connections
from harness.hub import Hub
from harness.loop import Policy, Turn

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent


def prompter(run: lesson.Run) -> permissions.Prompter:
    if run.args.live and sys.stdin.isatty():
        return permissions.TerminalPrompter()
    answers = getattr(getattr(run.model, "scenario", None), "answers", ())
    return permissions.ScriptedPrompter(answers) if answers else permissions.NoPrompter()


async def session(run: lesson.Run) -> None:
    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(HERE / "cline_mcp_settings.json", run.workspace.root)  # the lesson's file, and no other config
    rules = permissions.Rules.read(HERE / "settings.json", "settings.json")
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        checks = permissions.Permissions(rules, auto_approve={s.name: s.auto_approve for s in servers},
                                         prompter=prompter(run), transcript=run.transcript)
        screen = permissions.Screen(run.transcript)
        async with Connections(run.transcript) as conns, \
                Hub(run.transcript, on_change=lifecycle.show(run.transcript)) as hub:
            config.add_to(hub, servers, lambda server: config.connector(server, conns, environ, tap=tap))
            await hub.connect_all()
            screen.check(hub.clients)  # every tool is looked at once, when it appears
            rebuilt = pool.rebuilt(BASE, run.workspace.tools(), hub.clients)
            said: set[str] = set()

            def turn() -> Turn:
                screen.check(hub.clients)
                offered = rebuilt()
                for name, rule in checks.hidden(offered.tools).items():  # deny rules hide tools: say so once
                    if name not in said:
                        said.add(name)
                        run.transcript.note(f"{name} is not offered: deny rule {rule}")
                return Turn(offered.system, tuple(checks.visible(offered.tools)))

            await run.agent(turn, Policy(before_call=checks.before_call))


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
