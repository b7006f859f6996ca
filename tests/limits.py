"""Every time limit of the tests, in one place, scaled by one factor.

A limit here catches a hang. It is several times what its step takes on an idle 2-core
machine, then multiplied by ``SLACK``; no test checks how fast the machine is (speed is
measured in ``bench/``). A limit that fires means "this never ends", so its message names
the step that hung.

``MCP_COURSE_TEST_SLACK`` (a number, default 5) multiplies every limit. The default
holds at a load of 4 per core: a step that gets a fifth of a core takes five times as
long. Raise it on a slower or busier machine; lower it (1) to find a hang faster.

The timeouts a test hands to the harness come from here too (``TIMEOUTS``): a server's
connect timeout is never below 30 s, unless the test is about that timeout. Such a test
names its short timeout where it uses it, against a server that never answers (a hang,
``--slow-start 60``), so the timeout firing late under load cannot change the outcome.
"""

from __future__ import annotations

import os

from harness.spec import Timeouts


def _slack(raw: str | None) -> float:
    try:
        value = float(raw) if raw else 5.0
    except ValueError:
        raise SystemExit(f"error: MCP_COURSE_TEST_SLACK: expected a number, got {raw!r}") from None
    if not value > 0:
        raise SystemExit(f"error: MCP_COURSE_TEST_SLACK: expected a number above 0, got {raw!r}")
    return value


SLACK = _slack(os.environ.get("MCP_COURSE_TEST_SLACK"))


def scaled(seconds: float) -> float:
    """``seconds`` (a bound on an idle machine) times the slack."""
    return seconds * SLACK


STEP = scaled(10)  # one step in process: a connect, a listing, a call, an in-process lesson run
RUN = scaled(20)  # one child process from start to exit: a lesson, the CLI, a server run by hand
STOP = scaled(6)  # from a signal (or the end of input) to the exit, every server stop included
REAP = scaled(2)  # after a test, for what it started to be stopped and reaped (tests/leaks.py)
TEST = scaled(60)  # a whole test (pytest-timeout): the last resort when a step has no bound of its own

# Timeouts for servers a test connects without testing a timeout: hangs are caught, slowness never is.
TIMEOUTS = Timeouts(connect=max(30.0, scaled(10)), list=scaled(10), call=scaled(10), exit_grace=0.5, kill_grace=1)
