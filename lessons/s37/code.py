"""s37: skills from servers. A catalogue first, a skill read only when the model chooses it, every file verified.

New here: `harness/skills.py` (the extension on the wire: `skills/list` at connect, each file
read on demand and checked against the listing's digest, size and frontmatter) and
`harness/skilltool.py` (the part: the catalogue in the system prompt, the `load_skill`
tool, the trust question, s31's screen on skill text). One server, `mock_servers.skills`
("forms"), offers three skills and a `fill_form` tool:

- The model reads a one-line catalogue of the skills (names and descriptions only; the
  frames show `skills/list` at connect and no `resources/read` until the model asks).
- It loads `forms:pdf-forms`; forms is not trusted for skills in the settings file, so the
  user is asked (and answers "always"). The skill names `references/FIELDS.md`; the model
  reads it, then calls `fill_form` with the exact field names it found there.
- `forms:release-notes` changed on the server after it was listed (`--tamper-after-list`):
  its SKILL.md has another size and digest, and its load is refused in one line.

Not here: tool search (s36), the connect_mcp tool (s20): every server comes from the settings file.
Not yet: the user's own skills (`.claude/skills`), a skill's `allowed-tools`.

New modules: harness/skills.py, harness/skilltool.py, mock_servers/skills.py

Run: python lessons/s37/code.py            (offline, scripted model)
     python lessons/s37/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent


async def session(run: lesson.Run) -> None:
    from harness.skilltool import Skills  # the SDK: after the command line is parsed
    from harness.stack import Permissions, Reload, Stack, upto

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(HERE / "cline_mcp_settings.json", run.workspace.root)  # the lesson's file, and no other config
    asker = lesson.prompter(run)  # one set of answers: the trust question, then the permission for fill_form
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        parts = upto("s37", given=[Reload(settings, lambda: config.load(nowhere, [settings])), Permissions(prompter=asker),
                                   Skills(prompter=asker)])
        async with Stack(servers, run.transcript, parts, environ=environ, tap=tap) as stack:
            await stack.connect_all()  # each connection lists its server's skills, and reads none of them
            # Each turn the part adds the catalogue to the system prompt and load_skill to the tools.
            await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, wire.options)


if __name__ == "__main__":
    sys.exit(main())
