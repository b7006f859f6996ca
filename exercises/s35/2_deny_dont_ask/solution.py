"""A deny rule is stronger than an "always" (s31): `mcp__notes__add_note` is no longer
offered, and the harness says so once, `note: mcp__notes__add_note is not offered: deny
rule mcp__notes__add_note`. The pool the model sees has no add_note in it, so the scripted
model, which still wants to call it, stops the run: a scenario may only call what it was
handed that turn. A live model would simply not see the tool.

Claude Code users write the same rule in `.claude/settings.json` (`permissions.deny`);
`permissions.Rules.read` reads that file, as s31 does.
"""

from expect import exit_code, has_line, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`permissions.Rules(deny=("mcp__notes__add_note",))` given as `rules=` where '
    '`lessons/s35/code.py` builds its `Permissions`; a denied tool is not offered at all.'
)

EDITS = {
    "lessons/s35/code.py": [(
        "Permissions(prompter=permissions.Asking(Ask.terminal_or_nobody(script))),",
        "Permissions(permissions.Rules(deny=(\"mcp__notes__add_note\",)), permissions.Asking(Ask.terminal_or_nobody(script))),",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 1)
    has_line(run, "note: mcp__notes__add_note is not offered: deny rule mcp__notes__add_note")
    that(run.lines[-1].startswith("error: ") and "'mcp__notes__add_note' is not in this turn's pool" in run.lines[-1],
         "the run to stop at the call of a tool not in the pool", show(run.lines[-1]))
    none_of(run.lines, lambda line: line.startswith("  ?? mcp__notes__add_note"), "question about the denied tool")
