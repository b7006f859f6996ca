"""Run one lesson as the program and write down its own CPU and its servers' (for bench/run.py's lessons section).

    python bench/lesson_cpu.py OUT.json lessons/sNN/code.py [ARGS...]

The lesson runs as ``__main__`` in this process, as ``python lessons/sNN/code.py`` would
run it. When it ends (``harness.exits.exit_now``), OUT.json gets ``self``, the CPU seconds
of the lesson's own process, and ``servers``, those of every process it started and
waited for (its stdio and HTTP servers: ``RUSAGE_CHILDREN``), then the process exits with
the lesson's code. No harness module is changed: only the exit is watched.
"""

import json
import resource
import runpy
import sys

from harness import exits

out, sys.argv = sys.argv[1], sys.argv[2:]
leave = exits.exit_now


def report(code: int) -> None:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w", encoding="utf-8") as file:
        json.dump({"self": me.ru_utime + me.ru_stime, "servers": children.ru_utime + children.ru_stime, "code": code}, file)
    leave(code)


exits.exit_now = report
runpy.run_path(sys.argv[0], run_name="__main__")
report(0)  # a lesson that returned without exit_now (not one of ours)
