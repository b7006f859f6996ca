"""What counts as a config file: a regular file of at most MAX_CONFIG_BYTES (issue 18, item 6).

A FIFO, ``/dev/zero`` behind a symlink, a folder, or a file past the limit, named with
``--config``, as ``~/.claude.json``, or swapped in for a watched file: one line naming
the file, at once, nothing read past the limit, and (reload) the running servers kept.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import anyio
import pytest
from limits import TEST

from harness import app, config
from harness.config.files import MAX_CONFIG_BYTES, read_config
from harness.errors import ConfigError
from harness.reload import Watcher


def special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"{" + b" " * MAX_CONFIG_BYTES + b"}")
    return path


REFUSED = {"fifo": "not a regular file (a FIFO)", "zero": "not a regular file (a character device)",
           "folder": "not a regular file (a folder)", "big": f"larger than {MAX_CONFIG_BYTES} bytes (config file limit"}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_only_a_regular_file_within_the_limit_is_read(tmp_path, kind):
    with pytest.raises(ConfigError, match=r"^.*\.json: ") as caught:
        read_config(special(tmp_path, kind))
    assert REFUSED[kind] in str(caught.value), caught.value
    assert read_config(tmp_path / "missing.json") is None
    (tmp_path / "ok.json").write_text("{}")
    assert read_config(tmp_path / "ok.json") == b"{}"


@pytest.mark.timeout(TEST)
@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("where", ["--config", "~/.claude.json"])
def test_the_cli_refuses_a_special_file_in_one_line_at_once(tmp_path, kind, where):
    home = tmp_path / "home"
    home.mkdir()
    path = special(tmp_path, kind)
    if where == "~/.claude.json":
        (home / ".claude.json").unlink(missing_ok=True)
        os.rename(path, home / ".claude.json") if kind == "fifo" else (home / ".claude.json").symlink_to("/dev/zero")
        argv = ["--home", str(home), "--managed", str(tmp_path / "none"), "servers"]
    else:
        argv = ["--home", str(home), "--managed", str(tmp_path / "none"), "--config", str(path), "servers"]
    out, err = io.StringIO(), io.StringIO()
    code = app.main(argv, out, err)  # before: a FIFO blocked here forever, /dev/zero filled memory (pytest-timeout ends it)
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1 and ("not a regular file" in lines[0] or lines[0].endswith(": not a file")), (code, lines)


def test_a_watched_file_swapped_for_a_fifo_is_refused_and_the_watcher_goes_on(tmp_path):
    watched = tmp_path / "settings.json"
    watched.write_text(json.dumps({"mcpServers": {}}))
    seen: list[str | None] = []

    async def changed(text):
        seen.append(text)

    async def main():
        watcher = Watcher(watched, changed, poll=0.01, stable=0.01)
        watched.unlink()
        os.mkfifo(watched)
        with anyio.fail_after(10):  # before: read_bytes() on the FIFO blocked the loop, and every signal with it
            await watcher.check()
        assert seen == [""], seen
        with pytest.raises(ConfigError, match="not a regular file"):
            config.read_json(watched, "settings.json")  # what the reload reads next, and says

    anyio.run(main)
