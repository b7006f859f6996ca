"""Nothing. The desk marks none of its five tools read-only (it sends no annotations at
all), so the survey calls none of them and says why:
`- desk: 5 tools, 0 read-only; nothing called (no tool is marked read-only)`, then lists
the five as tools it would ask about first.

No annotation is not the same as "not read-only" in fact: `workspace` only lists the
roots. But an annotation is the server's claim, and without one the harness assumes the
worst (s31). A survey that guessed from names or descriptions would trust exactly the text
a hostile server writes.
"""

import os
import sys
from unittest.mock import patch

SLOW = True


def solve(env):
    with patch.dict(os.environ, {"PYTHON": sys.executable}):  # what ${PYTHON} in desk.json becomes: --config expands your environment
        return env.run("--config", str(env.here / "desk.json"))


def check(run):
    assert run.code == 0, run.text
    assert "           - desk: 5 tools, 0 read-only; nothing called (no tool is marked read-only)" in run.lines, run.text
    assert not any(line.startswith("  -> mcp__desk__") for line in run.lines), "the survey calls nothing that is not read-only"
    asked = next(line for line in run.lines if "Not called, not marked read-only" in line)
    assert "mcp__desk__file_ticket" in asked and "mcp__desk__workspace" in asked, asked
