"""``python -m harness``: the user CLI (harness/app.py), ended through ``harness.exits`` (no teardown)."""

from harness.app import main
from harness.exits import exit_now

exit_now(main())
