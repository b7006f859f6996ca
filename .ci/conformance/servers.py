"""The official conformance suite's server scenarios, run against the course's own HTTP mock servers.

    .venv/bin/python .ci/conformance/servers.py [--version V]... [--server NAME]... [--keep]

For each suite version (default: both that package.json pins) and each server in
servers.yml, the server is started over Streamable HTTP on 127.0.0.1
(``mock_servers.launch.serve_http``, so it dies with this process), and the suite runs every
server scenario it has against it (``conformance server --url URL --suite all -o DIR``).
Each scenario servers.yml lists for that server must then have no FAILURE check; a WARNING
(a SHOULD) is printed but passes. The scenarios it does not list need the suite's own
fixtures, and are only counted. A listed name that neither version has is an error (a typo,
or a scenario a new release renamed).

The suite and Node 22 come from .ci/conformance/node_modules, installed by run.sh (or here,
with the same ``npm ci``, when missing). Here the suite is the client, so it listens on
nothing; loopback.cjs is preloaded all the same, as in run.sh. Exit: 0 when every listed scenario passed, 1
otherwise, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
SUITES = {"0.1.16": "@modelcontextprotocol/conformance", "0.2.0-alpha.12": "conformance-alpha"}  # as package.json names them
RUN_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d\d-\d\dT[\d-]+Z$")  # what -o DIR holds: one folder per scenario run


def suite(version: str) -> Path:
    return HERE / "node_modules" / SUITES[version] / "dist" / "index.js"


def install() -> None:
    if NODE.exists() and all(suite(v).exists() for v in SUITES):
        return
    print(f"== installing the conformance suites and Node 22 into {HERE / 'node_modules'}", flush=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)


def scenarios_of(version: str) -> set[str]:
    """The server scenarios this version lists (``conformance list --server``)."""
    listing = subprocess.run([str(NODE), str(suite(version)), "list", "--server"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"^  - (\S+)", listing, re.MULTILINE))


def wanted() -> dict[str, list[str]]:
    """servers.yml: server name -> the scenarios it must pass (aliases flattened)."""
    def flat(items: list) -> list[str]:
        return [name for item in items for name in (flat(item) if isinstance(item, list) else [item])]

    return {server: flat(names) for server, names in yaml.safe_load((HERE / "servers.yml").read_text())["servers"].items()}


def verdicts(out: Path) -> dict[str, tuple[str, list[str]]]:
    """Scenario -> ("pass" | "warn" | "fail", the failing or warning checks), read from -o DIR."""
    found: dict[str, tuple[str, list[str]]] = {}
    for checks in sorted(out.glob("*/checks.json")):
        match = RUN_DIR.match(checks.parent.name)
        if match is None:
            continue
        results = json.loads(checks.read_text())
        failing = [f"{c['id']}: {c.get('errorMessage') or c.get('description', '')}" for c in results if c["status"] == "FAILURE"]
        warning = [f"{c['id']}: {c.get('description', '')}" for c in results if c["status"] == "WARNING"]
        found[match["scenario"]] = ("fail", failing) if failing else ("warn", warning) if warning else ("pass", [])
    return found


def run_suite(version: str, url: str, out: Path) -> None:
    log = out / "suite.log"
    with log.open("w") as sink:
        subprocess.run([str(NODE), "--require", str(HERE / "loopback.cjs"), str(suite(version)), "server", "--url", url,
                        "--suite", "all", "-o", str(out)], stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT,
                       env={**os.environ, "LOOPBACK_LOG": str(out / "loopback.log")})


async def check(version: str, server: str, must: list[str], has: set[str], results: Path) -> bool:
    from mock_servers.launch import serve_http

    # hostile has an entry point of its own (not a catalog server); the rest are mock_servers.serve NAME
    own = ("--transport", "http") if server == "hostile" else ()
    out = results / version / server
    out.mkdir(parents=True)
    started = time.monotonic()
    async with serve_http(server, "http", *own, module="mock_servers.hostile" if own else None) as url:
        await anyio.to_thread.run_sync(run_suite, version, url, out)
    found = verdicts(out)
    here = [name for name in must if name in has]
    ok = True
    lines = []
    for name in here:
        verdict, notes = found.get(name, ("fail", ["the suite wrote no checks.json for it"]))
        ok = ok and verdict != "fail"
        if verdict != "pass":
            lines.append(f"    {name}: {verdict}: " + "; ".join(notes)[:300])
    others = [name for name in found if name not in here]
    passed = sum(1 for name in here if found.get(name, ("fail",))[0] != "fail")
    print(f"{version:16} {server:10} {'pass' if ok else 'FAIL':5} {passed}/{len(here)} listed scenarios, "
          f"{len(others)} needing fixtures not counted ({time.monotonic() - started:.1f} s)", flush=True)
    for line in lines:
        print(line, flush=True)
    return ok


async def main_async(versions: list[str], results: Path, only: list[str] | None = None) -> int:
    plan = wanted()
    has = {version: scenarios_of(version) for version in SUITES}
    known = set().union(*has.values())
    unknown = sorted({name for names in plan.values() for name in names} - known)
    if unknown:
        print(f"servers.yml lists scenarios no suite version has: {', '.join(unknown)}", file=sys.stderr)
        return 1
    ok = True
    for version in versions:
        for server, must in plan.items():
            if only and server not in only:
                continue
            ok = await check(version, server, must, has[version], results) and ok
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=".ci/conformance/servers.py", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="append", choices=sorted(SUITES), help="a suite version (repeatable; default both)")
    parser.add_argument("--server", action="append", help="only this server of servers.yml (repeatable; default every one)")
    parser.add_argument("--keep", action="store_true", help="keep the results folder (its path is printed)")
    args = parser.parse_args(argv)
    if unknown := sorted(set(args.server or ()) - set(wanted())):
        parser.error(f"no server {', '.join(unknown)} in servers.yml (servers: {', '.join(wanted())})")
    sys.path.insert(0, str(ROOT))
    install()
    with tempfile.TemporaryDirectory(prefix="conformance-servers.") as temp:
        results = Path(tempfile.mkdtemp(prefix="conformance-servers.")) if args.keep else Path(temp)
        code = anyio.run(main_async, args.version or list(SUITES), results, args.server)
        if args.keep:
            print(f"results under {results}")
    return code


if __name__ == "__main__":
    sys.exit(main())
