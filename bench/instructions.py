"""The client's instructions per tools/call, counted by callgrind: a figure the machine's load does not move.

    .venv/bin/python bench/instructions.py [--calls 300] [--transports stdio,http] [--json FILE]

Each contender of bench/run.py's call section (the SDK's ClientSession and Client, the
harness with the tap off and on, the harness with s34's era negotiation) runs in a child
process under ``valgrind --tool=callgrind`` with instrumentation off; after connecting and
50 untimed calls the child turns it on (``callgrind_control -i on``), makes ``--calls``
calls, and turns it off. The figure is the instructions counted over those calls, per
call, for the client process only: the server runs outside valgrind. Ratios are to
ClientSession, and for the negotiated harness to the SDK's Client (the same era), as in
bench/run.py.

bench/run.py's CPU column is time, and on a shared host a few percent of it is the other
processes' doing, from one slice to the next; an instruction count is the same on every
run to a fraction of a percent. It does not see what an instruction costs (a cache miss,
a system call's time in the kernel): read it beside the CPU column, not instead of it.
Needs valgrind (``apt-get install valgrind``); about 20 s a contender over stdio and 40 s
over HTTP. Not a test: nothing is asserted, and the suite never runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM = 50


def child(transport: str, contender: str, calls: int) -> None:
    """Connect ``contender``, warm it, and count only the ``calls`` calls (run under callgrind)."""
    import anyio

    sys.path.insert(0, str(ROOT))
    from bench import run

    async def main() -> None:
        from contextlib import AsyncExitStack

        from mock_servers.launch import serve_http

        opened = contenders(run)[contender]
        async with AsyncExitStack() as stack:
            url = await stack.enter_async_context(serve_http("docs", "http")) if transport == "http" else None
            call = await stack.enter_async_context(opened(transport, url))
            for _ in range(WARM):
                await call()
            subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], stdout=subprocess.DEVNULL, check=True)
            for _ in range(calls):
                await call()
            subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], stdout=subprocess.DEVNULL, check=True)

    anyio.run(main)


def contenders(run: object) -> dict:
    return {"sdk ClientSession": run.sdk_session, "sdk Client (2026-07-28 era)": run.sdk_client,
            "harness": run.harness(tap=False), "harness + tap": run.harness(tap=True),
            run.NEGOTIATED: run.harness(tap=False, negotiated=True)}


def counted(transport: str, contender: str, calls: int) -> float:
    """Instructions per call of ``contender``, from callgrind's ``Collected`` line."""
    with tempfile.TemporaryDirectory() as folder:
        argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={folder}/out",
                sys.executable, __file__, "--child", transport, contender, str(calls)]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"bench instructions: {contender} over {transport} failed: {done.stderr[-500:]}")
    return int(found.group(1)) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--transports", default="stdio,http")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    parser.add_argument("--child", nargs=3, metavar=("TRANSPORT", "CONTENDER", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("bench instructions: needs valgrind and callgrind_control on PATH")
    sys.path.insert(0, str(ROOT))
    from bench import run

    names = list(contenders(run))
    rows = []
    for transport in args.transports.split(","):
        per_call = {name: counted(transport, name, args.calls) for name in names}
        for name, value in per_call.items():
            base = per_call[run.SAME_ERA.get(name, "sdk ClientSession")]
            rows.append({"case": f"{transport}, {args.calls} calls", "contender": name,
                         "instructions": round(value / 1000), "unit": "k per call", "ratio": round(value / base, 3)})
    lines = ["| case | contender | instructions per call | ratio |", "|---|---|---:|---:|"]
    last = None
    for row in rows:
        lines.append(f"| {row['case'] if row['case'] != last else ''} | {row['contender']} | {row['instructions']}k | {row['ratio']:.2f} |")
        last = row["case"]
    print("\n".join(lines))
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": rows, "calls": args.calls}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
