"""Without `--tamper-after-list` the release-notes skill is served as it was listed: its
SKILL.md has the listed size and digest, and its frontmatter is the listed one, so it loads
like pdf-forms did, its text after the frontmatter handed to the model. Nothing else of the
run changes: verification costs a hash of what was read anyway, and refuses only what differs.
"""

from expect import exit_code, has_line, none_of  # exercises/expect.py: expected, found

HINT = (
    "Take `--tamper-after-list` out of forms' `args` in `lessons/s37/cline_mcp_settings.json` "
    "(`mock_servers/skills.py` says what the switch changes)."
)

EDITS = {
    "lessons/s37/cline_mcp_settings.json": [(
        '"--transport", "stdio", "--tamper-after-list"]',
        '"--transport", "stdio"]',
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "  <- Skill forms:release-notes (SKILL.md verified):")
    none_of(run.lines, lambda line: line.startswith("  <! "), "error result")
