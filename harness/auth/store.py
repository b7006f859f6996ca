"""The token store (s26): one server's tokens and client registration in one private JSON file.

One JSON file per server, mode 0600 in a 0700 folder, written atomically (temp file +
``os.replace``), holding the tokens, their absolute expiry and the client registration,
so a restart neither re-registers nor re-authorizes. A store file is read as every file
the harness reads (``harness.files``: a regular file, at most ``MAX_STORE_BYTES``), and
refused, as ssh refuses a private key, when others may read or change it (any group or
other permission bit) or another user owns it: the line names the file and the fix
(``chmod 600``, or deleting it to sign in again). The file is keyed by the server's
name and its URL as configured (``identity``: scheme and host lower-cased, default port
dropped): its stable identity, the same from one run to the next. A token minted for one
endpoint is never sent to another. The default folder, ``default_store()``, is the
per-user state folder (``$XDG_STATE_HOME/mcp-course/tokens``, else
``~/.local/state/mcp-course/tokens``), never the workspace; the file tools refuse it
(``harness.tools``). Messages name a store file by its name only, never its folder.

``TokenStore`` is the SDK's ``TokenStorage``; ``harness.auth.provider`` wraps it to redact
and report what passes.

Introduced by s26. Not handled here: a cross-process lock (two runs refreshing one stored
token at once), keychains, encryption at rest (the file mode is the protection).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from harness.auth.clock import Clock
from harness.errors import ConfigError
from harness.files import NotAFile, read_regular
from harness.nesting import loads
from harness.tools import state_dir


def default_store(env: Mapping[str, str] | None = None) -> Path:
    """The per-user token store: ``$XDG_STATE_HOME/mcp-course/tokens``, else ``~/.local/state/mcp-course/tokens``."""
    return state_dir(env) / "tokens"


MAX_STORE_BYTES = 4 * 1024 * 1024  # a store file holds a few KB: tokens, a client registration, discovery metadata
TEMPORARY = "mcp-course-tokens-"  # a temporary store's prefix; the pid of the run that made it follows


@contextmanager
def temporary_store() -> Iterator[Path]:
    """A private store (0700) for one run, deleted at the end: tokens of servers that end with the run.

    Deleted on every exit Python sees (an error, Ctrl-C, SIGTERM, SIGHUP through the
    harness's signal trap). ``kill -9`` leaves it, so each new one first deletes the
    temporary stores of runs that are gone (their pid no longer runs), ours only.
    """
    sweep_stale()
    folder = tempfile.mkdtemp(prefix=f"{TEMPORARY}{os.getpid()}-")  # mkdtemp makes it 0700
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Delete the temporary stores in ``parent`` (the temporary folder) whose run is gone; return them."""
    gone = []
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{TEMPORARY}*"):
        pid = folder.name[len(TEMPORARY):].partition("-")[0]
        try:
            if not pid.isdigit() or folder.is_symlink() or folder.stat().st_uid != os.getuid() or _alive(int(pid)):
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        gone.append(folder)
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def identity(url: str) -> str:
    """A server URL as the store keys it: scheme and host lower-cased, the default port and any fragment dropped."""
    parts = urlsplit(url.strip())
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port is None or port == default else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")


class TokenStore:
    """One server's tokens and client registration in one 0600 JSON file; the SDK's ``TokenStorage``."""

    def __init__(self, directory: Path, server: str, url: str, clock: Clock = time.time) -> None:
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", server)
        # The URL is part of the key: tokens minted for one endpoint must never go to another.
        # Its stable form, so the same server finds its file again in the next run.
        self.key = hashlib.sha256(f"{server}|{identity(url)}".encode()).hexdigest()[:12]
        self.path = Path(directory) / f"{safe}-{self.key}.json"
        self.clock = clock
        # Messages name the file only: its folder may be a temporary or personal path, and
        # an error can reach the model or a pinned transcript.
        self.shown = f"token store file {self.path.name}"

    def _read(self) -> dict[str, Any]:
        try:
            raw = read_regular(self.path, MAX_STORE_BYTES, check=self._private)
        except FileNotFoundError:
            return {}
        except NotAFile as exc:
            raise ConfigError(f"{self.shown}: not a regular file ({exc.kind}); delete it to sign in again") from None
        except OSError as exc:
            raise ConfigError(f"{self.shown}: cannot read: {exc.strerror or exc}") from None
        if len(raw) > MAX_STORE_BYTES:
            raise ConfigError(f"{self.shown}: larger than {MAX_STORE_BYTES} bytes (token store limit: MAX_STORE_BYTES in "
                              "harness/auth/store.py); delete the file to sign in again")
        try:
            data = loads(raw)
        except ValueError:  # never quote the content: it holds tokens (a nesting past the limit is a ValueError too)
            raise ConfigError(f"{self.shown}: not valid JSON; delete the file to sign in again") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{self.shown}: expected a JSON object; delete the file to sign in again")
        return data

    def _private(self, found: os.stat_result) -> None:
        """Refuse a file others may read or write, or that another user owns, as ssh refuses such a key: its tokens
        may have been read, or planted. Checked on the open file, before a byte of it is read."""
        loose = stat.S_IMODE(found.st_mode) & 0o077
        if loose or found.st_uid != os.getuid():
            why = f"mode {stat.S_IMODE(found.st_mode):04o}, others may read or change it" if loose else "owned by another user"
            raise ConfigError(f"{self.shown}: refused, {why}; run `chmod 600` on it in the token store folder "
                              "(if only you could read it), or delete it to sign in again")

    def _write(self, data: dict[str, Any]) -> None:
        _private_folder(self.path.parent)
        # mkstemp creates the file 0600 in the same folder, so os.replace is atomic and
        # no reader ever sees a half-written file or a moment of wider permissions.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            os.unlink(tmp)
            raise

    async def get_tokens(self) -> OAuthToken | None:
        saved = self._read().get("tokens")
        if not saved:
            return None
        try:
            token = OAuthToken.model_validate(saved["token"])
            if saved.get("expires_at") is not None:  # the lifetime left now, not the one granted then
                token.expires_in = max(0, int(saved["expires_at"] - self.clock()))
        except (KeyError, TypeError, ValueError):  # ValidationError is a ValueError; never quote the content
            raise ConfigError(f"{self.shown}: 'tokens' is not in the expected shape; delete the file to sign in again") from None
        return token

    async def set_tokens(self, tokens: OAuthToken, discovered: dict[str, Any] | None = None) -> None:
        """Save tokens, and with them what discovery found (where to refresh them), if given."""
        expires_at = self.clock() + tokens.expires_in if tokens.expires_in is not None else None
        data = {**self._read(), "tokens": {"token": tokens.model_dump(mode="json", exclude_none=True), "expires_at": expires_at}}
        self._write({**data, "discovered": discovered} if discovered else data)

    def get_discovered(self) -> dict[str, Any]:
        """The metadata saved with the tokens: protected resource, authorization server, its URL."""
        found = self._read().get("discovered")
        return found if isinstance(found, dict) else {}

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        saved = self._read().get("client")
        try:
            return OAuthClientInformationFull.model_validate(saved) if saved else None
        except ValueError:
            raise ConfigError(f"{self.shown}: 'client' is not in the expected shape; delete the file to sign in again") from None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write({**self._read(), "client": client_info.model_dump(mode="json", exclude_none=True)})

    def forget_client(self) -> None:
        """Drop the client registration only (its redirect URI cannot be served); tokens stay while they work."""
        data = self._read()
        if "client" in data:
            del data["client"]
            self._write(data)


def _private_folder(folder: Path) -> None:
    """Create ``folder`` and any missing parent as 0700 (XDG: a state folder is private); existing ones stay as they are."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for level in reversed(missing):
        level.mkdir(mode=0o700, exist_ok=True)
        os.chmod(level, 0o700)  # mkdir's mode passes through the umask
