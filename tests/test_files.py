"""Every file the harness reads is a regular file within its limit (harness.files), whoever reads it.

Each reader is handed a FIFO (before: it blocked for ever, past SIGTERM), ``/dev/zero`` (it
never ends: before, a token store grew to gigabytes) and a folder, and refuses each in one
line naming the file, at once. A test that hung before is ended by pytest-timeout
(``limits.TEST``). Also: a token store others may read is refused with the fix (as ssh
refuses such a key), and JSON nested 5,000 deep in a file the harness reads is one line,
not a ``RecursionError``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from conftest import run_lesson
from leaks import no_process_left  # noqa: F401  (the fixture)

from harness.auth.store import TokenStore
from harness.commands import completion
from harness.errors import ConfigError, ScenarioError, ToolError
from harness.files import NotAFile, read_regular, write_regular
from harness.model import Scenario
from harness.tools import Workspace

URL = "http://127.0.0.1:1/mcp"
DEEP = b"[" * 5000 + b"]" * 5000


def place(path: Path, kind: str) -> Path:
    """A FIFO, a symlink to /dev/zero, or a folder at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    return path


KINDS = {"fifo": "a FIFO", "zero": "a character device", "folder": "a folder"}


def store_reads(root: Path, kind: str) -> str:
    store = TokenStore(root, "docs", URL)
    place(store.path, kind)
    with pytest.raises(ConfigError) as caught:
        anyio.run(store.get_tokens)
    return str(caught.value)


def scenario_reads(root: Path, kind: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        Scenario.load(place(root / "s.yaml", kind), "s.yaml")
    return str(caught.value)


def read_file_reads(root: Path, kind: str) -> str:
    place(root / "f.txt", kind)
    with pytest.raises(ToolError) as caught:
        [tool] = [t for t in Workspace(root).tools() if t.name == "read_file"]
        anyio.run(tool.call, {"path": "f.txt"})
    return str(caught.value)


READERS: dict[str, Callable[[Path, str], str]] = {"token_store": store_reads, "scenario": scenario_reads, "read_file": read_file_reads}
SAID = {"token_store": "token store file docs-", "scenario": "s.yaml: cannot read", "read_file": "'f.txt'"}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_each_reader_refuses_what_is_no_regular_file_in_one_line_naming_it(tmp_path, reader, kind):
    message = READERS[reader](tmp_path, kind)
    if reader == "read_file" and kind != "fifo":  # the file tools' own rules come first: a folder, a link out of the workspace
        assert message in ("'f.txt' is a folder, not a file; list_dir lists it", "path 'f.txt' is outside the workspace"), message
        return
    assert SAID[reader] in message and KINDS[kind] in message and "\n" not in message, message


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_completion_cache_is_ignored_when_it_is_no_regular_file_or_nested_too_deep(tmp_path, kind):
    cache = place(tmp_path / "completion.json", kind)
    assert completion.names("tools", [], cache) == [], "a cache that cannot be read is no cache"
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'{"docs": ' + DEEP + b"}")
    assert completion.names("tools", [], deep) == [], "before: a RecursionError traceback"


def test_read_regular_reads_one_byte_past_its_limit_at_most(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 100)
    assert read_regular(tmp_path / "big", 10) == b"x" * 11
    assert read_regular(tmp_path / "big", 100) == b"x" * 100
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing", 10)


def test_write_regular_refuses_a_fifo_read_or_not_and_a_symlink(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotAFile, match=r"not a regular file \(a FIFO\)"):
        write_regular(tmp_path / "pipe", b"x")  # nobody reads it: ENXIO, said as what it is
    reader = os.open(tmp_path / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(NotAFile, match=r"a FIFO"):
            write_regular(tmp_path / "pipe", b"x")  # someone reads it: opened, then refused
    finally:
        os.close(reader)
    (tmp_path / "elsewhere").write_bytes(b"keep")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(NotAFile, match=r"a symlink"):
        write_regular(tmp_path / "link", b"x")
    assert (tmp_path / "elsewhere").read_bytes() == b"keep"
    write_regular(tmp_path / "new", b"data")
    assert (tmp_path / "new").read_bytes() == b"data"


# --- a token store others may read -----------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_token_store_others_may_read_or_change_is_refused_with_the_fix(tmp_path, mode):
    store = TokenStore(tmp_path, "docs", URL)
    store.path.write_text('{"tokens": {"token": {"access_token": "at_secret_0123456789", "token_type": "Bearer"}}}')
    store.path.chmod(mode)
    with pytest.raises(ConfigError) as caught:
        anyio.run(store.get_tokens)
    message = str(caught.value)
    assert message == (f"token store file {store.path.name}: refused, mode {mode:04o}, others may read or change it; "
                       "run `chmod 600` on it in the token store folder (if only you could read it), or delete it to sign in again"), message
    assert "at_secret" not in message and str(tmp_path) not in message
    store.path.chmod(0o600)
    assert anyio.run(store.get_tokens).access_token == "at_secret_0123456789", "0600 is read as it is"


def test_the_store_writes_its_files_0600_so_its_own_files_are_never_refused(tmp_path):
    from mcp.shared.auth import OAuthToken

    store = TokenStore(tmp_path / "tokens", "docs", URL)
    anyio.run(store.set_tokens, OAuthToken(access_token="at_x", token_type="Bearer"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert anyio.run(store.get_tokens).access_token == "at_x"


def test_a_token_store_nested_too_deep_is_one_line(tmp_path):
    store = TokenStore(tmp_path, "docs", URL)
    store.path.write_bytes(b'{"tokens": ' + DEEP + b"}")
    store.path.chmod(0o600)
    with pytest.raises(ConfigError, match=r"^token store file docs-[0-9a-f]{12}\.json: not valid JSON; delete the file to sign in again$"):
        anyio.run(store.get_tokens)


# --- a settings file the model wrote 5,000 levels deep (s29) -----------------------------------------


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_s29_reads_a_settings_file_the_model_nested_5000_deep_in_one_note(tmp_path):
    """Before: the reload refused it, then s29's own read of it ended the run with a RecursionError traceback."""
    deep = '{"mcpServers": ' + DEEP.decode() + "}"
    scenario = tmp_path / "deep.yaml"
    scenario.write_text(json.dumps({"prompt": "Break the settings.", "turns": [
        {"text": "Writing it.", "tool_calls": [{"name": "write_file", "input": {"path": "cline_mcp_settings.json", "content": deep}}]},
        {"text": "Done."}]}))
    code, out = run_lesson("s29", "--scenario", str(scenario))
    assert code == 0 and "Traceback" not in out and "RecursionError" not in out, out[-2000:]
    assert "note: the settings file cannot be read (nested deeper than 100 levels (nesting limit)): the harness writes nothing" in out, out[-2000:]
