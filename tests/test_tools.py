"""harness.tools and harness.loop: the workspace fence, private folders, hostile input, and failures returned as data."""

from __future__ import annotations

import asyncio
import os

import pytest

from harness.errors import ToolError
from harness.loop import Turn, run_agent
from harness.model import Scenario, ScriptedModel
from harness import tools
from harness.tools import LIST_CAP, READ_CAP, Tool, Workspace, state_dir
from harness.transcript import Transcript


def call(workspace, name, **args):
    tool = {t.name: t for t in workspace.tools()}[name]
    return asyncio.run(tool.call(args))


def test_write_read_list_inside_the_workspace(tmp_path):
    ws = Workspace(tmp_path)
    assert call(ws, "write_file", path="notes/a.txt", content="héllo") == "wrote 6 bytes to notes/a.txt"
    assert call(ws, "read_file", path="notes/a.txt") == "héllo"
    assert call(ws, "list_dir") == "notes/"
    assert call(ws, "list_dir", path="notes") == "a.txt"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "notes/../../x"])
def test_paths_that_leave_the_workspace_are_refused(tmp_path, path):
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws").mkdir()
    with pytest.raises(ToolError, match=r"is outside the workspace"):
        call(ws, "read_file", path=path)
    with pytest.raises(ToolError, match=r"is outside the workspace"):
        call(ws, "write_file", path=path, content="x")


def test_a_symlink_pointing_out_is_refused(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", tmp_path / "ws" / "link.txt")
    with pytest.raises(ToolError, match="outside the workspace"):
        call(Workspace(tmp_path / "ws"), "read_file", path="link.txt")


def test_missing_and_wrong_arguments(tmp_path):
    ws = Workspace(tmp_path)
    with pytest.raises(ToolError, match="no such file: 'nope'"):
        call(ws, "read_file", path="nope")
    with pytest.raises(ToolError, match="argument 'path': expected a string"):
        call(ws, "read_file", path=3)


# --- private folders: the token store is never the model's ----------------------------------


def test_state_dir_follows_xdg_state_home_else_local_state(tmp_path):
    assert state_dir({"XDG_STATE_HOME": str(tmp_path / "s"), "HOME": "/nowhere"}) == tmp_path / "s" / "mcp-course"
    assert state_dir({"HOME": str(tmp_path)}) == tmp_path / ".local" / "state" / "mcp-course"
    assert state_dir({"XDG_STATE_HOME": "relative/dir", "HOME": str(tmp_path)}) == tmp_path / ".local" / "state" / "mcp-course", \
        "a relative XDG_STATE_HOME is invalid (XDG Base Directory) and must be ignored"


@pytest.mark.parametrize("where", ["xdg", "home"])
def test_the_per_user_state_is_refused_even_with_the_workspace_above_it(tmp_path, where):
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": "/nowhere"} if where == "xdg" else {"HOME": str(tmp_path)}
    tokens = state_dir(env) / "tokens"
    tokens.mkdir(parents=True)
    (tokens / "docs-abc.json").write_text('{"tokens": "at_secret"}')
    ws = Workspace(tmp_path, env=env)  # a user pointed --workspace at the folder holding the state
    inside = str((tokens / "docs-abc.json").relative_to(tmp_path))
    for name, args in (("read_file", {"path": inside}), ("list_dir", {"path": str(tokens.relative_to(tmp_path))}),
                       ("write_file", {"path": inside, "content": "{}"}), ("read_file", {"path": str(tokens / "docs-abc.json")})):
        with pytest.raises(ToolError, match="private state") as info:
            call(ws, name, **args)
        assert str(tmp_path) not in str(info.value) or args["path"].startswith(str(tmp_path)), "only the path the model gave is echoed"
    assert (tokens / "docs-abc.json").read_text() == '{"tokens": "at_secret"}', "a refused write must not have written"


def test_keep_out_refuses_a_lessons_store_and_a_symlink_into_it(tmp_path):
    store = tmp_path / "store"
    (store / "server").mkdir(parents=True)
    (store / "server" / "oauth.json").write_text("{}")
    os.symlink(store, tmp_path / "innocent")
    ws = Workspace(tmp_path, env={"HOME": str(tmp_path / "home")}).keep_out(store)
    for path in ("store/server/oauth.json", "innocent/server/oauth.json", "store", "./store/../store/server"):
        with pytest.raises(ToolError, match="private state"):
            call(ws, "read_file", path=path)
    assert "store/" in call(ws, "list_dir"), "the store's name may be listed; its contents may not"
    assert Workspace(tmp_path, env={"HOME": str(tmp_path / "home")}).private != ws.private, "keep_out returns a new workspace"


# --- hostile input: every case a ToolError, never a crash --------------------------------------


@pytest.mark.parametrize(("path", "message"), [
    ("a\0b.txt", "contains a NUL byte"),
    ("a\ud800.txt", "not valid Unicode"),
    ("a\udc80.txt", "not valid Unicode"),  # surrogateescape would silently turn this into a raw byte
    ("x" * 300, "has a name over 255 bytes"),
    ("d/" * 3000, "is too long"),
])
@pytest.mark.parametrize("tool", ["read_file", "write_file", "list_dir"])
def test_bad_names_are_tool_errors(tmp_path, tool, path, message):
    args = {"path": path, "content": "x"} if tool == "write_file" else {"path": path}
    with pytest.raises(ToolError, match=message) as info:
        call(Workspace(tmp_path), tool, **args)
    text = str(info.value)
    assert len(text) < 300 and "\0" not in text and text.encode("utf-8"), f"the echo must be short, escaped and encodable: {text!r}"


def test_a_folder_a_binary_file_and_non_utf8_text_are_tool_errors(tmp_path):
    ws = Workspace(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (tmp_path / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="'dir' is a folder, not a file"):
        call(ws, "read_file", path="dir")
    with pytest.raises(ToolError, match="'blob.bin' is a binary file"):
        call(ws, "read_file", path="blob.bin")
    with pytest.raises(ToolError, match="'latin1.txt' is not UTF-8 text"):
        call(ws, "read_file", path="latin1.txt")
    with pytest.raises(ToolError, match="'dir' is a folder"):
        call(ws, "write_file", path="dir", content="x")
    with pytest.raises(ToolError, match="'.' is a folder"):
        call(ws, "write_file", path=".", content="x")
    with pytest.raises(ToolError, match="lone surrogate"):
        call(ws, "write_file", path="ok.txt", content="a\ud800")
    assert not (tmp_path / "ok.txt").exists()


def test_a_fifo_is_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ToolError, match="'pipe' is a FIFO, not a regular file; read_file reads files only"):  # opening it would block
        call(Workspace(tmp_path), "read_file", path="pipe")


def test_filesystem_errors_are_tool_errors(tmp_path):
    ws = Workspace(tmp_path)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ToolError, match="cannot write 'file.txt/inner.txt'"):
        call(ws, "write_file", path="file.txt/inner.txt", content="x")  # a file where a folder should be
    os.symlink("loop", tmp_path / "loop")
    with pytest.raises(ToolError, match="loop"):
        call(ws, "read_file", path="loop")
    if os.geteuid() != 0:  # root reads everything
        (tmp_path / "locked.txt").write_text("x")
        os.chmod(tmp_path / "locked.txt", 0)
        with pytest.raises(ToolError, match="cannot read 'locked.txt': Permission denied"):
            call(ws, "read_file", path="locked.txt")


