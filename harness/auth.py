"""OAuth for remote MCP servers: a token store, a headless browser flow, and ``needs-auth``.

The protocol work is the SDK's ``OAuthClientProvider`` (an ``httpx2.Auth``): on a 401 it
reads the protected-resource metadata (RFC 9728), the authorization-server metadata
(RFC 8414), registers a client (RFC 7591), sends the user to authorize with PKCE S256 and
``resource`` (RFC 8707), exchanges the code, retries; on a 403 ``insufficient_scope`` it
asks again for the union of scopes (step-up). This module adds what the SDK leaves to the
host:

- ``TokenStore``: one JSON file per server, mode 0600 in a 0700 folder, written atomically
  (temp file + ``os.replace``), holding the tokens, their absolute expiry and the client
  registration, so a restart neither re-registers nor re-authorizes. The file is keyed by
  the server's name and its URL as configured (scheme and host lower-cased, default port
  dropped): its stable identity, the same from one run to the next. A token minted for
  one endpoint is never sent to another. The default folder, ``default_store()``, is the
  per-user state folder (``$XDG_STATE_HOME/mcp-course/tokens``, else
  ``~/.local/state/mcp-course/tokens``), never the workspace; the file tools refuse it
  (``harness.tools``). Messages name a store file by its name only, never its folder.
- refresh *before* expiry, on an injected clock: a token counts as expired when
  ``min(REFRESH_MARGIN, lifetime / 2)`` seconds remain, so the SDK refreshes proactively;
  and refresh *on a 401*: a stored token the server no longer takes (it restarted, or
  revoked it) is refreshed once before anyone is asked to sign in again, as the
  TypeScript SDK does. The Python SDK would go straight to the browser.
- ``Callback``: a loopback listener on 127.0.0.1 for the redirect (code, state, iss).
  It reuses the port of the stored registration when it can: the authorization server
  compares redirect URIs exactly, so a new port means a new registration.
- ``auto_browser``: for offline runs and tests, "the user" GETs the authorization URL
  without following redirects, reads the Location and delivers it to the callback.
- ``Authorizer``: all of that for one server, plus a trace of every HTTP exchange the
  auth flow takes part in (method, URL, status, challenge; never a body or credential),
  and every secret registered with the transcript's redactor the moment it exists.
- the sign-in's own timeout: the browser step (a person reading, typing, consenting) is
  bounded by ``Timeouts.auth`` (300 s), not by the connect timeout. ``handshake`` is the
  connection's handshake with the connect clock stopped while the person is at it; the
  ``Opener`` gets it with the auth. A sign-in that runs out says ``auth timeout`` and where
  to change it.
- ``needs-auth`` as a state: the hub connector from ``connector`` connects with stored
  tokens if they work; otherwise the hub lists the server as ``needs-auth`` with one
  tool, ``authenticate`` (``mcp__{server}__authenticate`` to the model). Calling it runs
  the browser flow, connects, and asks the hub to promote the real connection under the
  same name, so the next pool has the server's real tools instead (everything under the
  ``mcp__{server}__`` prefix changes).

Introduced by s26. Not handled here: revocation (RFC 7009), a cross-process refresh lock
(two runs refreshing one stored token at once: the second presents a rotated token, and a
careful server revokes both), client credentials (``harness.conformance`` shows those),
keychains. A step-up (403) during a tool call happens inside that call, so the call
timeout bounds its browser step, not the auth timeout: the connection's call clock has no
pause (``harness.connection``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import shutil
import tempfile
import time
import webbrowser
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import anyio
import anyio.abc
import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import (AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, OAuthToken,
                             ProtectedResourceMetadata)
from pydantic import ValidationError

from harness import echo
from harness.errors import AuthRequired, ConfigError, HarnessError, ServerError, ToolError
from harness.hub import Connector, Hub
from harness.mcp_client import Client
from harness.results import ToolResult
from harness.spec import State, Timeouts
from harness.tools import state_dir
from harness.transcript import Transcript

Clock = Callable[[], float]
Browser = Callable[[str], Awaitable[None]]  # "open this authorization URL"
# Connect the server; called with the keywords ``auth`` (an httpx2.Auth) and ``handshake``
# (``auth.handshake``), both meant for ``Connections.open``.
Opener = Callable[..., Awaitable[Client]]

REFRESH_MARGIN = 300.0  # seconds before expiry to refresh (Claude Code refreshes at <= 300 s left)
BROWSER_FETCH_TIMEOUT = 30.0  # seconds auto_browser waits for the authorization server's redirect
CALLBACK_PATH = "/callback"
AUTHENTICATE = "authenticate"
DEFAULT_TIMEOUTS = Timeouts(settings={"auth": "Authorizer(timeouts=Timeouts(auth=SECONDS))"})


def default_store(env: Mapping[str, str] | None = None) -> Path:
    """The per-user token store: ``$XDG_STATE_HOME/mcp-course/tokens``, else ``~/.local/state/mcp-course/tokens``."""
    return state_dir(env) / "tokens"


@contextmanager
def temporary_store() -> Iterator[Path]:
    """A private store (0700) for one run, deleted at the end: tokens of servers that end with the run."""
    folder = tempfile.mkdtemp(prefix="mcp-course-tokens-")  # mkdtemp makes it 0700
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def refresh_margin(lifetime: float) -> float:
    """Seconds before expiry at which a token of this lifetime is refreshed."""
    return min(REFRESH_MARGIN, lifetime / 2)


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


class SteppedClock:
    """Wall-clock time plus an offset a lesson can move forward ("an hour later"); tests use their own."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


