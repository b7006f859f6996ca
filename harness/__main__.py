"""``python -m harness``: the user CLI (harness/app.py)."""

import sys

from harness.app import main

sys.exit(main())