def test_a_200_mb_file_is_cut_at_the_read_cap_with_a_note(tmp_path):
    big = tmp_path / "big.txt"
    with big.open("wb") as f:  # sparse would be NULs (binary); this is 200 MB of text, written in 1 MB blocks
        block = ("é" * 511 + "\n").encode() * 1024
        for _ in range(200):
            f.write(block)
    size = big.stat().st_size
    text = call(Workspace(tmp_path), "read_file", path="big.txt")
    body, _, note = text.rpartition("\n[truncated: ")
    assert note == f"read_file shows the first {READ_CAP:,} bytes (READ_CAP) of {size:,}]", note
    assert READ_CAP - 3 <= len(body.encode()) <= READ_CAP, "the body is the cap, less a character split by the cut"
    assert body.startswith("é" * 511), "text cut at a character boundary, not garbled"


def test_a_file_exactly_at_the_cap_is_whole(tmp_path):
    (tmp_path / "exact.txt").write_bytes(b"a" * READ_CAP)
    assert call(Workspace(tmp_path), "read_file", path="exact.txt") == "a" * READ_CAP


def test_listing_caps_entries_and_shows_undecodable_names(tmp_path):
    ws = Workspace(tmp_path)
    (tmp_path / "many").mkdir()
    for i in range(LIST_CAP + 5):
        (tmp_path / "many" / f"f{i:05d}").touch()
    listed = call(ws, "list_dir", path="many").splitlines()
    assert len(listed) == LIST_CAP + 1 and listed[-1] == f"[truncated: list_dir shows the first {LIST_CAP:,} entries (LIST_CAP) of {LIST_CAP + 5:,}]"
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"odd\xff"))
    assert call(ws, "list_dir") == "many/\nodd\\xff/", "a name that is not UTF-8 is shown escaped, never as a lone surrogate"


def test_the_module_docstring_warns_about_hard_links():
    assert "hard link" in tools.__doc__ and "not caught" in tools.__doc__


def _script(turns):
    return ScriptedModel(Scenario.parse({"prompt": "go", "turns": turns}, "t.yaml"))


def test_tool_errors_go_back_to_the_model_as_error_results():
    async def boom(args):
        raise ToolError("it broke")

    pool = lambda: Turn("sys", (Tool("boom", "", {"type": "object"}, boom),))  # noqa: E731
    transcript = Transcript()
    messages = asyncio.run(run_agent(_script([{"tool_calls": [{"name": "boom"}]}, {"text": "ok"}]), "go", pool, transcript))
    result = messages[2]["content"][0]
    assert result == {"type": "tool_result", "tool_use_id": "toolu_01", "content": "it broke", "is_error": True}
    assert [e["kind"] for e in transcript.events] == ["user", "system", "tools", "tool_call", "tool_result", "assistant"]


def test_harness_bugs_propagate():
    async def bug(args):
        raise KeyError("not a tool failure")

    pool = lambda: Turn("sys", (Tool("bug", "", {"type": "object"}, bug),))  # noqa: E731
    with pytest.raises(KeyError):
        asyncio.run(run_agent(_script([{"tool_calls": [{"name": "bug"}]}, {}]), "go", pool, Transcript()))


def test_turn_limit_stops_the_run():
    async def ok(args):
        return "ok"

    turns = [{"tool_calls": [{"name": "ok"}]}] * 5 + [{}]
    pool = lambda: Turn("sys", (Tool("ok", "", {"type": "object"}, ok),))  # noqa: E731
    transcript = Transcript()
    asyncio.run(run_agent(_script(turns), "go", pool, transcript, max_turns=2))
    assert transcript.events[-1] == {"kind": "warning", "text": "stopped after 2 turns without a final answer"}
