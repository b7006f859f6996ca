"""How long the test suite takes here: wall time, the ten slowest tests, and the load beside it.

Runs ``python -m pytest`` (any arguments after ``--`` go to it, for example ``-m "not slow"``)
from the repository root, ``--runs`` times in a row, and prints for each run its outcome,
its wall time, its CPU time (user + system of pytest and everything it started and waited
for: on a shared machine the steadier figure, as a busy neighbour stretches the wall time
but hardly the CPU time; on an idle machine the wall time is about the CPU time over the
cores, plus the last tests of a worker), the load average when it started, ended and at its
highest (sampled every 5 s), its ten slowest tests (setup, call and teardown together) and the test time per file. With ``--burn N``, N
busy loops (``python -c 'while True: pass'``) run beside the suite and are stopped after
the last run: the "busy machine" figure.

A figure is only worth what its load says: the machine is often shared, so read the time
with the load beside it. The suite's own bounds never check speed (tests/limits.py); this
is where speed is measured.

Run: python bench/suite.py                         (the whole suite, once)
     python bench/suite.py -- -m "not slow"        (the fast lane)
     python bench/suite.py --burn 2 --runs 3       (three runs beside two busy loops)
     python bench/suite.py --json out.json ...     (also write the figures as JSON)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = 5.0  # seconds between two looks at the load average


def load() -> float:
    return os.getloadavg()[0]


def durations(junit: Path) -> list[tuple[float, str]]:
    """Every test of a junit report, slowest first: (seconds, test id)."""
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return []
    found = []
    for case in root.iter("testcase"):
        path = case.get("classname", "").replace(".", "/")
        found.append((float(case.get("time") or 0), f"{path}.py::{case.get('name')}"))
    return sorted(found, reverse=True)


def by_file(tests: list[tuple[float, str]]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for seconds, test in tests:
        totals[test.split("::")[0]] = totals.get(test.split("::")[0], 0.0) + seconds
    return totals


def run_once(pytest_args: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="suite-bench-") as tmp:
        junit = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "--junitxml", str(junit), *pytest_args]
        loads, done = [load()], threading.Event()

        def sample() -> None:
            while not done.wait(SAMPLE):
                loads.append(load())

        sampler = threading.Thread(target=sample, daemon=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        sampler.start()
        finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the busy loops are not waited for yet: not in it
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        done.set()
        sampler.join()
        loads.append(load())
        tests = durations(junit)
        summary = next((line for line in reversed(finished.stdout.splitlines()) if " in " in line and ("passed" in line or "failed" in line)),
                       finished.stdout.splitlines()[-1] if finished.stdout else "(no output)")
        log = None
        if finished.returncode != 0:  # a busy run's failure may not come again: its whole output is kept
            fd, log = tempfile.mkstemp(prefix="suite-run-", suffix=".log")
            with os.fdopen(fd, "w", encoding="utf-8") as kept:
                kept.write(finished.stdout + finished.stderr)
        return {"command": " ".join(["pytest", *pytest_args]), "exit": finished.returncode, "summary": summary.strip("= "),
                "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_start": round(loads[0], 2), "load_end": round(loads[-1], 2),
                "load_max": round(max(loads), 2), "load_mean": round(sum(loads) / len(loads), 2), "cpus": os.cpu_count(),
                "slowest": [{"s": round(s, 1), "test": t} for s, t in tests[:10]],
                "files": [{"s": round(s, 1), "file": f} for f, s in sorted(by_file(tests).items(), key=lambda x: -x[1])],
                "failures": [line for line in finished.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))], "log": log}


def report(number: int, figures: dict, out) -> None:
    print(f"## run {number}: {figures['summary']} (exit {figures['exit']})", file=out)
    print(f"wall {figures['wall_s']:.0f} s, CPU {figures['cpu_s']:.0f} s; load average (1 min) {figures['load_start']} at the start, {figures['load_end']} at the end, "
          f"{figures['load_max']} at most, {figures['load_mean']} on average; {figures['cpus']} CPUs", file=out)
    for line in figures["failures"]:
        print(f"  {line}", file=out)
    if figures["log"]:
        print(f"  pytest's whole output: {figures['log']}", file=out)
    print("slowest:", file=out)
    for row in figures["slowest"]:
        print(f"  {row['s']:7.1f} s  {row['test']}", file=out)
    print("test time per file (summed over the workers, so more than the wall time), the ten largest:", file=out)
    for row in figures["files"][:10]:
        print(f"  {row['s']:7.1f} s  {row['file']}", file=out)
    out.flush()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, pytest_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("--runs", type=int, default=1, help="runs in a row (default 1)")
    parser.add_argument("--burn", type=int, default=0, metavar="N", help="busy loops beside the suite (default 0)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(ours)
    burners = [subprocess.Popen(["nice", "-n", "0", sys.executable, "-c", "while True: pass"]) for _ in range(args.burn)]
    results = []
    try:
        if burners:
            print(f"{len(burners)} busy loop(s) beside the suite: pids {' '.join(str(b.pid) for b in burners)}", flush=True)
        for number in range(1, args.runs + 1):
            results.append(run_once(pytest_args))
            report(number, results[-1], sys.stdout)
            if args.json:
                args.json.write_text(json.dumps({"burn": args.burn, "runs": results}, indent=2) + "\n")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return max((r["exit"] for r in results), default=1)


if __name__ == "__main__":
    raise SystemExit(main())
