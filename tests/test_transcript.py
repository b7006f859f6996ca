"""harness.transcript: redaction always, normalization only when deterministic; text, events and frames alike."""

from __future__ import annotations

import io

import pytest

from secret_check import assert_no_secret

from harness.transcript import Normalizer, Transcript
from harness.wire import WireTap


def test_placeholders_ports_and_carriage_returns():
    normalize = Normalizer()
    normalize.add("/tmp/mcp-course-abc", "<workspace>")
    out = io.StringIO()
    Transcript(out, normalize).note("see /tmp/mcp-course-abc/x on 127.0.0.1:51234 and localhost:8000\r\nok\rend")
    # CRLF is a line break; a bare CR would overwrite its line, so it is shown escaped, never as a line of its own.
    assert out.getvalue() == "note: see <workspace>/x on 127.0.0.1:<port> and localhost:<port>\n    ok\\rend\n", out.getvalue()


def test_longest_literal_wins():
    normalize = Normalizer()
    normalize.add("/a", "<a>")
    normalize.add("/a/b", "<ab>")
    assert normalize("/a/b/c /a/c") == "<ab>/c <a>/c"


def test_events_and_text_are_redacted_alike():
    out = io.StringIO()
    transcript = Transcript(out)
    transcript.redact.add("SECRET-TOKEN", "<token>")
    transcript.emit("tool_call", name="t", input={"b": 1, "a": "SECRET-TOKEN"})
    assert transcript.events == [{"kind": "tool_call", "name": "t", "input": {"a": "<token>", "b": 1}}]
    assert out.getvalue() == '  -> t {"a": "<token>", "b": 1}\n'


def test_non_ascii_and_backslashes_are_replaced_in_events_and_frames_too():
    # Replacing inside a JSON dump missed these: json escapes them, so the literal no longer matched.
    secret, path = "tökén\\with\\backslash", "C:\\tmp\\wörk"
    normalize = Normalizer()
    normalize.add(path, "<workspace>")
    frames = io.StringIO()
    transcript = Transcript(io.StringIO(), normalize)
    transcript.redact.add(secret, "<token>")
    tap = WireTap(transcript, show=False, file=frames)
    tap._record("docs", "send", _Item({"jsonrpc": "2.0", "method": "x", "params": {"t": secret, "p": path + "\\a"}}))
    text = frames.getvalue() + repr(transcript.events)
    assert_no_secret([secret], frames=frames.getvalue(), events=repr(transcript.events))
    assert path not in text and "<token>" in frames.getvalue(), text
    assert "<workspace>" in frames.getvalue(), text


def test_a_real_run_keeps_ports_and_paths_but_never_secrets():
    out = io.StringIO()
    transcript = Transcript(out)  # no normalizer: what a user sees
    transcript.redact.add("at-123456789", "<access_token_1>")
    transcript.note("listening at http://127.0.0.1:51234/mcp with Bearer at-123456789 and Basic dXNlcjpwYXNzd29yZA==")
    assert out.getvalue() == "note: listening at http://127.0.0.1:51234/mcp with Bearer <access_token_1> and Basic <redacted>\n"


def test_a_callback_write_to_a_closed_reader_never_raises_but_the_flow_stops():
    class Gone(io.StringIO):
        def write(self, text):
            raise BrokenPipeError

    transcript = Transcript(Gone())
    transcript.post("frame", server="docs", direction="send", message={"id": 1})  # inside the SDK: must not raise
    assert transcript.broken
    with pytest.raises(BrokenPipeError):
        transcript.note("the agent's own flow ends here")


class _Item:
    """A stand-in for the SDK's SessionMessage: what the tap dumps."""

    def __init__(self, message):
        self.message = self
        self._data = message

    def model_dump(self, **kwargs):
        return dict(self._data)


def test_a_labelled_task_prints_each_line_with_its_label_and_a_held_line_keeps_it():
    from harness.transcript import grouped, labelled

    out = io.StringIO()
    transcript = Transcript(out)
    with labelled("researcher| "):
        transcript.emit("tool_result", name="x", content="first\nsecond", is_error=False)
        with labelled("inner| "):
            transcript.note("nested")
    transcript.note("the parent again")
    with transcript.holding():
        with grouped("call-1"), labelled("deployer| "):
            transcript.note("held")
        transcript.release("call-1")  # released by the parent, outside the label: printed with the label it was made under
    assert out.getvalue().splitlines() == [
        "researcher|   <- first", "researcher|      second", "researcher| inner| note: nested",
        "note: the parent again", "deployer| note: held"], out.getvalue()
    assert [e["kind"] for e in transcript.events] == ["tool_result", "note", "note", "note"], "expected the events as they were, unlabelled"


def test_a_question_asked_inside_a_label_begins_with_it():
    import asyncio

    from harness.ask import Ask
    from harness.transcript import labelled

    asked = io.StringIO()
    ask = Ask(ask_in=io.StringIO("y\n"), ask_out=asked)

    async def question():
        with labelled("deployer| "):
            return await ask.question("allow mcp__deploy__trigger? ")

    assert asyncio.run(question()) == "y"
    assert asked.getvalue() == "deployer| allow mcp__deploy__trigger? ", f"expected the label before the question, got {asked.getvalue()!r}"


def test_a_servers_own_lines_carry_the_label_of_the_call_in_flight_on_it():
    out = io.StringIO()
    transcript = Transcript(out)
    with transcript.on_behalf("desk", "[helper] "):
        transcript.post("elicit", server="desk", asked="form: who?", detail="", answer="accept", by="scripted")
        transcript.post("log", server="docs", level="info", text="another server's line")
    transcript.post("log", server="desk", level="info", text="after the call")
    assert out.getvalue().splitlines() == [
        "[helper]   ?? desk asks: form: who?", "[helper]      scripted answered: accept",
        "log: docs (info): another server's line", "log: desk (info): after the call"], out.getvalue()