# --- the token store -------------------------------------------------------------------


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
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"{self.shown}: cannot read: {exc.strerror}") from None
        except ValueError:  # never quote the content: it holds tokens
            raise ConfigError(f"{self.shown}: not valid JSON; delete the file to sign in again") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{self.shown}: expected a JSON object; delete the file to sign in again")
        return data

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

    def forget(self) -> None:
        """Drop everything stored for this server."""
        self.path.unlink(missing_ok=True)

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


# --- the SDK provider, on our clock ---------------------------------------------------------


class _Context(OAuthContext):
    clock: Clock = time.time

    def update_token_expiry(self, token: OAuthToken) -> None:
        if token.expires_in is None:
            self.token_expiry_time = None
        else:  # expire early, so the refresh happens before the server would refuse the token
            self.token_expiry_time = self.clock() + token.expires_in - min(REFRESH_MARGIN, token.expires_in / 2)

    def is_token_valid(self) -> bool:
        tokens = self.current_tokens
        return bool(tokens and tokens.access_token and (self.token_expiry_time is None or self.clock() < self.token_expiry_time))


class Provider(OAuthClientProvider):
    """``OAuthClientProvider`` with an injected clock and an expiry that survives restarts."""

    def __init__(self, *args: Any, clock: Clock = time.time, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.context = _Context(**{f.name: getattr(self.context, f.name) for f in fields(OAuthContext)})
        self.context.clock = clock

    async def _initialize(self) -> None:
        await super()._initialize()
        if self.context.current_tokens is not None:  # the SDK forgets the expiry of loaded tokens
            self.context.update_token_expiry(self.context.current_tokens)
        restore = getattr(self.context.storage, "restore_discovered", None)
        if restore is not None:
            # Without it, the SDK in a new process refreshes at <server origin>/token, not the
            # authorization server's token endpoint, and without `resource`: the refresh fails.
            restore(self.context)


# --- the redirect: a loopback callback and a browser -----------------------------------------


class Callback:
    """An HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self) -> None:
        self.redirect_uri = ""
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, str]](4)

    async def serve(self, preferred_port: int, task_group: anyio.abc.TaskGroup) -> None:
        try:
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=preferred_port)
        except OSError:  # taken: any free port, and the caller re-registers
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"

        async def run() -> None:
            async with listener:  # closed when cancelled, so the next run can bind the same port
                await listener.serve(self._handle)

        task_group.start_soon(run)

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(10):
                try:
                    while b"\r\n\r\n" not in data and len(data) < 65536:
                        data += await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return  # the browser went away before asking anything
            method, _, rest = data.decode("latin-1").partition(" ")
            target = urlsplit(rest.partition(" ")[0])
            if method != "GET" or target.path != CALLBACK_PATH:
                await stream.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            await self._send.send(dict(parse_qsl(target.query)))
            body = b"Authorization received. You can close this window."
            await stream.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))

    async def wait(self) -> dict[str, str]:
        """The query parameters of the next redirect (code, state, iss, or error); unbounded: the caller bounds it."""
        return await self._receive.receive()

    def forget_pending(self) -> None:
        """Drop redirects that arrived late for an earlier sign-in, so they cannot answer this one."""
        while True:
            try:
                self._receive.receive_nowait()
            except anyio.WouldBlock:
                return


async def auto_browser(url: str) -> None:
    """A user who consents at once: GET the URL, do not follow the redirect, deliver it to the callback."""
    status, headers = await _get(url)
    location = headers.get("location")
    if status not in (302, 303, 307) or not location:
        raise ToolError(f"authorization server answered {status} instead of a redirect")
    await deliver(location)


async def deliver(location: str) -> None:
    """The browser's last step: request the redirect URI on the loopback listener."""
    target = urlsplit(location)
    if target.hostname not in ("127.0.0.1", "localhost"):
        raise ToolError("redirect does not point at the loopback callback")
    await _get(location)


async def _get(url: str) -> tuple[int, dict[str, str]]:
    """A bare HTTP/1.1 GET on loopback: the status and headers, redirects not followed.

    Not httpx2 on purpose: an HTTP client logs the URLs and headers it handles, and these
    carry the authorization code. A browser keeps them to itself; so does this.
    """
    target = urlsplit(url)
    if target.scheme != "http" or target.hostname not in ("127.0.0.1", "localhost"):
        raise ToolError("the automatic browser only visits http://127.0.0.1")
    path = (target.path or "/") + (f"?{target.query}" if target.query else "")
    head = b""
    with anyio.move_on_after(BROWSER_FETCH_TIMEOUT) as waited:
        try:
            stream = await anyio.connect_tcp("127.0.0.1", target.port or 80)
        except OSError as exc:
            raise ToolError(f"cannot reach {target.hostname}:{target.port}: {exc.strerror or type(exc).__name__}") from None
        async with stream:
            await stream.send(f"GET {path} HTTP/1.1\r\nHost: {target.netloc}\r\nConnection: close\r\n\r\n".encode())
            try:
                while b"\r\n\r\n" not in head:
                    head += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                pass
    if waited.cancelled_caught:  # not a TimeoutError: that would read as the connect timeout
        raise ToolError(f"{target.hostname}:{target.port} did not answer within {BROWSER_FETCH_TIMEOUT:g} s")
    status_line, *lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    parts = status_line.split(" ")
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers


async def system_browser(url: str) -> None:
    """A real user: open the URL in the desktop's browser."""
    await anyio.to_thread.run_sync(webbrowser.open, url)


# --- one server's authorization ------------------------------------------------------------


class Authorizer:
    """Store, callback, SDK provider and trace for one server. ``async with`` it around the connection.

    ``auth`` is the ``httpx2.Auth`` to hand to ``harness.connection.connect``, with
    ``handshake`` as its handshake. While ``interactive`` is False a 401 is not answered
    with a browser flow: the exchange is traced, ``needs_authorization`` is set, and the
    401 goes back to the transport. ``store_dir`` None is ``default_store()``.
    """

    def __init__(self, name: str, url: str, store_dir: Path | None, transcript: Transcript, browser: Browser = auto_browser,
                 clock: Clock = time.time, client_name: str = "mcp-course harness", timeouts: Timeouts = DEFAULT_TIMEOUTS,
                 client_metadata_url: str | None = None, store_clock: Clock | None = None) -> None:
        self.name, self.url = name, url
        # The store writes absolute expiries that outlive this run. A lesson that moves its
        # clock ("an hour later") keeps the store on the wall clock, so the next run reads
        # the expiry the server has in mind, not one an hour late.
        self.store = TokenStore(default_store() if store_dir is None else store_dir, name, url, store_clock or clock)
        self.transcript = transcript
        self.browser = browser
        self.clock = clock
        self.timeouts = timeouts
        self.client_name = client_name
        self.client_metadata_url = client_metadata_url  # an https URL: CIMD instead of registration, where supported
        self.callback = Callback()
        self.interactive = False
        self._answer: dict[str, str] = {}  # the redirect the callback received, for _callback to check
        self._state: str | None = None  # the state of the sign-in under way, to check the redirect against
        self.needs_authorization = False
        self.failure: str | None = None  # why the last browser flow failed, in words for the model
        self._counts: dict[str, int] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self.auth: httpx2.Auth | None = None
        self.provider: Provider | None = None
        _quiet_sdk()

    async def __aenter__(self) -> Authorizer:
        self._tg = await anyio.create_task_group().__aenter__()
        try:
            return await self._start()
        except BaseException:  # leave the task group in this task, or anyio's cancel scopes tangle
            self._tg.cancel_scope.cancel()
            # Exit it clean (its callback task is cancelled), then raise the error bare: handed
            # to __aexit__, it would come back wrapped in an exception group.
            await self._tg.__aexit__(None, None, None)
            raise

    async def _start(self) -> Authorizer:
        assert self._tg is not None
        await self.store.get_tokens()  # a damaged store is one clear error now, not a failure deep in a request
        stored = await self.store.get_client_info()
        preferred = stored.redirect_uris[0].port if stored and stored.redirect_uris else 0
        await self.callback.serve(preferred or 0, self._tg)
        if stored and [str(u) for u in stored.redirect_uris or []] != [self.callback.redirect_uri]:
            # Its redirect URI cannot be served any more; a new flow must register afresh.
            # The tokens stay: they are bearer tokens and work until they expire.
            self.store.forget_client()
            stored = None
        if stored:
            self._redact_client(stored)
        metadata = OAuthClientMetadata(client_name=self.client_name, redirect_uris=[self.callback.redirect_uri],
                                       grant_types=["authorization_code", "refresh_token"], response_types=["code"])
        self.provider = Provider(self.url, metadata, _Storage(self), self._redirect, self._callback,
                                 client_metadata_url=self.client_metadata_url, clock=self.clock)
        self.auth = _Traced(self.provider, self)
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        return await self._tg.__aexit__(*exc)

    # Every secret gets a stable placeholder before anything could print it. Runs inside
    # the SDK's auth flow, so everything here records with post(): output can never stall it.
    def redact(self, value: str | None, kind: str, numbered: bool = False) -> None:
        if value:
            if numbered:
                self._counts[kind] = self._counts.get(kind, 0) + 1
                kind = f"{kind}_{self._counts[kind]}"
            self.transcript.redact.add(value, f"<{kind}>")

    def _redact_client(self, info: OAuthClientInformationFull) -> None:
        self.redact(info.client_id, "client_id")
        self.redact(info.client_secret, "client_secret")

    def say(self, text: str) -> None:
        self.transcript.post("auth", text=f"{self.name}: {text}")

    async def _redirect(self, url: str) -> None:
        """The person's part: the browser, then the redirect back. Bounded by the auth timeout, off the connect clock."""
        params = dict(parse_qsl(urlsplit(url).query))
        self._state = params.get("state")
        self.redact(params.get("state"), "state")
        self.redact(params.get("code_challenge"), "code_challenge")
        self.say(f"authorize in the browser: {unquote(url)}")  # decoded, so a deterministic run's normalizer sees the ports
        self.callback.forget_pending()
        with _person_at_work(), anyio.move_on_after(self.timeouts.auth) as waited:
            await self.browser(url)
            self._answer = await self.callback.wait()
        if waited.cancelled_caught:
            self.failure = f"sign-in not finished within {self.timeouts.auth:g} s ({self.timeouts.explain('auth')})"
            raise ToolError(f"server '{self.name}': {self.failure}")

    async def _callback(self) -> AuthorizationCodeResult:
        answer, self._answer = self._answer, {}
        self.redact(answer.get("code"), "code")
        if "code" not in answer:
            said = " ".join(filter(None, (answer.get("error", "no code"), answer.get("error_description"))))
            self.failure = f"the authorization server refused: {echo.line(said, 200)}"
            raise ToolError(f"server '{self.name}': {self.failure}")
        if answer.get("state") != self._state:
            # Checked here, before the SDK, whose error quotes both values: a state is
            # never shown, and a redirect that is not the answer to this sign-in says no more.
            self.failure = "state mismatch"
            raise ToolError(f"server '{self.name}': {self.failure}")
        self.say("callback received the code (state and issuer checked next)")
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))


