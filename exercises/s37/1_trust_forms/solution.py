"""With `"trustSkills": true` in forms' entry, the skills of forms load without a question: no
`?? load_skill` line. The scenario's answers are still read in order, so its first answer,
"always", now goes to the one question left, the permission for `fill_form` (not marked
read-only), and the second is never used. Trusting a server's skills is not trusting its
tools: s31 still asks before the call.
"""

from expect import exit_code, has_line, none_of  # exercises/expect.py: expected, found

HINT = (
    "Add `\"trustSkills\": true` to forms' entry in `lessons/s37/cline_mcp_settings.json`: the skills part "
    "(`harness/skilltool.py`, `Loader.trusted`) reads it from the entry."
)

EDITS = {
    "lessons/s37/cline_mcp_settings.json": [(
        '"args": ["-m", "mock_servers.skills", "--transport", "stdio", "--tamper-after-list"]',
        '"args": ["-m", "mock_servers.skills", "--transport", "stdio", "--tamper-after-list"],\n      "trustSkills": true',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    none_of(run.lines, lambda line: line.startswith("  ?? load_skill"), "trust question for forms' skills")
    has_line(run, "  ?? mcp__forms__fill_form: not marked read-only: asked, scripted answered always")
