"""Swapping the two `connect_mcp` calls moves only those calls and their results: the
`tools`, `pool:`, `system|` and `note: the model sees:` lines are byte for byte the same,
because `assemble` sorts each block and `system_prompt` sorts the server names. In s21
the same swap reorders the pool (connection order), so the tool list the model gets
depends on history, and a prompt cache keyed on it would miss.
"""

RUN = ("--scenario", "{here}/scenario.yaml")


def solve(env):
    from pathlib import Path

    run = env.run("--scenario", "{here}/scenario.yaml")
    pinned = (Path(__file__).resolve().parents[3] / "tests" / "snapshots" / "s22" / "default.transcript").read_text(encoding="utf-8")
    return run, pinned


def check(result):
    run, pinned = result
    assert run.code == 0, run.text
    mine, theirs = run.lines, pinned.splitlines()
    assert len(mine) == len(theirs), "same number of lines"
    moved = [(a, b) for a, b in zip(mine, theirs) if a != b]
    assert moved and all("connect_mcp" in a or "Connected to" in a for a, _ in moved), moved
    assert sorted(mine) == sorted(theirs), "the same lines, only the connect lines in another order"