class _Storage:
    """The store as the SDK sees it, redacting and reporting on the way in."""

    def __init__(self, owner: Authorizer) -> None:
        self.owner = owner

    async def get_tokens(self) -> OAuthToken | None:
        tokens = await self.owner.store.get_tokens()
        if tokens:
            self.owner.redact(tokens.access_token, "access_token", numbered=True)
            self.owner.redact(tokens.refresh_token, "refresh_token", numbered=True)
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.owner.redact(tokens.access_token, "access_token", numbered=True)
        self.owner.redact(tokens.refresh_token, "refresh_token", numbered=True)
        await self.owner.store.set_tokens(tokens, _discovered(self.owner.provider.context) if self.owner.provider else None)
        mode = self.owner.store.path.stat().st_mode & 0o777
        self.owner.say(f"token store: saved access token {tokens.access_token} (expires in {tokens.expires_in} s, scope {tokens.scope}), "
                       f"refresh token {tokens.refresh_token}; file mode {mode:04o}")

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return await self.owner.store.get_client_info()

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.owner._redact_client(client_info)
        await self.owner.store.set_client_info(client_info)
        self.owner.say(f"token store: saved client registration {client_info.client_id}")

    def restore_discovered(self, context: OAuthContext) -> None:
        """Put what an earlier run discovered back into a fresh provider, where it knows nothing yet."""
        found = self.owner.store.get_discovered()
        try:
            if context.protected_resource_metadata is None and found.get("protected_resource"):
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(found["protected_resource"])
            if context.oauth_metadata is None and found.get("authorization_server"):
                context.oauth_metadata = OAuthMetadata.model_validate(found["authorization_server"])
            if context.auth_server_url is None and isinstance(found.get("auth_server_url"), str):
                context.auth_server_url = found["auth_server_url"]
        except ValidationError:
            pass  # stale or damaged: the next 401 discovers it all again


