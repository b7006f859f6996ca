"""The SDK adapter (s26): one server's sign-in, with the SDK's ``OAuthClientProvider`` doing the protocol.

On a 401 the SDK reads the protected-resource metadata (RFC 9728), the authorization-
server metadata (RFC 8414), registers a client (RFC 7591), sends the user to authorize
with PKCE S256 and ``resource`` (RFC 8707), exchanges the code, retries; on a 403
``insufficient_scope`` it asks again for the union of scopes (step-up). This module adds:

- ``Provider``: the SDK's provider on an injected clock, refreshing *before* expiry (a
  token counts as expired when ``refresh_margin(lifetime)`` = ``min(REFRESH_MARGIN,
  lifetime / 2)`` seconds remain), with the expiry and what discovery found surviving a
  restart (the SDK forgets both);
- refresh *on a 401*: a stored token the server no longer takes (it restarted, or revoked
  it) is refreshed once before anyone is asked to sign in again, as the TypeScript SDK
  does. The Python SDK would go straight to the browser;
- ``Authorizer``: all of that for one server, with the store (``harness.auth.store``), the
  loopback callback (``harness.auth.redirect``), a trace of every HTTP exchange the auth
  flow takes part in (method, URL, status, challenge; never a body or credential), and
  every secret registered with the transcript's redactor the moment it exists. While it
  is not ``interactive`` a 401 is traced and handed back: ``harness.auth.needs_auth``
  decides what happens then. The browser step runs off the connect clock
  (``harness.auth.clock``), bounded by ``Timeouts.auth``;
- ``secure``: the authorization server's endpoints (authorization, token, registration)
  must be https unless they are on this machine, as OAuth 2.1 requires. Another one is
  refused before anything goes there (no browser opened, no code or secret sent), with an
  error naming the metadata field.

Introduced by s26. Not handled here: revocation (RFC 7009), client credentials
(``harness.conformance`` shows those), the hub (``harness.auth.needs_auth``).
"""

from __future__ import annotations

import ipaddress
import logging
import time
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
from harness.auth.clock import Clock, person_at_work
from harness.auth.redirect import Browser, Callback, auto_browser
from harness.auth.store import TokenStore, default_store
from harness.errors import ToolError
from harness.jsonvalue import JSONObject
from harness.spec import Timeouts
from harness.transcript import Transcript

REFRESH_MARGIN = 300.0  # seconds before expiry to refresh (Claude Code refreshes at <= 300 s left)
# The longest access or refresh token taken. A token travels in a request header, and
# common servers refuse a header line past 8 to 16 KiB (nginx, Node, h11): four times
# that is no real token, and a bigger one would only be redacted from every line and
# written to the store for nothing.
MAX_TOKEN_CHARS = 64 * 1024
DEFAULT_TIMEOUTS = Timeouts(settings={"auth": "Authorizer(timeouts=Timeouts(auth=SECONDS))"})


def refresh_margin(lifetime: float) -> float:
    """Seconds before expiry at which a token of this lifetime is refreshed."""
    return min(REFRESH_MARGIN, lifetime / 2)


