"""Swapping the two `connect_mcp` calls moves only those calls and their results: the
`tools`, `pool:`, `system|` and `note: the model sees:` lines are byte for byte the same,
because `assemble` sorts each block and `system_prompt` sorts the server names. In s21
the same swap reorders the pool (connection order), so the tool list the model gets
depends on history, and a prompt cache keyed on it would miss.
"""

from expect import equal, exit_code, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Swap the two `connect_mcp` calls in your copy of the scenario (the lesson connects `deploy` first: '
    'connect `docs` first); `harness.pool.assemble` sorts the MCP tools by name, so only the connect lines move.'
)

RUN = ("--scenario", "{here}/scenario.yaml")


def solve(env):
    run = env.run("--scenario", "{here}/scenario.yaml")
    pinned = env.pinned("default.transcript")
    return run, pinned


def check(result):
    run, pinned = result
    exit_code(run, 0)
    mine, theirs = run.lines, pinned.splitlines()
    equal(len(mine), len(theirs), "as many lines as the pinned run:")
    moved = [(a, b) for a, b in zip(mine, theirs) if a != b]
    that(moved, "the connect lines in another order than the pinned run", "a run the same as the pinned one")
    that(all("connect_mcp" in a or "Connected to" in a for a, _ in moved), "only connect lines to differ",
         f"{show(moved[0][0])} where the pinned run has {show(moved[0][1])}" if moved else "")
    that(sorted(mine) == sorted(theirs), "the same lines as the pinned run, in another order", "other lines")
