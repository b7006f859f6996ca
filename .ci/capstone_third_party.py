"""The capstone on real third-party servers: s35's ``--config`` survey of one file that holds them all.

    .venv/bin/python .ci/capstone_third_party.py

The servers and their pins are ``.ci/third_party.py``'s, every one it lists, installed by
its helpers (imported, not copied): server-everything over stdio and Streamable HTTP,
server-filesystem, mcp-server-time and mcp-server-git, and whatever it adds (today also
server-memory and server-sequential-thinking). Their config files (``.ci/third_party/*.mcp.json``) are
merged into one, as a user's ``.mcp.json`` would hold them, and
``python lessons/s35/code.py --config FILE`` runs on it with no scenario: the survey model
lists every server's tools, calls one read-only tool per server, and sums up. It runs in
the temp git repository, so a tool that takes a repository path gets one (``.``).

It checks:

- the run exits 0, and every server is connected (the lesson's listing after the connects,
  which gives each one's protocol era too: the Python SDK's servers speak 2026-07-28,
  server-everything the handshake era);
- the summary has a line for every server, and each read-only tool it called answered
  without an error;
- the survey called nothing that its server does not mark read-only;
- the lesson's last line counts 0 processes left, and none of its servers outlived it
  (this script is their subreaper, as ``.ci/third_party.py`` is the CLI's).

Exit codes: 0 passed, or a registry could not be reached (a ``skipped:`` line, as
``.ci/third_party.py`` prints; the other registry's servers still run); 1 anything else,
the message naming the server; 130 Ctrl-C; 143 SIGTERM.

Not handled: what ``.ci/third_party.py`` does not (Linux only, no SSE server).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import third_party as pinned  # noqa: E402  (.ci/ is not a package)

LESSON = pinned.ROOT / "lessons" / "s35" / "code.py"
RUN_TIMEOUT = 180.0  # one survey: five connects (30 s each at most, at once), then one call per server


def main(argv: list[str] | None = None) -> int:
    title, _, rest = (__doc__ or "").partition("\n")
    argparse.ArgumentParser(description=title, epilog=rest, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    signal.signal(signal.SIGTERM, pinned._terminated)  # so that the cleanup below runs on SIGTERM too
    started = time.monotonic()
    pinned._become_subreaper()
    procs = pinned.Processes()
    with tempfile.TemporaryDirectory(prefix="capstone-third-party.") as tmp:
        try:
            servers, installs = pinned._install()
            names = list(dict.fromkeys(s.name for s in servers))  # in .ci/third_party.py's order, each once
            problems = _survey(names, Path(tmp).resolve(), procs) if names else []
        except pinned.Failure as exc:
            print(f"capstone on third-party servers: FAILED: {exc}")
            return 1
        except KeyboardInterrupt:
            print("capstone on third-party servers: interrupted")
            return 130
        finally:
            left = procs.close()
            if left:
                print(f"capstone on third-party servers: FAILED: still running at the end, now stopped: {'; '.join(left)}")
    took = f"in {time.monotonic() - started:.1f} s ({installs})"
    if problems or left:
        for problem in problems:
            print(f"  {problem}")
        print(f"capstone on third-party servers: FAILED {took}")
        return 1
    if names:
        print(f"capstone on third-party servers: s35 --config surveyed {len(names)} servers {took}")
    return 0


def _survey(names: list[str], tmp: Path, procs: pinned.Processes) -> list[str]:
    """Run s35 --config on one file holding ``names``; what is wrong with its run, one line each."""
    fx = pinned._fixtures(tmp)
    scratch = tmp / "tmp"  # the lesson's temporary folders go here, so none can go unseen
    scratch.mkdir()
    env = {**os.environ, "THIRD_PARTY_CACHE": str(pinned.CACHE), "THIRD_PARTY_FOLDER": str(fx.folder),
           "THIRD_PARTY_REPO": str(fx.repo), "TMPDIR": str(scratch), "XDG_STATE_HOME": str(tmp / "state")}
    if "everything-http" in names:
        env["THIRD_PARTY_HTTP_PORT"] = str(pinned._start_http(tmp, procs))
    merged = {name: json.loads((pinned.PINS / f"{name}.mcp.json").read_text())["mcpServers"][name] for name in names}
    config = tmp / "capstone.mcp.json"
    config.write_text(json.dumps({"mcpServers": merged}, indent=2))
    proc = subprocess.Popen([sys.executable, str(LESSON), "--config", str(config)], cwd=fx.repo, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        output = pinned._stop(proc)
        raise pinned.Failure(f"s35 --config: not done after {RUN_TIMEOUT:.0f} s:\n{pinned._tail(output)}") from None
    problems = [f"left running after s35: {p}" for p in procs.sweep()]
    print(f"s35 --config {config.name} ({', '.join(names)}), exit {proc.returncode}:")
    listed = [line for line in out.splitlines() if any(line.startswith(f"note: {name} (") for name in names)]
    print(pinned._tail("\n".join(listed) + "\n" + _summary(out), 60))  # each server's state and era, then the summary
    if proc.returncode != 0:
        return [f"s35 --config exited {proc.returncode}:\n{pinned._tail(out + err)}"] + problems
    problems += _problems(names, out)
    left = sorted(os.listdir(scratch))
    if left:
        problems.append(f"temporary folders left by s35: {', '.join(left)}")
    return problems


def _problems(names: list[str], out: str) -> list[str]:
    """What is wrong with a survey's transcript ``out`` of the servers ``names``, one line each."""
    problems = []
    lines = out.splitlines()
    for name in names:
        if not any(re.match(rf"note: {re.escape(name)} \(file, \w+(, [\d-]+)?\): connected: \d+ tools$", line) for line in lines):
            problems.append(f"server '{name}': not connected: {next((l for l in lines if l.startswith(f'note: {name} (')), 'not listed')}")
        row = next((l.strip() for l in lines if l.startswith(f"           - {name}: ")), None)
        if row is None:
            problems.append(f"server '{name}': no line in the summary")
        elif ": error" in row:
            problems.append(f"server '{name}': the read-only tool the survey called answered with an error: {row}")
    called = [line.split()[1] for line in lines if line.startswith("  -> ")]
    allowed = [line.split()[1].rstrip(":") for line in lines if line.startswith("  ok ") and "read-only, as the server says" in line]
    problems += [f"the survey called {name}, which its server does not mark read-only" for name in called if name not in allowed]
    if "note: every server is closed: 0 processes left running" not in lines:
        problems.append(f"s35's last line: {lines[-1] if lines else '(no output)'}")
    return problems


def _summary(out: str) -> str:
    """The survey's summary (the last assistant turn) and the lines after it."""
    at = out.rfind("assistant> Summary:")
    return out[at:] if at >= 0 else out


if __name__ == "__main__":
    sys.exit(main())
