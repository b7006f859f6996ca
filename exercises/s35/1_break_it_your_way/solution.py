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

from expect import contains, exit_code, has_line, none_of, starting  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Write a config file with a server whose `command` does not exist (say `no-such-mcp-server`) '
    'beside docs, and run `python lessons/s35/code.py --config YOUR_FILE`.'
)

SLOW = True


def solve(env):
    with patch.dict(os.environ, {"PYTHON": sys.executable}):  # what ${PYTHON} in my.json becomes: --config expands your environment
        return env.run("--config", str(env.here / "my.json"))


def check(run):
    exit_code(run, 0)
    ghost = starting(run, "note: ghost (file, stdio): failed: ", 1)
    contains(ghost[0], "no-such-mcp-server", "the ghost server's line")
    has_line(run, "           - docs: 2 tools, 2 read-only; called get_version: ok")
    none_of(run.lines, lambda line: line.startswith("           - ") and "ghost" in line, "summary line naming ghost")


def wrong(run):
    from runner import Run  # a survey in which the broken server was never named
    return Run(run.code, "\n".join(line for line in run.lines if "ghost" not in line), run.frames)
