"""Files the harness reads or writes itself: a regular file only, a bounded size, never a wait.

Every file the harness opens goes through here: config files of every scope, envFiles,
approvals and permissions (``harness.config.files.read_config``), token stores
(``harness.auth.store``), scenarios (``harness.model``), the file tools' reads and writes
(``harness.tools``), the completion cache, and the files output governance saves a
result's parts to (``harness.output``). What counts as a file: a regular file, or a
symlink to one. A FIFO blocks its reader until someone writes, and its writer until
someone reads (and a signal cannot end the wait), ``/dev/zero`` never ends, a folder is a
mistake: each is refused, and the caller says so in one line that names the file.

``read_regular`` opens without blocking (``O_NONBLOCK``: a FIFO opens at once, then is
refused) and reads at most one byte past its limit, so the caller can tell "too big" and
memory stays bounded. ``write_regular`` opens without blocking and without following a
symlink at the last step (a FIFO with no reader is ENXIO; one with a reader is refused),
so a spill file placed by someone else cannot hang the run or send the bytes elsewhere.

Introduced by issue 18 for config files (``harness.config.files``); every other reader
and writer by issue 36. Not handled here: a regular file on a filesystem that stalls (a
hung network mount).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

_FLAGS = os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotAFile(OSError):
    """The path is no regular file: ``kind`` says what it is ("a FIFO", "a character device", ...)."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"not a regular file ({kind})")
        self.kind = kind
        self.strerror = str(self)


def read_regular(path: Path | str, limit: int, check: Callable[[os.stat_result], None] | None = None) -> bytes:
    """At most ``limit + 1`` bytes of a regular file; ``FileNotFoundError``, ``NotAFile``, or another ``OSError``.

    ``check`` is given the open file's ``stat`` before a byte is read (the token store refuses
    a file others may read), and may raise.
    """
    fd = os.open(path, os.O_RDONLY | _FLAGS)
    try:
        found = _regular(fd)
        if check is not None:
            check(found)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_regular(path: Path | str, data: bytes, mode: int = 0o666) -> None:
    """Write ``data`` to ``path``, created (``mode``, less the umask) or truncated: a regular file only, a symlink at its end refused."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | _FLAGS, mode)
    except OSError as exc:  # ENXIO: a FIFO nobody reads (opened without blocking); ELOOP: a symlink
        if exc.errno in (errno.ENXIO, errno.ELOOP):
            found = os.lstat(path)
            raise NotAFile("a symlink" if stat.S_ISLNK(found.st_mode) else kind(found.st_mode)) from None
        raise
    try:
        _regular(fd)
        os.ftruncate(fd, 0)  # only once it is known to be a regular file
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _regular(fd: int) -> os.stat_result:
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        raise NotAFile(kind(found.st_mode))
    return found


def kind(mode: int) -> str:
    """What a file that is no regular file is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"
