"""Tasks on the user CLI (s39): every command that connects follows SEP-2663 tasks, with status lines on stderr.

    mcp-course call media.render_video          a task: one stderr line per status, then the result
    (Ctrl-C while it runs)                      tasks/cancel is sent before the exit (130)

``harness.tasks.Tasks`` goes into the stack of every command that connects (``chat``
included); a server entry's ``"tasks"`` field says how for that server (``"off"``: not at
all). A task's lines go to stderr as ``task: SERVER/TOOL: ...`` whether or not it is a
terminal: a task may run for minutes, and what reads stdout still gets the result alone.
A form a task asks for is answered as the command's other forms are (``--answer``, the
terminal, or declined).

A CLI extension (``harness.commands.extension``), imported when the parser is built: nothing
heavy at the top. Not handled here: following a task (``harness.tasks``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from harness.commands.extension import Extension

if TYPE_CHECKING:
    from harness.parts import Part


def _status(text: str) -> None:
    sys.stderr.write(f"task: {text}\n")  # the process's stderr: the parser's args carry no stream
    sys.stderr.flush()


class TaskLines(Extension):
    """The tasks part in every command's stack."""

    def parts(self, args: argparse.Namespace) -> list[Part]:
        from harness import elicit  # the SDK: only once there is something to connect
        from harness.ask import Ask
        from harness.tasks import Tasks

        answers = vars(args).get("answer") or []
        asker = elicit.Asker(ask=Ask.terminal_or_nobody(elicit.Script(answers) if answers else None))
        return [Tasks(asker, _status)]


EXTENSION = TaskLines()
