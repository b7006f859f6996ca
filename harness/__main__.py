"""``python -m harness``: the user CLI (harness/app.py), its usage naming it as run."""

import sys

from harness.app import main

sys.exit(main(prog="python -m harness"))
