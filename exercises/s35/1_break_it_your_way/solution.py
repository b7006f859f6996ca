"""The survey calls `get_version` on docs (read-only, no arguments) and sums up docs only:
`- docs: 2 tools, 2 read-only; called get_version: ok`. The broken server never reaches
the model, so the model's summary cannot name it. The lesson's own listing after the
connects does: `note: ghost (file, stdio): failed: ...`, with the command that could
not start.

That is the s27 rule at work on your file: one bad entry costs one server. The command
is checked when the server starts, not when the file is read, because a command may
exist on one machine and not on another.
"""

import os
import sys
from unittest.mock import patch

SLOW = True


def solve(env):
    with patch.dict(os.environ, {"PYTHON": sys.executable}):  # what ${PYTHON} in my.json becomes: --config expands your environment
        return env.run("--config", str(env.here / "my.json"))


def check(run):
    assert run.code == 0, run.text
    ghost = [line for line in run.lines if line.startswith("note: ghost (file, stdio): failed: ")]
    assert len(ghost) == 1 and "no-such-mcp-server" in ghost[0], ghost
    assert "           - docs: 2 tools, 2 read-only; called get_version: ok" in run.lines, run.text
    assert not any("ghost" in line for line in run.lines if line.startswith("           - ")), "the summary names only servers the model saw"
