"""s32: what each kind of result block becomes for the model, the cap and its spill, safe file names,
and a live s32 run whose every request the Messages API stand-in checks."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import anyio
import pytest
from conftest import run_lesson
from leaks import no_process_left  # noqa: F401  (the fixture)
from messages_api import MessagesAPI

from harness.output import BLOCKS, FILES, IMAGES, Output, tokens
from harness.results import ToolResult, text_block
from harness.tools import Tool
from harness.transcript import Transcript
from mock_servers.catalog import PNG_1X1

ROOT = Path(__file__).resolve().parent.parent
TOOL = Tool("mcp__media__t", "d", {"type": "object"}, lambda a: None, source="media", original="t")


def governed(tmp_path: Path, *blocks, structured=None, is_error=False, cap=25_000, transcript=None) -> tuple[ToolResult, Output]:
    out = Output(tmp_path / "out", cap=cap, shown_as="out", transcript=transcript)
    result = ToolResult(tuple(blocks), structured, is_error, "server 'media': tool 't'")
    return anyio.run(out.after_result, None, TOOL, result), out


def test_text_images_and_links_become_model_blocks(tmp_path):
    result, out = governed(tmp_path, text_block("caption"), {"type": "image", "mimeType": "image/png", "data": PNG_1X1},
                           {"type": "resource_link", "uri": "x://a", "name": "a", "description": "the a"},
                           {"type": "resource", "resource": {"uri": "x://b", "text": "B text"}})
    rendered = out.render(result)
    assert rendered[0] == {"type": "text", "text": "caption"}
    assert rendered[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_1X1}}
    assert rendered[2:] == [text_block("resource link: x://a (a): the a"), text_block("resource x://b:\nB text")]
    assert Output.show(rendered).splitlines()[1] == "[image block: image/png, 70 bytes, sent to the model]"


@pytest.mark.parametrize(("block", "saved"), [
    ({"type": "image", "mimeType": "image/png", "data": base64.b64encode(b"<svg/>").decode()}, "001-media-t.bin"),
    ({"type": "image", "mimeType": "image/svg+xml", "data": base64.b64encode(b"<svg/>").decode()}, "001-media-t.bin"),
    ({"type": "audio", "mimeType": "audio/wav", "data": base64.b64encode(b"RIFF....WAVE").decode()}, "001-media-t.wav"),
    ({"type": "resource", "resource": {"uri": "../../etc/passwd\x00", "mimeType": "application/zip", "blob": "UEsFBg=="}}, "001-media-t.zip"),
    ({"type": "resource", "resource": {"uri": "/abs/" + "n" * 5000, "blob": "AAAA"}}, "001-media-t.bin"),
])
def test_what_cannot_go_to_the_model_is_saved_under_a_safe_name_inside_the_folder(tmp_path, block, saved):
    result, _ = governed(tmp_path, block)
    [note] = result.content
    assert f"saved to out/{saved}" in note["text"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == [saved]
    assert not list(tmp_path.glob("etc*")) and not (tmp_path / "abs").exists()


def test_hostile_server_and_tool_names_stay_in_the_folder(tmp_path):
    out = Output(tmp_path / "out", shown_as="out")
    tool = Tool("mcp__x__y", "d", {}, lambda a: None, source="../../" + "s" * 300, original="a/b\x00c")
    result = anyio.run(out.after_result, None, tool, ToolResult(({"type": "audio", "mimeType": "audio/wav", "data": "AAAA"},)))
    [path] = (tmp_path / "out").iterdir()
    assert path.parent == tmp_path / "out" and path.name.startswith("001-______") and "\x00" not in path.name
    assert len(path.name) < 100 and "saved to out/" in result.text()


def test_over_the_cap_the_text_is_spilled_and_the_head_says_where(tmp_path):
    text = "\n".join(f"line {n:04d} of the report" for n in range(1, 2001))
    result, _ = governed(tmp_path, text_block(text), cap=500)
    [block] = result.content
    head, hint = block["text"].rsplit("\n", 1)
    assert tokens(head) <= 500 and head.startswith("line 0001")
    assert hint == f"[cut: about {tokens(text)} tokens, over the cap of 500. The whole text is in out/001-media-t.txt; read it with read_file]"
    assert (tmp_path / "out" / "001-media-t.txt").read_text(encoding="utf-8") == text
    under, _ = governed(tmp_path / "b", text_block("short"), cap=500)
    assert under.content == (text_block("short"),)


def test_structured_only_empty_errors_user_only_and_too_many_images(tmp_path):
    result, _ = governed(tmp_path, structured={"b": 2, "a": 1})
    assert result.text() == '{"a": 1, "b": 2}'
    result, _ = governed(tmp_path / "e", is_error=True)
    assert result.text() == "server 'media': tool 't': reported an error and said nothing more"
    transcript = Transcript()
    result, _ = governed(tmp_path / "u", {"type": "text", "text": "for you", "annotations": {"audience": ["user"]}},
                         {"type": "text", "text": "for both", "annotations": {"audience": ["user", "assistant"]}}, transcript=transcript)
    assert result.text() == "for both"
    assert transcript.events[-1]["text"] == "for the user only, from media/t: for you"
    image = {"type": "image", "mimeType": "image/png", "data": PNG_1X1}
    result, _ = governed(tmp_path / "i", *[image] * (IMAGES + 2))
    assert sum(b["type"] == "image" for b in result.content) == IMAGES
    assert len(list((tmp_path / "i" / "out").iterdir())) == 2


AUDIO = {"type": "audio", "mimeType": "audio/wav", "data": base64.b64encode(b"RIFF....WAVE").decode()}
BLOB = {"type": "resource", "resource": {"uri": "x://b", "mimeType": "application/zip", "blob": "UEsFBg=="}}


@pytest.mark.parametrize(("block", "count"), [({"type": "image", "mimeType": "image/png", "data": PNG_1X1}, 100_000),
                                              (AUDIO, 5_000), (BLOB, 5_000)], ids=["100000_images", "5000_audio", "5000_blobs"])
def test_one_result_keeps_a_bounded_count_of_blocks_and_of_files_whatever_their_kind(tmp_path, block, count):
    """100,000 images took 74 s (each found with list.index) and wrote 99,996 files; 5,000 audio blocks wrote 5,001."""
    result, _ = governed(tmp_path, *[block] * count, text_block("the caption"))  # linear: well under a second
    written = list((tmp_path / "out").iterdir())
    assert len(written) == FILES, f"expected at most {FILES} files for one result, got {len(written)}"
    notes = [b["text"] for b in result.content if b["type"] == "text"]
    assert notes[-2:] == [f"[{count + 1 - BLOCKS} more content blocks left out: one result keeps at most {BLOCKS} (block limit: BLOCKS in harness/output.py)]",
                          f"[{BLOCKS - FILES - (IMAGES if block['type'] == 'image' else 0)} more binary blocks left out, not saved: "
                          f"one result saves at most {FILES} files (file limit: FILES in harness/output.py)]"], notes[-2:]
    assert len(result.content) <= BLOCKS + 2


def test_a_fifo_where_a_spill_file_goes_is_refused_not_waited_on(tmp_path):
    """A writer blocks on a FIFO until someone reads it: a file placed where a part is saved must not hang the run."""
    (tmp_path / "out").mkdir()
    os.mkfifo(tmp_path / "out" / "001-media-t.wav")
    os.mkfifo(tmp_path / "out" / "002-media-t.txt")
    result, _ = governed(tmp_path, AUDIO, text_block("x" * 4000), cap=100)  # before: blocked for ever (pytest-timeout ends it)
    assert "[audio, audio/wav, 12 bytes: not saved, out/001-media-t.wav: not a regular file (a FIFO)]" in result.text(), result.text()
    assert "The whole text could not be saved (out/002-media-t.txt: not a regular file (a FIFO))" in result.text(), result.text()


@pytest.mark.usefixtures("no_process_left")
def test_a_live_s32_run_passes_the_stand_ins_checks_of_every_tool_result(monkeypatch):
    """Image, saved binaries, a spilled report and structured content, through the real SDK and HTTP."""
    with MessagesAPI.from_file(ROOT / "lessons" / "s32" / "scenario.yaml") as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ANTHROPIC_AUTH_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        code, text = run_lesson("s32", "--live", "--model", "claude-stand-in")
        assert [e.status for e in api.exchanges] == [200] * len(api.exchanges), api.refusals
        sent = [b for e in api.exchanges for m in e.request["messages"] if isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result" and isinstance(b.get("content"), list)]
        assert any(part["type"] == "image" for b in sent for part in b["content"])
    assert code == 0, text
    assert text == (ROOT / "tests" / "snapshots" / "s32" / "default.transcript").read_text(encoding="utf-8")
