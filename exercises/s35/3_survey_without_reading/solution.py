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

from expect import exit_code, has_line, none_of, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Write a config with only the `desk` server (`python -m mock_servers.desk`) and run `python '
    'lessons/s35/code.py --config YOUR_FILE`: the survey calls only tools marked read-only.'
)

SLOW = True


def solve(env):
    with patch.dict(os.environ, {"PYTHON": sys.executable}):  # what ${PYTHON} in desk.json becomes: --config expands your environment
        return env.run("--config", str(env.here / "desk.json"))


def check(run):
    exit_code(run, 0)
    has_line(run, "           - desk: 5 tools, 0 read-only; nothing called (no tool is marked read-only)")
    none_of(run.lines, lambda line: line.startswith("  -> mcp__desk__"), "call of a desk tool")
    answers = [line for line in run.lines if "Not called, not marked read-only" in line]
    that(answers, "an answer that says 'Not called, not marked read-only'", "none")
    asked = answers[0]
    that("mcp__desk__file_ticket" in asked and "mcp__desk__workspace" in asked,
         "the answer to name the tools not called (file_ticket, workspace)", show(asked))


def wrong(run):
    from runner import Run  # a survey that called a tool not marked read-only
    return Run(run.code, run.text + '\n  -> mcp__desk__file_ticket {"summary": "survey"}', run.frames)
