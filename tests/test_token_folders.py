"""Temporary token stores never outlive their run for long (issue 18, item 14).

A store made by ``temporary_store`` is deleted when the run ends in any way Python sees.
``kill -9`` leaves it, so the next temporary store deletes the ones whose run is gone; a
live run's store, a folder of another name and a symlink are left alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from limits import RUN

from harness.auth.store import TEMPORARY, sweep_stale, temporary_store


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid  # reaped: nothing runs under it (the kernel may hand it out again, much later)


def test_a_stale_store_of_a_gone_run_is_swept_and_a_live_ones_is_kept(tmp_path):
    stale = tmp_path / f"{TEMPORARY}{dead_pid()}-abc"
    (stale / "sub").mkdir(parents=True)
    (stale / "sub" / "docs.json").write_text('{"access_token": "SECRET"}')
    live = tmp_path / f"{TEMPORARY}{os.getpid()}-def"
    live.mkdir()
    other = tmp_path / "mcp-course-tokens"  # not a temporary store's name
    other.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / f"{TEMPORARY}{dead_pid()}-lnk").symlink_to(target)
    assert sweep_stale(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and other.exists() and target.exists()


def test_a_temporary_store_is_0700_named_by_its_run_and_gone_after(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / f"{TEMPORARY}{dead_pid()}-xyz"
    stale.mkdir()
    with temporary_store() as store:
        assert store.name.startswith(f"{TEMPORARY}{os.getpid()}-")
        assert store.stat().st_mode & 0o777 == 0o700
        assert not stale.exists(), "a new temporary store sweeps the ones of gone runs"
    assert not store.exists()


def test_a_killed_run_leaves_its_store_and_the_next_run_removes_it(tmp_path, monkeypatch):
    """kill -9 in the middle: the folder stays (nothing runs on SIGKILL), and the next store takes it away.

    The killed run is a child process (only a process can be killed); the next run is this one.
    """
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    code = ("import os, signal, sys\nfrom harness.auth.store import temporary_store\n"
            "with temporary_store() as store:\n    (store / 'docs.json').write_text('{}')\n    os.kill(os.getpid(), signal.SIGKILL)\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=False, timeout=RUN)
    left = list(tmp_path.glob(f"{TEMPORARY}*"))
    assert len(left) == 1, left
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the temporary folder, as TMPDIR gives the child
    with temporary_store():
        pass
    assert not list(tmp_path.glob(f"{TEMPORARY}*")), "the next run swept the killed run's store"
