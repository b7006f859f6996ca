"""A mechanism written here, outside harness/, plugs into a stack and into the user CLI: the seam is the
harness's public hooks (harness.hooks, harness.parts, harness.commands.extension), and nothing in harness/ names it.

``Rewriting`` counts every call of its connection and replaces one argument before the call is
sent; ``Plugged`` is the stack part that gives each connection one. The docs server answers the
rewritten query, so the answer proves the argument changed on the wire, not only in our hands.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import pytest

from harness import app, config, stack
from harness.commands.doctor import Problem
from harness.commands.extension import Command, Extension
from harness.hooks import Mechanism
from harness.parts import Part
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


class Rewriting(Mechanism):
    """Counts calls, and sends ``query`` as ``to`` whatever the caller asked: ``around_send`` holds the Call that goes
    on the wire."""

    def __init__(self, to: str, counts: list[str]) -> None:
        self.to, self.counts = to, counts

    def bind(self, host):
        self.server = host.name

    async def around_send(self, call, proceed):
        self.counts.append(f"{self.server}/{call.tool}")
        if "query" in call.arguments:
            call.arguments = {**call.arguments, "query": self.to}
        return await proceed(call)


@dataclass
class Plugged(Part):
    to: str = "hooks"
    counts: list[str] = field(default_factory=list)

    def mechanisms(self, server, built):
        return [Rewriting(self.to, self.counts)]


def docs_config(tmp_path: Path) -> Path:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"docs": {
        "command": sys.executable, "args": ["-m", "mock_servers.docs", "--transport", "stdio"], "cwd": str(ROOT)}}}))
    return path


def test_a_mechanism_from_outside_the_harness_plugs_into_a_stack(tmp_path):
    part = Plugged()
    servers = config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path / "none"), [docs_config(tmp_path)])

    async def main():
        async with stack.Stack(servers, Transcript(), stack.upto(given=[part], without=(stack.Permissions,))) as built:
            await built.connect_all()
            docs = built.hub.clients["docs"]
            return (await docs.call_tool("search", {"query": "nothing-like-this"})).text()

    answer = anyio.run(main)
    assert answer.startswith("hooks: Hooks run shell commands"), f"expected the rewritten query's answer, got {answer!r}"
    assert part.counts == ["docs/search"]


def test_a_mechanism_from_outside_the_harness_plugs_into_the_user_cli(tmp_path):
    part = Plugged()
    out, err = io.StringIO(), io.StringIO()
    argv = ["--home", str(tmp_path), "--managed", str(tmp_path / "none"), "--config", str(docs_config(tmp_path)),
            "call", "mcp__docs__search", '{"query": "nothing-like-this"}', "--json"]
    code = app.main(argv, out, err, parts=[part])
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue())["content"][0]["text"].startswith("hooks: "), out.getvalue()
    assert part.counts == ["docs/search"]


def test_the_example_in_the_harness_readme_is_a_working_part(tmp_path):
    # harness/README.md shows a newcomer where a mechanism goes; its code is run here, so it cannot go stale.
    readme = (ROOT / "harness" / "README.md").read_text(encoding="utf-8")
    code = readme.split("## Where a new mechanism goes", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) < 30, "the example stays short"
    body = "\n".join(line for line in code.splitlines() if not line.startswith("async with"))
    names: dict = {}
    exec(compile(body, "harness/README.md", "exec"), names)  # noqa: S102  (our own README)
    part = names["Count"]()
    servers = config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path / "none"), [docs_config(tmp_path)])

    async def main():
        async with stack.Stack(servers, Transcript(), stack.upto(given=[part], without=(stack.Permissions,))) as built:
            await built.connect_all()
            await built.hub.clients["docs"].call_tool("get_version", {})

    anyio.run(main)
    assert part.seen == ["docs/get_version"]


class Versions(Extension):
    """A CLI extension written here: a command of its own (``versions``, with --json and an option), an option on a
    shared command, a stack part, and a doctor finding; nothing in harness/ names it."""

    commands = (Command("versions", "each server's version tool", lambda p: p.add_argument("--prefix", default=""), json=True),
                Command("offline", "starts nothing", connects=False))

    def __init__(self) -> None:
        self.part = Plugged()

    def options(self, parsers):
        parsers["servers"].add_argument("--shout", action="store_true")

    def parts(self, args):
        return [self.part]

    async def run(self, args, stack, out, err):
        if args.command == "offline":
            out.write(f"stack: {stack}\n")
            return 0
        if args.command != "versions":
            return None
        answer = (await stack.hub.clients["docs"].call_tool("get_version", {})).text()
        out.write(json.dumps({"docs": args.prefix + answer}) + "\n" if args.json else f"docs {args.prefix}{answer}\n")
        return 3  # its own exit code, kept

    async def problems(self, stack, prog):
        return [Problem("(versions)", "docs", None, "always one finding", f"run {prog} versions")]


def test_a_cli_extension_from_outside_the_harness_adds_a_command_an_option_a_part_and_a_finding(tmp_path, monkeypatch):
    extension = Versions()
    monkeypatch.setattr(app, "EXTENSIONS", (extension,))
    base = ["--home", str(tmp_path), "--managed", str(tmp_path / "none"), "--config", str(docs_config(tmp_path))]
    assert "versions" in app.parser().format_help(), "the command is listed in --help"
    assert app.parser().parse_args(["servers", "--shout"]).shout is True, "the option is on the shared command"
    out, err = io.StringIO(), io.StringIO()
    assert app.main([*base, "versions", "--prefix", "v=", "--json"], out, err) == 3, err.getvalue()
    assert json.loads(out.getvalue())["docs"].startswith("v="), out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert app.main([*base, "doctor"], out, err) == 1, err.getvalue()
    assert "always one finding" in out.getvalue() and "fix: run mcp-course versions" in out.getvalue(), out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert app.main(["--config", str(broken), "offline"], out, err) == 0, err.getvalue()
    assert out.getvalue() == "stack: None\n", "a command that does not connect reads no config and starts nothing"
    out, err = io.StringIO(), io.StringIO()
    assert app.main([*base, "call", "mcp__docs__search", '{"query": "nothing-like-this"}', "--json"], out, err) == 0, err.getvalue()
    assert extension.part.counts == ["docs/get_version", "docs/search"], "the extension's part is in every command's stack"
