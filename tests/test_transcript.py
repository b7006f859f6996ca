"""harness.transcript: one normaliser for text and data."""

from __future__ import annotations

import io

from harness.transcript import Normalizer, Transcript


def test_placeholders_ports_and_carriage_returns():
    normalize = Normalizer()
    normalize.add("/tmp/mcp-course-abc", "<workspace>")
    assert normalize("see /tmp/mcp-course-abc/x on 127.0.0.1:51234 and localhost:8000\r\n") == "see <workspace>/x on 127.0.0.1:<port> and localhost:<port>\n"


def test_longest_literal_wins():
    normalize = Normalizer()
    normalize.add("/a", "<a>")
    normalize.add("/a/b", "<ab>")
    assert normalize("/a/b/c /a/c") == "<ab>/c <a>/c"


def test_events_and_text_are_normalized_alike():
    normalize = Normalizer()
    normalize.add("SECRET-TOKEN", "<token>")
    out = io.StringIO()
    transcript = Transcript(out, normalize)
    transcript.emit("tool_call", name="t", input={"b": 1, "a": "SECRET-TOKEN"})
    assert transcript.events == [{"kind": "tool_call", "name": "t", "input": {"a": "<token>", "b": 1}}]
    assert out.getvalue() == '  -> t {"a": "<token>", "b": 1}\n'
