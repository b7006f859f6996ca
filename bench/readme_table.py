"""bench/README.md's performance table, from one bench/run.py run's JSON (default bench/results.json).

    python bench/readme_table.py [bench/results.json]

Prints markdown: what was measured, each contender's figure and ratio (and the client's
CPU per call where the run measured it), then one line with the machine's cores, the
load average before and after the run, its rounds and its length. Paste it into bench/README.md's
"Performance" section; nothing here is measured again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHAT = {"call": "a `tools/call`", "memory": "memory, tap on", "connect": "connect", "close": "close",
        "cli": "the CLI's `servers`", "pool": "the pool", "lessons": "a lesson"}


def render(report: dict) -> str:
    lines = ["| what | contender | median | ratio | client CPU per call (ratio) |", "|---|---|---:|---:|---:|"]
    last = None
    for row in report["rows"]:
        case = f"{WHAT.get(row['section'], row['section'])}: {row['case']}"
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
        if "floor" in row:
            ratio += f" of its floor {row['floor']} s"
        if "designed floor" in row:
            ratio += f"; {row['designed ratio']:.2f} of {row['designed floor']} s by design ({row['by design']})"
        cpu = f"{row['cpu']} us ({row['cpu ratio']:.2f})" if "cpu" in row else ""
        lines.append(f"| {case if case != last else ''} | {row['contender']} | {row['value']} {row['unit']} | {ratio} | {cpu} |")
        last = case
    load = report["load average before"], report["load average after"]
    lines += ["", f"{report['cores']} cores, Python {report['python']}; load average {' '.join(load[0])} before the run, "
                  f"{' '.join(load[1])} after; {report['rounds']} round(s); {report['seconds']} s. " + "; ".join(report["peers"]) + "."]
    return "\n".join(lines)


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results.json"
    print(render(json.loads(path.read_text(encoding="utf-8"))))