class _Context(OAuthContext):
    clock: Clock = time.time

    def update_token_expiry(self, token: OAuthToken) -> None:
        if token.expires_in is None:
            self.token_expiry_time = None
        else:  # expire early, so the refresh happens before the server would refuse the token
            self.token_expiry_time = self.clock() + token.expires_in - refresh_margin(token.expires_in)

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

    def secure(self, url: str, field: str) -> None:
        """Refuse an endpoint in plain http off this machine (``ToolError`` naming the field), before it is used."""
        parts = urlsplit(url)
        if parts.scheme == "https" or parts.scheme == "http" and _loopback(parts.hostname or ""):
            return
        where = echo.line(f"{parts.scheme}://{parts.netloc}{parts.path}", 120)  # no query: it would carry state and PKCE
        self.failure = f"the authorization server's metadata names {field} {where}: not https and not on this machine (OAuth 2.1 requires https); refused"
        raise ToolError(f"server '{self.name}': {self.failure}")

    def say(self, text: str) -> None:
        self.transcript.post("auth", text=f"{self.name}: {text}")

    async def _redirect(self, url: str) -> None:
        """The person's part: the browser, then the redirect back. Bounded by the auth timeout, off the connect clock."""
        self.secure(url, "authorization_endpoint")
        params = dict(parse_qsl(urlsplit(url).query))
        self._state = params.get("state")
        self.redact(params.get("state"), "state")
        self.redact(params.get("code_challenge"), "code_challenge")
        self.say(f"authorize in the browser: {unquote(url)}")  # decoded, so a deterministic run's normalizer sees the ports
        self.callback.forget_pending()
        with person_at_work(), anyio.move_on_after(self.timeouts.auth) as waited:
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
            self._bounded(tokens, f"the token store {self.owner.store.path}")
            self.owner.redact(tokens.access_token, "access_token", numbered=True)
            self.owner.redact(tokens.refresh_token, "refresh_token", numbered=True)
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._bounded(tokens, "the authorization server")
        self.owner.redact(tokens.access_token, "access_token", numbered=True)
        self.owner.redact(tokens.refresh_token, "refresh_token", numbered=True)
        await self.owner.store.set_tokens(tokens, _discovered(self.owner.provider.context) if self.owner.provider else None)
        mode = self.owner.store.path.stat().st_mode & 0o777
        self.owner.say(f"token store: saved access token {tokens.access_token} (expires in {tokens.expires_in} s, scope {tokens.scope}), "
                       f"refresh token {tokens.refresh_token}; file mode {mode:04o}")

    def _bounded(self, tokens: OAuthToken, source: str) -> None:
        """Refuse a token past ``MAX_TOKEN_CHARS`` by name, before it is redacted, kept or sent."""
        for field in ("access_token", "refresh_token"):
            size = len(getattr(tokens, field) or "")
            if size > MAX_TOKEN_CHARS:
                if self.owner.provider is not None:
                    self.owner.provider.context.clear_tokens()  # the SDK holds it already: never send it
                self.owner.failure = (f"{field} from {source}: {size} characters, over the {MAX_TOKEN_CHARS} taken "
                                      f"(MAX_TOKEN_CHARS in harness/auth/provider.py); refused")
                raise ToolError(f"server '{self.owner.name}': {self.owner.failure}")

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


def _discovered(context: OAuthContext) -> JSONObject:
    """What discovery found, as the store keeps it (no secret in it: all of it is public metadata)."""
    found: JSONObject = {}
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
                if outgoing is not request and (field := self._field(outgoing)):  # to an endpoint the metadata named
                    self.owner.secure(str(outgoing.url), field)
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

    def _field(self, request: httpx2.Request) -> str | None:
        """Which metadata field named the URL of a request the flow makes; None for discovery (the server's own URLs)."""
        metadata = self.inner.context.oauth_metadata
        url = str(request.url.copy_with(query=None))
        for field in ("token_endpoint", "registration_endpoint"):
            if metadata is not None and str(getattr(metadata, field, "") or "") == url:
                return field
        return None

    def _can_refresh(self) -> bool:
        context = self.inner.context
        return bool(context.current_tokens and context.current_tokens.refresh_token and context.client_info)

    def _redact_request(self, request: httpx2.Request) -> None:
        self.owner.redact(request.headers.get("authorization"), "authorization")
        if request.url.path.endswith("/token"):
            form = dict(parse_qsl(request.content.decode(errors="replace")))
            self.owner.redact(form.get("code"), "code")
            self.owner.redact(form.get("code_verifier"), "code_verifier")


def _loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1: a plain http endpoint there never leaves the machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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


class _QuietOwnErrors(logging.Filter):
    """Drops the SDK's log records that would only repeat what the harness reports itself.

    The SDK logs "OAuth flow error" with a traceback (stderr, via logging's last resort)
    for any exception in the flow, then raises it: the ``ToolError`` s this module raises,
    and its own refusals (an issuer or resource that does not match, RFC 8414 and 9728).
    The raised error is what the harness shows, in one line; and "Token refresh failed",
    which the trace shows.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message == "OAuth flow error" or message.startswith("Token refresh failed"))


def _quiet_sdk() -> None:
    sdk = logging.getLogger("mcp.client.auth.oauth2")
    if not any(isinstance(f, _QuietOwnErrors) for f in sdk.filters):  # once per process
        sdk.addFilter(_QuietOwnErrors())
