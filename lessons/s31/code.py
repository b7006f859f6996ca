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

Not here: the connect_mcp tool (s20), since every server comes from the settings file.
Not yet: images and other non-text results for the model (s32).

New modules: harness/permissions.py, harness/ask.py (every question to the user)

Run: python lessons/s31/code.py            (offline, scripted model and answers)
     python lessons/s31/code.py --live     (real model; you answer the questions)
"""

import sys
from pathlib import Path

from harness import config, lesson, permissions, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent


async def session(run: lesson.Run) -> None:
    from harness.stack import Permissions, Reload, Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(HERE / "cline_mcp_settings.json", run.workspace.root)  # the lesson's file, and no other config
    rules = permissions.Rules.read(HERE / "settings.json", "settings.json")
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])  # each entry's autoApprove goes to the permissions
        async with Stack(servers, run.transcript, upto("s31", given=[Reload(settings, lambda: config.load(nowhere, [settings])), Permissions(rules, lesson.prompter(run))]),
                         environ=environ, tap=tap) as stack:
            await stack.connect_all()  # the screen looks at every tool once, when it appears
            # Each turn the pool leaves out what a deny rule names, and says so once; every call passes before_call.
            await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
