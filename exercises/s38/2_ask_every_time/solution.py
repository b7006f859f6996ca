"""With an ask rule on `mcp__deploy__trigger`, the lead's "always" is not remembered (an ask
rule asks every time), so the deployer is asked about its staging deploy too, and the
question says it is the deployer's. The scenario's second answer ("yes") goes to that
question, and prod's trigger, asked next, finds no answer left: no. The permissions are the
lead's, rule for rule: a subagent can be held tighter than "always" only by a rule.
"""

from expect import exit_code, has_line  # exercises/expect.py: expected, found

HINT = (
    "Add `\"ask\": [\"mcp__deploy__trigger\"]` to the permissions of `lessons/s38/project/.claude/settings.json`; "
    "`Permissions.decide` in `harness/permissions.py` says which source wins."
)

EDITS = {
    "lessons/s38/project/.claude/settings.json": [
        ('"deny": ["mcp__handbook__publish_page"]', '"deny": ["mcp__handbook__publish_page"],\n    "ask": ["mcp__deploy__trigger"]'),
    ],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "[deployer]   ?? mcp__deploy__trigger: ask rule mcp__deploy__trigger: asked, scripted answered yes")
    has_line(run, "[deployer]   ?? mcp__prod__trigger: destructive, as the server says: asked, scripted answered no")
