"""How long ``harness.transports.lines`` takes to assemble one long line from many chunks.

A stdio frame arrives in 64 KiB chunks. Assembling a line by adding each chunk to what came
before is quadratic: a 40 MB frame took 38 s that way. One join at the end is linear. This
prints the time for lines of 10, 20 and 40 MB (median of ``--rounds``) and the ratio from
each size to the next: about 2 when linear, about 4 when quadratic. The tests only check
that the line arrives whole (tests/test_hostile.py); the speed is measured here.

Run: python bench/lines.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import anyio

from harness.transports.lines import lines

CHUNK = 65536
MIB = 1024 * 1024


async def assemble(megabytes: int) -> float:
    chunks = [b"x" * CHUNK] * (megabytes * MIB // CHUNK) + [b"\n"]

    async def source():
        for chunk in chunks:
            yield chunk

    started = time.perf_counter()
    got = [len(line) async for line in lines(source(), 64 * MIB)]
    took = time.perf_counter() - started
    assert got == [megabytes * MIB], got
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    previous = None
    for size in (10, 20, 40):
        took = statistics.median(anyio.run(assemble, size) for _ in range(args.rounds))
        ratio = f"  x{took / previous:.2f} from the size before" if previous else ""
        print(f"{size:3d} MB line: {took * 1000:8.1f} ms{ratio}")
        previous = took
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
