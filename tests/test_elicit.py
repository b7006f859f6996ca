"""s33: elicitation (form and URL), sampling with consent and limits, roots and their change, and the
2026-07-28 input-required rounds, against the desk mock server (a real MCP server over stdio)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import anyio
import pytest

from harness import stack
from harness import elicit
from harness.connection import Connections, classic_handshake, discover_handshake
from harness.errors import ToolError
from harness.spec import ServerSpec
from harness.transcript import Transcript
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import TIMEOUTS

ROOT = Path(__file__).resolve().parent.parent
DESK = ServerSpec("desk", "stdio", command=sys.executable, args=("-m", "mock_servers.desk", "--transport", "stdio"), cwd=str(ROOT))
pytestmark = pytest.mark.usefixtures("no_process_left")


class Model:
    async def reply(self, system, messages, tools):
        raise AssertionError("offline: samples come from the script")


def run_desk(answers, calls, *, modern=False, roots_at: Path | None = None, max_requests=3, move_to: Path | None = None):
    """Each (tool, arguments) in ``calls`` on one desk connection; the results' texts (or the errors) and the transcript."""
    transcript = Transcript()
    script = elicit.Script(answers)
    asker = elicit.Asker(script, transcript)
    sampler = elicit.Sampler(Model(), asker, script, max_requests=max_requests)
    roots = elicit.Roots(roots_at or ROOT)

    async def main():
        said = []
        async with Connections(transcript, timeouts=TIMEOUTS) as conns:
            callbacks = elicit.callbacks("desk", asker=asker, sampler=sampler, roots=roots)
            conn = await conns.open(DESK, handshake=discover_handshake if modern else classic_handshake,
                                    mechanisms=stack.mechanisms(callbacks))
            for tool, arguments in calls:
                if tool == "move":
                    await roots.move(move_to, [conn])
                    continue
                try:
                    said.append((await conn.call_tool(tool, arguments)).text())
                except ToolError as exc:
                    said.append(f"error: {exc}")
        return said

    return anyio.run(main), transcript


def test_a_form_accepts_with_defaults_declines_and_cancels():
    said, transcript = run_desk([{"form": {"team": "web", "priority": "high"}}, {"form": {"team": "ops"}}, "decline", "cancel",
                                 {"form": {"priority": "low"}}],
                                [("file_ticket", {"summary": "a"})] * 5)
    assert said == ["ticket T-1 filed for team web, priority high, notify true",
                    "ticket T-2 filed for team ops, priority normal, notify true",  # both defaults applied (SEP-1034)
                    "not filed: the user chose decline", "not filed: the user chose cancel",
                    "not filed: the user chose decline"]  # a required field missing: not accepted
    answered = [e["answer"] for e in transcript.events if e["kind"] == "elicit"]
    assert answered[-1] == "decline (missing required team)"


def test_a_url_elicitation_is_shown_then_the_call_is_made_again_and_not_done_means_an_error():
    said, transcript = run_desk(["done"], [("link_account", {})])
    assert said == ["account acme linked"]
    [asked] = [e for e in transcript.events if e["kind"] == "elicit"]
    assert asked["detail"] == "open http://127.0.0.1:9/desk/link?account=acme (host 127.0.0.1)", asked
    said, _ = run_desk(["no"], [("link_account", {})])
    assert said[0].startswith("error: server 'desk': tool 'link_account': needs a step in the browser first")


def test_sampling_needs_consent_and_stays_within_its_limits():
    said, transcript = run_desk(["yes", {"sample": "Title one"}, "no", "yes", {"sample": "Title two"}, "yes", {"sample": "x"}],
                                [("suggest_title", {"text": "t"})] * 4, max_requests=2)
    assert said[0] == "suggested title: Title one"
    assert said[1].startswith("error: server 'desk': tool 'suggest_title'") and "refused the sampling request" in said[1]
    assert said[2] == "suggested title: Title two"
    assert "has used its 2 sampling requests" in said[3]
    consent = [e["asked"] for e in transcript.events if e["kind"] == "elicit"][0]
    assert consent.startswith("sampling: ask the model (60 tokens at most): A ticket title")


def test_roots_are_the_workspace_and_a_move_is_told_to_the_server(tmp_path):
    (tmp_path / "project").mkdir()
    said, _ = run_desk([], [("workspace", {}), ("move", {}), ("workspace", {})], roots_at=tmp_path, move_to=tmp_path / "project")
    assert said == [f"roots: workspace {tmp_path.resolve().as_uri()}", f"roots: workspace {(tmp_path / 'project').resolve().as_uri()}"]


def test_the_2026_era_asks_with_an_input_required_result_and_the_answer_goes_back_with_the_call():
    said, transcript = run_desk([{"form": {"team": "ops"}}, "decline"], [("triage", {"summary": "s"})] * 2, modern=True)
    assert said == ["triaged to team ops", "not triaged: no team given"]
    # And in that era a server cannot send a request of its own: the form tool fails, clearly.
    said, _ = run_desk([], [("file_ticket", {"summary": "a"})], modern=True)
    assert said[0].startswith("error: server 'desk': tool 'file_ticket'") and "back-channel" in said[0]


def test_only_the_parts_given_become_callbacks_and_so_capabilities():
    asker = elicit.Asker(elicit.Script([]))
    assert set(elicit.callbacks("s", asker=asker)) == {"elicitation_callback"}
    assert set(elicit.callbacks("s", roots=elicit.Roots(ROOT))) == {"list_roots_callback"}
    assert elicit.callbacks("s") == {}


def test_nobody_to_ask_declines_and_a_terminal_user_types_fields():
    async def main():
        nobody = elicit.Asker()
        assert await nobody.form("s", "m", {"properties": {"a": {"type": "string"}}}) == ("decline", None)
        typed = elicit.Asker(ask_in=io.StringIO('{"n": "3", "ok": "yes"}\n'), ask_out=io.StringIO())
        schema = {"properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}}, "required": ["n"]}
        assert await typed.form("s", "m", schema) == ("accept", {"n": 3, "ok": True})

    anyio.run(main)
