"""``python -m harness``: the user CLI (harness/app.py), its usage naming it as run; ``app.console`` starts and ends it."""

from harness.app import console

console(prog="python -m harness")
