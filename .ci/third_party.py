"""Real third-party MCP servers, installed from npm and PyPI, listed and called through the user CLI.

    .venv/bin/python .ci/third_party.py

Each server runs from its own config file, ``.ci/third_party/<server>.mcp.json``, through
``python -m harness``: once all together with ``tools --json`` (each must list tools, the
one we call among them), then each alone with ``call TOOL ARGS --json``, whose result must
not be an error and must hold what the tool returns:

    server           transport  from  called            the result must hold
    everything       stdio      npm   echo              "Echo: <a fresh token>"
    everything-http  http       npm   get-sum           42, for 19 + 23
    filesystem       stdio      npm   read_text_file    the exact text of a file in a temp folder
    memory           stdio      npm   create_entities   the entity it made, named with a fresh token
    sequential-thinking stdio   npm   sequentialthinking thought 1 of 1, no next thought needed
    time             stdio      PyPI  get_current_time  Asia/Kolkata's time: offset +05:30, within 2 min of now
    git              stdio      PyPI  git_status        branch main, a modified and an untracked file of a temp repo

and server-everything's tools that ask the client (the CLI answers with ``--answer``):

    everything       stdio      npm   trigger-elicitation-request   a form accepted with name Ada
    everything       stdio      npm   trigger-url-elicitation       a page the user says they visited
    everything       stdio      npm   trigger-sampling-request      a sample allowed and answered: Paris
    everything       stdio      npm   get-roots-list                the client's root: this clone

Then the same two npm servers, memory and sequential-thinking, through one config file of
each other client's format, as that client writes it (``.ci/third_party/formats/``: VS
Code, Cursor, Windsurf, Gemini CLI, Zed, Codex, Continue, goose), read with no
``--format``: ``tools --json`` must list both servers' tools, and a ``call`` each must
answer as above. One line per format.

The config files are in Claude Code's format, as ``claude --mcp-config FILE`` reads it:
its ``${VAR}`` expansion fills in this clone's paths, the temp folder and repo, and the
port. (Claude Desktop's format has neither variables nor HTTP.)

Installs go to ``.ci/.cache/`` (git-ignored): ``npm ci`` of ``third_party/package-lock.json``
into ``npm/``, and ``third_party/requirements.txt`` into its own venv ``venv-thirdparty/``,
away from the project's ``.venv``. A stamp (the hash of the pin files) skips an install
when nothing changed, so a warm run needs no network. server-everything's HTTP mode
(``streamableHttp``, port from ``PORT``) has no host option: it is started here with
``.ci/conformance/loopback.cjs`` preloaded, which binds it to 127.0.0.1 and logs the
port it got for ``PORT=0``.

Exit codes: 0 every server passed, or a registry could not be reached: one ``skipped:``
line for that registry, and the other registry's servers still run. 1 anything else,
each message naming the server: an install that failed with the registry reachable, a
server the CLI could not list or call, a wrong result, a step that timed out, or a
process left running. 130 Ctrl-C, 143 SIGTERM. Every step has a timeout. Every process
started here is stopped on every exit; the CLI's child servers, should the CLI leave any,
are reparented to this script (it is their subreaper), reported, and stopped.

Not handled: platforms other than Linux (the subreaper and ``/proc``); server-everything's
SSE mode (s24's mock server covers that transport).
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PINS = ROOT / ".ci" / "third_party"
CACHE = ROOT / ".ci" / ".cache"
NPM_DIR = CACHE / "npm"
VENV = CACHE / "venv-thirdparty"
LOOPBACK = ROOT / ".ci" / "conformance" / "loopback.cjs"

# Seconds, each with its reason.
INSTALL_TIMEOUT = 300.0  # one cold `npm ci` or `pip install` (10 to 45 s each here); a warm run skips both
REQUEST_TIMEOUT = 60  # one registry request: an unreachable registry fails well inside INSTALL_TIMEOUT
HTTP_START_TIMEOUT = 20.0  # node loading express and binding its port
CLI_TIMEOUT = 90.0  # one CLI run: its connects (the harness gives each 30 s, 3 at once) and one listing or call
STOP_GRACE = 5.0  # after SIGTERM, before SIGKILL: the CLI itself stops its servers within about 2.5 s
ORPHAN_GRACE = 3.0  # after the CLI exits, for a server it stopped to finish exiting
GIT_TIMEOUT = 10.0  # one git command on the tiny temp repo
EXCERPT = 72  # characters of a result shown in the summary


class Skip(Exception):
    """A registry cannot be reached: its servers are not run, and the run can still pass."""


class Failure(Exception):
    """A step failed; the message names the server or the install."""


@dataclass(frozen=True)
class Fixtures:
    """What the servers are pointed at, made fresh in a temp folder for each run."""

    token: str
    folder: Path  # the filesystem server's one allowed directory
    note: Path  # a file in it
    note_text: str
    repo: Path  # the git server's repository


@dataclass(frozen=True)
class Server:
    """One server to check: where it comes from, the tool we call, with what, and what the result must hold."""

    name: str  # as in its config file, .ci/third_party/<name>.mcp.json
    transport: str
    registry: str  # "npm" or "PyPI"
    tool: str
    arguments: Callable[[Fixtures], dict[str, Any]]
    check: Callable[[str, Fixtures], str]  # the result's text -> what is wrong with it, or ""
    answers: tuple[str, ...] = ()  # --answer values: what the scripted user says when the server asks (s33)


def _echo(text: str, fx: Fixtures) -> str:
    return "" if text == f"Echo: {fx.token}" else f"expected 'Echo: {fx.token}'"


def _sum(text: str, fx: Fixtures) -> str:
    return "" if re.search(r"\b42\b", text) else "expected the sum 42"


def _file(text: str, fx: Fixtures) -> str:
    return "" if text == fx.note_text else f"expected the file's text {fx.note_text!r}"


def _time(text: str, fx: Fixtures) -> str:
    try:
        data = json.loads(text)
        when = datetime.fromisoformat(data["datetime"])
    except (ValueError, KeyError, TypeError):
        return "expected JSON with 'timezone' and an ISO 'datetime'"
    if data.get("timezone") != "Asia/Kolkata":
        return "expected timezone Asia/Kolkata"
    if when.utcoffset() != timedelta(hours=5, minutes=30):  # India has no daylight saving time
        return "expected the offset +05:30"
    if abs(when - datetime.now(timezone.utc)) > timedelta(minutes=2):
        return "expected the time now, within 2 minutes"
    return ""


def _status(text: str, fx: Fixtures) -> str:
    missing = [part for part in ("On branch main", "README.md", "untracked.txt") if part not in text]
    return f"expected the repo's status, with {', '.join(missing)}" if missing else ""


def _entity(fx: Fixtures) -> dict[str, Any]:
    return {"entities": [{"name": fx.token, "entityType": "check", "observations": ["made by .ci/third_party.py"]}]}


def _thought() -> dict[str, Any]:
    return {"thought": "One step is enough.", "nextThoughtNeeded": False, "thoughtNumber": 1, "totalThoughts": 1}


def _token(text: str, fx: Fixtures) -> str:
    return "" if fx.token in text else f"expected the entity {fx.token!r} back"


def _has(*parts: str) -> Callable[[str, Fixtures], str]:
    def check(text: str, fx: Fixtures) -> str:
        missing = [p for p in parts if p not in text]
        return f"expected {', '.join(repr(p) for p in missing)}" if missing else ""
    return check


SERVERS = (
    Server("everything", "stdio", "npm", "echo", lambda fx: {"message": fx.token}, _echo),
    # The server asks the client: a form, a page to visit, the model (sampling), the roots.
    # The harness answers from --answer, as a scripted user would.
    Server("everything", "stdio", "npm", "trigger-elicitation-request", lambda fx: {}, _has('"action": "accept"', '"name": "Ada"'),
           ('{"form": {"name": "Ada"}}',)),
    Server("everything", "stdio", "npm", "trigger-url-elicitation", lambda fx: {"url": "http://127.0.0.1:9/link"},
           _has('"action": "accept"'), ("done",)),
    Server("everything", "stdio", "npm", "trigger-sampling-request", lambda fx: {"prompt": "The capital of France?"},
           _has('"text": "Paris"'), ("yes", '{"sample": "Paris"}')),
    Server("everything", "stdio", "npm", "get-roots-list", lambda fx: {}, _has(f"URI: {ROOT.as_uri()}"), (f"--root={ROOT}",)),
    Server("everything-http", "http", "npm", "get-sum", lambda fx: {"a": 19, "b": 23}, _sum),
    Server("filesystem", "stdio", "npm", "read_text_file", lambda fx: {"path": str(fx.note)}, _file),
    Server("memory", "stdio", "npm", "create_entities", lambda fx: _entity(fx), _token),
    Server("sequential-thinking", "stdio", "npm", "sequentialthinking", lambda fx: _thought(), _has('"thoughtNumber": 1')),
    Server("time", "stdio", "PyPI", "get_current_time", lambda fx: {"timezone": "Asia/Kolkata"}, _time),
    Server("git", "stdio", "PyPI", "git_status", lambda fx: {"repo_path": str(fx.repo)}, _status),
)


def main(argv: list[str] | None = None) -> int:
    title, _, rest = (__doc__ or "").partition("\n")
    argparse.ArgumentParser(description=title, epilog=rest, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    signal.signal(signal.SIGTERM, _terminated)  # so that the cleanup below runs on SIGTERM too
    started = time.monotonic()
    _become_subreaper()
    procs = Processes()
    with tempfile.TemporaryDirectory(prefix="third-party.") as tmp:
        try:
            servers, installs = _install()
            failed = _check(servers, Path(tmp).resolve(), procs) if servers else []
        except Failure as exc:
            print(f"third-party servers: FAILED: {exc}")
            return 1
        except KeyboardInterrupt:
            print("third-party servers: interrupted")
            return 130
        finally:
            left = procs.close()  # before the temp folder goes: the HTTP server writes its log there
            if left:
                print(f"third-party servers: FAILED: still running at the end, now stopped: {'; '.join(left)}")
    took = f"in {time.monotonic() - started:.1f} s ({installs})"
    if failed or left:
        print(f"third-party servers: FAILED: {', '.join(failed) or 'processes left running'} {took}")
        return 1
    if servers:
        print(f"third-party servers: {len(servers)} passed {took}")
    return 0


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(143)


# --- installs ---------------------------------------------------------------------------------


def _install() -> tuple[list[Server], str]:
    """The servers whose registry was reachable, installed; and how long each install took."""
    servers, took = list(SERVERS), []
    for registry, install in (("npm", _install_npm), ("PyPI", _install_pypi)):
        started = time.monotonic()
        try:
            cached = install()
        except Skip as skip:
            names = [s.name for s in servers if s.registry == registry]
            print(f"third-party servers: skipped: {skip}; not run: {', '.join(names)}")
            servers = [s for s in servers if s.registry != registry]
            continue
        took.append(f"{registry} {'cached' if cached else f'installed in {time.monotonic() - started:.1f} s'}")
    return servers, ", ".join(took)


def _install_npm() -> bool:
    """``npm ci`` the pinned lock into .ci/.cache/npm; True if it was there already."""
    pins = [PINS / "package.json", PINS / "package-lock.json"]
    bins = [NPM_DIR / "node_modules" / ".bin" / name for name in ("mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory",
                                                                   "mcp-server-sequential-thinking")]
    stamp, want = NPM_DIR / "installed.sha256", _digest(pins)
    if _read(stamp) == want and all(b.exists() for b in bins):
        return True
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise Failure("npm install: node and npm must be on PATH")
    NPM_DIR.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for pin in pins:
        shutil.copyfile(pin, NPM_DIR / pin.name)
    code, output = _run_install([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", f"--cache={CACHE / 'npm-cache'}",
                                 "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000",
                                 f"--fetch-timeout={REQUEST_TIMEOUT * 1000}"], "npm ci", cwd=NPM_DIR)
    if code != 0:
        reason = _npm_unreachable(output)
        if reason:
            raise Skip(f"cannot reach the npm registry ({reason})")
        raise Failure(f"npm ci (exit {code}), with the registry reachable:\n{_tail(output)}")
    stamp.write_text(want)
    return False


def _install_pypi() -> bool:
    """The pinned requirements into their own venv, .ci/.cache/venv-thirdparty; True if they were there already."""
    pins = [PINS / "requirements.txt"]
    bins = [VENV / "bin" / name for name in ("mcp-server-time", "mcp-server-git")]
    stamp, want = VENV / "installed.sha256", _digest(pins)
    if _read(stamp) == want and all(b.exists() for b in bins):
        return True
    shutil.rmtree(VENV, ignore_errors=True)  # a venv from other pins: start clean rather than upgrade in place
    code, output = _run_install([sys.executable, "-m", "venv", str(VENV)], "python -m venv", cwd=ROOT)
    if code != 0:
        raise Failure(f"python -m venv {VENV} (exit {code}):\n{_tail(output)}")
    code, output = _run_install([str(VENV / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                                 f"--timeout={REQUEST_TIMEOUT}", "--retries=1", f"--cache-dir={CACHE / 'pip-cache'}",
                                 "-r", str(pins[0])], "pip install", cwd=ROOT)
    if code != 0:
        reason = _pip_unreachable(output)
        if reason:
            raise Skip(f"cannot reach the Python package index ({reason})")
        raise Failure(f"pip install -r {pins[0].relative_to(ROOT)} (exit {code}), with the index reachable:\n{_tail(output)}")
    stamp.write_text(want)
    return False


def _run_install(argv: list[str], what: str, cwd: Path) -> tuple[int, str]:
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=INSTALL_TIMEOUT)
    except subprocess.TimeoutExpired:
        output = _stop(proc)
        raise Failure(f"{what}: not done after {INSTALL_TIMEOUT:.0f} s:\n{_tail(output)}") from None
    return proc.returncode, output


_NPM_NETWORK = {"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ESOCKETTIMEDOUT",
                "ENETUNREACH", "EHOSTUNREACH", "ECONNABORTED"}


def _npm_unreachable(output: str) -> str:
    """Why npm could not reach its registry, from its own error lines; "" if it failed otherwise."""
    code = re.search(r"^npm (?:error|ERR!) code (\S+)", output, re.MULTILINE)
    if code is None or code.group(1) not in _NPM_NETWORK:
        return ""
    request = re.search(r"request to (\S+) failed, reason: (.+)", output)
    return f"{request.group(1)}: {request.group(2).strip()}" if request else code.group(1)


def _pip_unreachable(output: str) -> str:
    """Why pip could not reach its index, from its own lines; "" if it failed otherwise."""
    if "No matching distribution found" not in output and "Could not fetch URL" not in output:
        return ""
    index = re.search(r"Looking in indexes: ([^,\s]+)", output)
    where = index.group(1) if index else "https://pypi.org/simple"
    for pattern in (r"Failed to establish a new connection: ([^'\")]+)", r"((?:ConnectTimeout|ReadTimeout|Proxy)Error[^\n]{0,100})",
                    r"Could not fetch URL ([^\n]{0,160})"):
        found = re.search(pattern, output)
        if found:
            return f"{where}: {found.group(1).strip()}"
    return ""


def _digest(paths: list[Path]) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in paths)).hexdigest()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


# --- the checks -------------------------------------------------------------------------------


def _check(servers: list[Server], tmp: Path, procs: Processes) -> list[str]:
    """List and call every server through the CLI, print one line each; the names of those that failed."""
    fx = _fixtures(tmp)
    managed = tmp / "managed"  # an empty enterprise folder: no policy of this machine may block our servers
    managed.mkdir()
    env = {**os.environ, "THIRD_PARTY_CACHE": str(CACHE), "THIRD_PARTY_FOLDER": str(fx.folder), "THIRD_PARTY_REPO": str(fx.repo),
           "MEMORY_FILE_PATH": str(fx.folder / "memory.jsonl")}  # for the formats that pass variables on by name (Codex, goose)
    if any(s.transport == "http" for s in servers):
        env["THIRD_PARTY_HTTP_PORT"] = str(_start_http(tmp, procs))
    cli, started = Cli(env, managed, procs), time.monotonic()
    listing = _listing(cli, servers)
    print(f"third-party servers through python -m harness: `tools --json` for all {len(servers)} in {time.monotonic() - started:.1f} s, "
          "then one `call` each:")
    failed = []
    width = max(len(s.name) for s in servers)
    for server in servers:
        tools, started = listing.get(server.name, {}), time.monotonic()
        try:
            excerpt = _call(cli, server, tools, fx)
        except Failure as exc:
            failed.append(server.name)
            excerpt = f"FAILED: {exc}"
        took = time.monotonic() - started
        print(f"  {server.name:<{width}}  {server.transport:<5}  {len(tools):>2} tools  {server.tool:<16}  {took:4.1f} s  {excerpt}")
    both = [s for s in servers if s.name in ("memory", "sequential-thinking")]
    if len({s.name for s in both}) == 2:
        failed += _formats(cli, both, fx)
    return failed


# Each client's file, at the path its client keeps it (the name is how the CLI knows the format).
FORMAT_FILES = (("vscode", "vscode/.vscode/mcp.json"), ("cursor", "cursor/.cursor/mcp.json"), ("windsurf", "windsurf/mcp_config.json"),
                ("gemini", "gemini/.gemini/settings.json"), ("zed", "zed/settings.json"), ("codex", "codex/.codex/config.toml"),
                ("continue", "continue/.continue/config.yaml"), ("goose", "goose/config.yaml"))


def _formats(cli: Cli, servers: list[Server], fx: Fixtures) -> list[str]:
    """memory and sequential-thinking through each client's config file: list both, call each; the formats that failed."""
    print("the same servers through one config file of each client's format:")
    failed = []
    inputs = ["--input", f"memory-file={fx.folder / 'memory.jsonl'}"]  # VS Code's promptString input, answered
    for fmt, relative in FORMAT_FILES:
        path, started = PINS / "formats" / relative, time.monotonic()
        try:
            code, out, err = cli.run_file(path, [*inputs, "tools", "--json"])
            try:
                listing: dict[str, dict[str, str]] = {}
                for row in json.loads(out):
                    listing.setdefault(row["server"], {})[row["tool"]] = row["name"]
            except (ValueError, KeyError, TypeError):
                raise Failure(f"format {fmt}: tools --json (exit {code}) printed no list of tools:\n{_tail(out + err)}") from None
            # A fresh entity per format: the memory file is shared, and the server answers only what it newly made.
            fresh = replace(fx, token=f"{fx.token}-{fmt}")
            excerpts = [_call(cli.with_file(path, inputs), server, listing.get(server.name, {}), fresh) for server in servers]
            line = "; ".join(e[:EXCERPT // 2] for e in excerpts)
        except Failure as exc:
            failed.append(f"format {fmt}")
            line = f"FAILED: {exc}"
        print(f"  {fmt:<8}  {relative:<32}  {time.monotonic() - started:4.1f} s  {line}")
    return failed


def _listing(cli: Cli, servers: list[Server]) -> dict[str, dict[str, str]]:
    """``tools --json`` for all servers at once: server -> {tool: model-facing name}."""
    # With a root, so tools that only servers offering roots list (get-roots-list) are listed too.
    code, out, err = cli.run([s.name for s in servers], ["--root", str(ROOT), "tools", "--json"])
    try:
        rows = json.loads(out)
        assert isinstance(rows, list)
        listing: dict[str, dict[str, str]] = {}
        for row in rows:
            listing.setdefault(row["server"], {})[row["tool"]] = row["name"]
    except (ValueError, AssertionError, KeyError, TypeError):
        raise Failure(f"tools --json (exit {code}) printed no list of tools:\n{_tail(out + err)}") from None
    return listing


def _call(cli: Cli, server: Server, tools: dict[str, str], fx: Fixtures) -> str:
    """Call the server's tool alone through the CLI; a one-line excerpt of the right result, or a Failure."""
    if not tools:
        raise Failure(f"server '{server.name}': no tools in `tools --json`; `servers --json` says: {_why(cli, server)}")
    if server.tool not in tools:
        raise Failure(f"server '{server.name}': no tool '{server.tool}' among its {len(tools)} tools ({', '.join(sorted(tools))})")
    asked = [part for answer in server.answers for part in (("--answer", answer) if not answer.startswith("--") else (answer,))]
    code, out, err = cli.run([server.name], [*asked, "call", tools[server.tool], json.dumps(server.arguments(fx)), "--json"])
    try:
        result = json.loads(out)
        text = "\n".join(block["text"] for block in result["content"] if block.get("type") == "text")
        is_error = result["is_error"]
    except (ValueError, KeyError, TypeError):
        raise Failure(f"server '{server.name}': call {server.tool} (exit {code}) printed no result:\n{_tail(out + err)}") from None
    if is_error or code != 0:
        raise Failure(f"server '{server.name}': call {server.tool} (exit {code}): is_error {is_error}: {_line(text)}")
    wrong = server.check(text, fx)
    if wrong:
        raise Failure(f"server '{server.name}': call {server.tool}: {wrong}; got {_line(text)!r}")
    return _line(text)


def _why(cli: Cli, server: Server) -> str:
    code, out, err = cli.run([server.name], ["servers", "--json"])
    try:
        row = json.loads(out)[0]
        return f"state {row['state']}: {row['error']}"
    except (ValueError, KeyError, IndexError, TypeError):
        return f"(exit {code}) {_line(out + err)}"


def _fixtures(tmp: Path) -> Fixtures:
    token = f"third-party-{secrets.token_hex(4)}"
    folder = tmp / "files"
    folder.mkdir()
    note, note_text = folder / "note.txt", f"written for {token}\nsecond line\n"
    note.write_text(note_text)
    repo = tmp / "repo"
    repo.mkdir()
    # A repo of our own, unaffected by this machine's git config: one commit, then a change and a new file.
    (repo / "README.md").write_text("a repository for the git server\n")
    git_env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ["-c", "user.name=ci", "-c", "user.email=ci@example.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], [*identity, "commit", "-q", "-m", "first"]):
        try:
            subprocess.run(["git", "-C", str(repo), *args], env=git_env, check=True, capture_output=True, text=True, timeout=GIT_TIMEOUT)
        except (OSError, subprocess.SubprocessError) as exc:
            why = getattr(exc, "stderr", None) or exc
            raise Failure(f"server 'git': cannot make its temp repo: git {' '.join(args)}: {why}") from None
    (repo / "README.md").write_text("a repository for the git server, changed\n")
    (repo / "untracked.txt").write_text("new\n")
    return Fixtures(token, folder, note, note_text, repo)


def _start_http(tmp: Path, procs: Processes) -> int:
    """server-everything over Streamable HTTP on 127.0.0.1; its port, once it listens."""
    log, listens = tmp / "everything-http.log", tmp / "everything-http.listens"
    listens.touch()
    env = {**os.environ, "PORT": "0", "LOOPBACK_LOG": str(listens)}
    script = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    with log.open("w") as sink:
        proc = procs.start(["node", "--require", str(LOOPBACK), str(script), "streamableHttp"], env=env, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + HTTP_START_TIMEOUT
    while time.monotonic() < deadline:
        found = re.search(r"^listening 127\.0\.0\.1:(\d+)$", listens.read_text(), re.MULTILINE)
        if found:
            return int(found.group(1))
        if proc.poll() is not None:
            raise Failure(f"server 'everything-http': exited {proc.returncode} before listening:\n{_tail(log.read_text())}")
        time.sleep(0.05)  # polling a file the server writes, with a deadline
    raise Failure(f"server 'everything-http': not listening on 127.0.0.1 after {HTTP_START_TIMEOUT:.0f} s:\n{_tail(log.read_text())}")


@dataclass
class Cli:
    """``python -m harness`` with some of the config files, bounded, and checked for processes it leaves behind."""

    env: dict[str, str]
    managed: Path
    procs: Processes

    file: Path | None = None  # one config file for every run (a format's), instead of the servers' own
    extra: tuple[str, ...] = ()  # options for every run (--input)

    def with_file(self, path: Path, extra: list[str]) -> Cli:
        return Cli(self.env, self.managed, self.procs, path, tuple(extra))

    def run_file(self, path: Path, args: list[str]) -> tuple[int, str, str]:
        return self.with_file(path, []).run([], args)

    def run(self, names: list[str], args: list[str]) -> tuple[int, str, str]:
        configs = [part for name in names for part in ("--config", str(PINS / f"{name}.mcp.json"))]
        if self.file is not None:
            configs = ["--config", str(self.file), *self.extra]
        argv = [sys.executable, "-m", "harness", "--managed", str(self.managed), *configs, *args]
        shown = f"`{' '.join(args[:2])}` ({', '.join(names) or self.file})"
        proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=CLI_TIMEOUT)
        except subprocess.TimeoutExpired:
            output = _stop(proc)
            left = self.procs.sweep()
            raise Failure(f"{shown}: no answer after {CLI_TIMEOUT:.0f} s" + (f"; left running: {'; '.join(left)}" if left else "")
                          + f":\n{_tail(output)}") from None
        left = self.procs.sweep()
        if left:
            raise Failure(f"{shown}: the CLI exited ({proc.returncode}) but left running: {'; '.join(left)}")
        return proc.returncode, out, err


# --- processes --------------------------------------------------------------------------------


@dataclass
class Processes:
    """The long-lived processes this script starts, and any orphans; ``close`` stops them all."""

    started: list[subprocess.Popen[Any]] = field(default_factory=list)

    def start(self, argv: list[str], **options: Any) -> subprocess.Popen[Any]:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True, **options)
        self.started.append(proc)
        return proc

    def sweep(self) -> list[str]:
        """Orphans that are our children now (servers the CLI did not stop): given ORPHAN_GRACE to exit, then stopped and named."""
        ours = {p.pid for p in self.started}
        seen: dict[int, str] = {}
        stopped: list[int] = []
        deadline = time.monotonic() + ORPHAN_GRACE
        while True:
            alive = []
            for pid, state in _children().items():
                if pid in ours:
                    continue
                if state == "Z":
                    _reap(pid)
                else:
                    seen.setdefault(pid, _cmdline(pid))
                    alive.append(pid)
            if not alive:
                return [f"pid {pid}: {seen[pid]}" for pid in stopped]
            if time.monotonic() < deadline:
                time.sleep(0.05)  # a server the CLI stopped may take a moment to exit: poll, with a deadline
                continue
            for pid in alive:  # their own children, orphaned in turn, are found on the next pass
                _terminate(pid)
                stopped.append(pid)

    def close(self) -> list[str]:
        """Stop what we started, then any orphans; the orphans that had to be stopped."""
        for proc in self.started:
            _stop(proc)
        return self.sweep()


def _become_subreaper() -> None:
    # Orphans of the CLI (a server it failed to stop) become our children instead of init's,
    # so the sweep after each CLI run can see them, name them and stop them.
    PR_SET_CHILD_SUBREAPER = 36
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise Failure(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


def _children() -> dict[int, str]:
    """Our child processes: pid -> state letter (Z: exited, not yet reaped)."""
    me, found = os.getpid(), {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state, ppid = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[:2]
            except (OSError, ValueError):
                continue  # gone meanwhile
            if int(ppid) == me:
                found[int(entry)] = state
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


# Hazard: signal only a child not yet reaped. Its pid (and the group id it leads) cannot be
# reused until we reap it; after that, the same number may be somebody else's process.
def _signal(pid: int, sig: int) -> None:
    """Signal our unreaped child ``pid``: its whole process group if it leads one, else itself."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _terminate(pid: int) -> None:
    """SIGTERM an orphan (its group), SIGKILL after STOP_GRACE, and reap it."""
    _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    while _children().get(pid, "Z") != "Z" and time.monotonic() < deadline:
        time.sleep(0.05)
    if _children().get(pid, "Z") != "Z":
        _signal(pid, signal.SIGKILL)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _stop(proc: subprocess.Popen[Any]) -> str:
    """SIGTERM a child's process group, SIGKILL after STOP_GRACE; what it printed, if we read its pipes."""
    if proc.poll() is None:  # not reaped: safe to signal
        _signal(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            _signal(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
    else:
        out, err = proc.communicate()
    return (out or "") + (err or "")


def _line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + line for line in text.strip().splitlines()[-lines:]) or "    (no output)"


if __name__ == "__main__":
    sys.exit(main())
