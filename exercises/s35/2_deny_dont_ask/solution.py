"""A deny rule is stronger than an "always" (s31): `mcp__notes__add_note` is no longer
offered, and the harness says so once, `note: mcp__notes__add_note is not offered: deny
rule mcp__notes__add_note`. The pool the model sees has no add_note in it, so the scripted
model, which still wants to call it, stops the run: a scenario may only call what it was
handed that turn. A live model would simply not see the tool.

Claude Code users write the same rule in `.claude/settings.json` (`permissions.deny`);
`permissions.Rules.read` reads that file, as s31 does.
"""

EDITS = {
    "lessons/s35/code.py": [(
        "Permissions(prompter=permissions.Asking(Ask.terminal_or_nobody(script))),",
        "Permissions(permissions.Rules(deny=(\"mcp__notes__add_note\",)), permissions.Asking(Ask.terminal_or_nobody(script))),",
    )],
}
RUN = ()
SLOW = True


def check(run):
    assert run.code == 1, run.text
    assert "note: mcp__notes__add_note is not offered: deny rule mcp__notes__add_note" in run.lines, run.text
    assert run.lines[-1].startswith("error: ") and "'mcp__notes__add_note' is not in this turn's pool" in run.lines[-1], run.lines[-1]
    assert not any(line.startswith("  ?? mcp__notes__add_note") for line in run.lines), "a denied tool is never asked about"
