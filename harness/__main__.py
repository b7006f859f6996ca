"""``python -m harness``: the user CLI (harness/app.py), its usage naming it as run, with the SDK's client half only (``harness.sdk_half``), ended through ``harness.exits``."""

from harness import sdk_half

sdk_half.load_only("client")

from harness.app import main  # noqa: E402  (after load_only: app's SDK imports go through it)
from harness.exits import exit_now  # noqa: E402

exit_now(main(prog="python -m harness"))
