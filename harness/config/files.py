"""Reading a config file: a regular file only, at most ``MAX_CONFIG_BYTES``, never a wait.

Every config read goes through ``read_config`` (the files of every scope, the managed
settings, the approvals in ``~/.claude.json``, a permissions file, each reload). What
counts as a config file: a regular file, or a symlink to one. A FIFO would block the
reader until someone writes (and a signal could not end the wait), ``/dev/zero`` never
ends, a folder is a mistake: each is refused in one line that names the file. The reading
itself is ``harness.files.read_regular``, which every other file the harness reads uses too.

Introduced by issue 18 (hardening of s27's readers and s29's watcher). Not handled here:
a regular file on a filesystem that stalls (a hung network mount).
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError
from harness.files import NotAFile, read_regular

MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a config with thousands of servers is well under 1 MiB


def read_config(path: Path, shown: str | None = None, limit: int = MAX_CONFIG_BYTES) -> bytes | None:
    """The file's bytes; None if it does not exist; ``ConfigError`` naming it if it is no regular file or too big."""
    shown = shown or str(path)
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        return None
    except NotAFile as exc:
        raise ConfigError(f"{shown}: not a regular file ({exc.kind}): a config file must be one") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ConfigError(f"{shown}: larger than {limit} bytes (config file limit: MAX_CONFIG_BYTES in harness/config/files.py)")
    return data