def _discovered(context: OAuthContext) -> dict[str, Any]:
    """What discovery found, as the store keeps it (no secret in it: all of it is public metadata)."""
    found: dict[str, Any] = {}
    if context.protected_resource_metadata is not None:
        found["protected_resource"] = context.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
    if context.oauth_metadata is not None:
        found["authorization_server"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
    if context.auth_server_url:
        found["auth_server_url"] = context.auth_server_url
    return found


class _Traced(httpx2.Auth):
    """Wraps the provider: traces the exchanges of every flow that did more than send a request."""

    requires_request_body = True
    requires_response_body = True

    def __init__(self, inner: OAuthClientProvider, owner: Authorizer) -> None:
        self.inner, self.owner = inner, owner

    async def async_auth_flow(self, request: httpx2.Request) -> Any:
        flow = self.inner.async_auth_flow(request)
        traced = False  # once the flow did anything besides sending the request, show every step
        refreshed = False
        try:
            outgoing = await flow.__anext__()
            while True:
                self._redact_request(outgoing)
                response = yield outgoing
                if traced or outgoing is not request or _challenged(response):
                    traced = True
                    self.owner.transcript.post("http", text=_describe(outgoing, response))
                if outgoing is request and response.status_code == 401 and not refreshed and self._can_refresh():
                    # A token the server no longer takes (it restarted, or revoked it): try the
                    # refresh token once before asking anyone to sign in. The SDK refreshes only
                    # tokens its clock calls expired, so mark this one expired and start over.
                    refreshed = True
                    await flow.aclose()
                    self.inner.context.token_expiry_time = 0.0
                    if "authorization" in request.headers:
                        del request.headers["authorization"]  # never resend the refused token
                    flow = self.inner.async_auth_flow(request)
                    outgoing = await flow.__anext__()
                    continue
                if not self.owner.interactive and outgoing is request and _challenged(response):
                    self.owner.needs_authorization = True
                    return  # the 401 goes back to the transport; no browser without the user's say-so
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            pass
        finally:
            await flow.aclose()

    def _can_refresh(self) -> bool:
        context = self.inner.context
        return bool(context.current_tokens and context.current_tokens.refresh_token and context.client_info)

    def _redact_request(self, request: httpx2.Request) -> None:
        self.owner.redact(request.headers.get("authorization"), "authorization")
        if request.url.path.endswith("/token"):
            form = dict(parse_qsl(request.content.decode(errors="replace")))
            self.owner.redact(form.get("code"), "code")
            self.owner.redact(form.get("code_verifier"), "code_verifier")


def _challenged(response: httpx2.Response) -> bool:
    return response.status_code == 401 or (response.status_code == 403 and "insufficient_scope" in response.headers.get("www-authenticate", ""))


def _describe(request: httpx2.Request, response: httpx2.Response) -> str:
    """One exchange as the transcript shows it: never a body, a credential or a query string."""
    line = f"{request.method} {request.url.copy_with(query=None)}"
    if request.url.path.endswith("/token"):
        form = dict(parse_qsl(request.content.decode(errors="replace")))
        line += " " + " ".join(f"{k}={form[k]}" for k in ("grant_type", "resource", "scope") if k in form)
    line += f" -> {response.status_code}"
    if response.status_code in (401, 403) and "www-authenticate" in response.headers:
        line += f" {response.headers['www-authenticate']}"
    return line


# --- the sign-in's own timeout -------------------------------------------------------------


class _ConnectClock:
    """One handshake's connect timeout as a budget of seconds, spent only while nobody is signing in."""

    def __init__(self, seconds: float, scope: anyio.CancelScope) -> None:
        self.scope, self.left, self.pauses = scope, seconds, 0
        scope.deadline = anyio.current_time() + seconds

    def pause(self) -> None:
        if not self.pauses:
            self.left = self.scope.deadline - anyio.current_time()
            self.scope.deadline = math.inf
        self.pauses += 1

    def resume(self) -> None:
        self.pauses -= 1
        if not self.pauses:
            self.scope.deadline = anyio.current_time() + self.left


# The transports send each request in the context of the task that sent it, so the auth
# flow (in the transport's task) finds the clock of the handshake it serves here.
_connect_clock: ContextVar[_ConnectClock | None] = ContextVar("connect_clock", default=None)


async def handshake(session: Any, timeouts: Timeouts) -> None:
    """``connection.classic_handshake`` (``initialize`` under the connect timeout), with the
    connect clock stopped while a person signs in; ``Timeouts.auth`` bounds that part."""
    with anyio.CancelScope() as scope:
        token = _connect_clock.set(_ConnectClock(timeouts.connect, scope))
        try:
            await session.initialize()
        finally:
            _connect_clock.reset(token)
    if scope.cancelled_caught:
        raise TimeoutError  # the connection names it: "no answer to initialize within 30 s (connect timeout)"


@contextmanager
def _person_at_work() -> Iterator[None]:
    clock = _connect_clock.get()
    if clock is not None:
        clock.pause()
    try:
        yield
    finally:
        if clock is not None:
            clock.resume()


class _QuietOwnErrors(logging.Filter):
    """Drops the SDK's log records that would only repeat what the harness reports itself.

    The SDK logs "OAuth flow error" with a traceback (stderr, via logging's last resort)
    for any exception in the flow, including the ``ToolError`` s this module raises and
    hands to the model as data; and "Token refresh failed", which the trace shows.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, HarnessError) and not record.getMessage().startswith("Token refresh failed")


def _quiet_sdk() -> None:
    sdk = logging.getLogger("mcp.client.auth.oauth2")
    if not any(isinstance(f, _QuietOwnErrors) for f in sdk.filters):  # once per process
        sdk.addFilter(_QuietOwnErrors())


# --- needs-auth as a state --------------------------------------------------------------------


class NeedsAuth:
    """A server that wants authorization, as a client with one tool: ``authenticate``."""

    def __init__(self, authorizer: Authorizer, opener: Opener, hub: Hub) -> None:
        self.name = authorizer.name
        self.authorizer, self.opener, self.hub = authorizer, opener, hub
        self.tools = [{
            "name": AUTHENTICATE,
            "description": f"The MCP server '{self.name}' needs authorization. Call this to sign in; its real tools replace this one.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        }]

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        if tool != AUTHENTICATE:
            raise ToolError(f"server '{self.name}' needs authorization; call its authenticate tool first")
        self.authorizer.interactive, self.authorizer.failure = True, None
        try:
            client = await self.opener(auth=self.authorizer.auth, handshake=handshake)
        except ServerError as exc:
            raise ToolError(f"server '{self.name}': authorization failed: {self.authorizer.failure or exc}") from None
        entry = await self.hub.promote(self.name, client)  # the swap: every mcp__{name}__ tool is replaced next turn
        if entry.state is not State.CONNECTED:
            raise ToolError(f"server '{self.name}': authorized, but not connected: {entry.error}")
        names = [t["name"] for t in client.tools]
        return ToolResult.of(f"Authorized '{self.name}'. Its {len(names)} tools replace the authenticate tool: {', '.join(names)}")


def connector(authorizer: Authorizer, opener: Opener, hub: Hub) -> Connector:
    """A hub connector that uses what the store holds; a server answering 401 joins as ``needs-auth``."""

    async def connect() -> Client:
        try:
            client = await opener(auth=authorizer.auth, handshake=handshake)
        except ServerError as exc:
            if not authorizer.needs_authorization:
                raise
            raise AuthRequired(f"server '{authorizer.name}': needs authorization", NeedsAuth(authorizer, opener, hub)) from exc
        authorizer.interactive = True  # authorized before: a later step-up may use the browser
        return client

    return connect
