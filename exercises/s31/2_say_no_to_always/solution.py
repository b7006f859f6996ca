"""Four questions instead of three: each `add_note` is asked about (nothing was answered
"always", so nothing is remembered), and `tidy` is asked about because of its ask rule.
The answers are yes, no, no, and then the script has none left, which counts as no. On
the third `add_note` the model reads an error result: `permission denied: the user
declined mcp__notes__add_note (not marked read-only)`, and the note is not written. The
run goes on: a denial is a result, not an end.
"""

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    assert run.code == 0, run.text
    asked = [line for line in run.lines if line.startswith("  ?? ")]
    assert len(asked) == 4, asked
    assert [line.rsplit(" ", 1)[-1] for line in asked] == ["yes", "no", "no", "no"], asked
    third = [i for i, line in enumerate(run.lines) if line == '  -> mcp__notes__add_note {"text": "retro on Monday"}'][0]
    assert run.lines[third + 2] == "  <! permission denied: the user declined mcp__notes__add_note (not marked read-only)", run.lines[third:third + 3]
