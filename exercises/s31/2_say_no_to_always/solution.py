"""Four questions instead of three: each `add_note` is asked about (nothing was answered
"always", so nothing is remembered), and `tidy` is asked about because of its ask rule.
The answers are yes, no, no, and then the script has none left, which counts as no. On
the third `add_note` the model reads an error result: `permission denied: the user
declined mcp__notes__add_note (not marked read-only)`, and the note is not written. The
run goes on: a denial is a result, not an end.
"""

from expect import equal, exit_code, line_at, starting  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Copy `lessons/s31/scenario.yaml`; its `answers:` list is what the scripted user says to each '
    '`??` question (`yes`, `no`, `always`), in order.'
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    asked = starting(run, "  ?? ", 4)
    equal([line.rsplit(" ", 1)[-1] for line in asked], ["yes", "no", "no", "no"], "the answers to the four questions")
    third = line_at(run, '  -> mcp__notes__add_note {"text": "retro on Monday"}')
    equal(run.lines[third + 2], "  <! permission denied: the user declined mcp__notes__add_note (not marked read-only)",
          "the third add_note's result")
