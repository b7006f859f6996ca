"""A mechanism written here, outside harness/, plugs into a stack and into the user CLI: the seam is the
harness's public hooks (harness.hooks, harness.parts), and nothing in harness/ names it.

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
