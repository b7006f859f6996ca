"""Reading a config file: a regular file only, at most ``MAX_CONFIG_BYTES``, never a wait.

Every config read goes through ``read_config`` (the files of every scope, the managed
settings, the approvals in ``~/.claude.json``, a permissions file, each reload). What
counts as a config file: a regular file, or a symlink to one. A FIFO would block the
reader until someone writes (and a signal could not end the wait), ``/dev/zero`` never
ends, a folder is a mistake: each is refused in one line that names the file. The file is
opened without blocking (``O_NONBLOCK``: a FIFO opens at once, then is refused), and read
up to one byte past the limit.

Introduced by issue 18 (hardening of s27's readers and s29's watcher). Not handled here:
a regular file on a filesystem that stalls (a hung network mount).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from harness.errors import ConfigError

MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a config with thousands of servers is well under 1 MiB


def read_config(path: Path, shown: str | None = None, limit: int = MAX_CONFIG_BYTES) -> bytes | None:
    """The file's bytes; None if it does not exist; ``ConfigError`` naming it if it is no regular file or too big."""
    shown = shown or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"{shown}: not a regular file ({_kind(mode)}): a config file must be one")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ConfigError(f"{shown}: larger than {limit} bytes (config file limit: MAX_CONFIG_BYTES in harness/config/files.py)")
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"
