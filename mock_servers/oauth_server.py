"""A real OAuth 2.1 authorization server for the course, small enough to read in one sitting.

It speaks exactly the parts an MCP client needs, and refuses everything else with the
error code the RFC names:

    GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
    POST /register                                 RFC 7591 dynamic client registration
    GET  /authorize                                code flow; PKCE S256 required; no UI:
                                                   the "user" is logged in and consents at once
    POST /token                                    authorization_code and refresh_token grants

    refusal                                        where        error
    Host not loopback, or a foreign Origin         every route  421 / 403 (DNS rebinding), as /mcp
    redirect URI not https or loopback http,       /register    400 invalid_redirect_uri
    or with a fragment
    redirect_uri not registered for the client     /authorize   400 invalid_request (no redirect)
    no PKCE, or a method other than S256           /authorize   redirect error=invalid_request
    unknown resource (RFC 8707)                    /authorize   redirect error=invalid_target
    scope the resource does not have               /authorize   redirect error=invalid_scope
    wrong code_verifier                            /token       400 invalid_grant
    code used twice (its tokens are revoked too)   /token       400 invalid_grant
    redirect_uri differs from the authorize one    /token       400 invalid_grant
    resource differs from the one authorized       /token       400 invalid_target
    refresh token expired or unknown               /token       400 invalid_grant
    refresh token already rotated away (reuse:     /token       400 invalid_grant
    every token of its grant is revoked)
    wrong client secret                            /token       401 invalid_client
    expired access token, or one for another       verify()     invalid_token
    resource (audience)

Tokens, codes and client secrets are random opaque strings kept in this object's tables
(prefixes ``at_``, ``rt_``, ``code_``, ``cs_`` make them easy to spot in a leak scan).
Every token descends from one authorization code, its family: a replayed code or a
replayed (rotated) refresh token revokes the whole family, since one of the two parties
presenting it must be a thief (OAuth 2.1 section 4.3.1, RFC 9700 section 4.14.2).

With ``state=FILE`` the tables survive a restart: they are loaded at start (expired
entries dropped) and written after every change, atomically, mode 0600, since they hold
every live secret. Without it, the server forgets everything when it stops.
A resource server in the same process checks a bearer token with ``verify`` instead of a
network introspection call (``mock_servers.protected`` does). Every lifetime is a
parameter and the clock is injected, so tests expire tokens without waiting.

Run alone: ``python -m mock_servers.oauth_server --port 0 --resource URL`` prints
``READY <issuer>``. Introduced by s26.

Not handled: a login or consent page, OIDC, client_credentials, token revocation and
introspection endpoints, JWT access tokens, two processes sharing one state file.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import json
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus, urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

Clock = Callable[[], float]

ACCESS_LIFETIME = 3600  # seconds
REFRESH_LIFETIME = 30 * 24 * 3600
CODE_LIFETIME = 60  # RFC 6749 section 4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED"
# Who may talk to it, as the MCP endpoints of mock_servers.protected allow: a browser page on
# another site (DNS rebinding, or a cross-origin POST) is refused before any route runs.
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*")
LOOPBACK_REDIRECT_HOSTS = ("127.0.0.1", "::1", "localhost")  # RFC 8252 section 7.3: http is fine on loopback only


class OAuthError(Exception):
    """A refusal with its RFC error code; ``status`` is the HTTP status the endpoint answers."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description, self.status = error, description, status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


@dataclass(frozen=True)
class Client:
    client_id: str
    redirect_uris: tuple[str, ...]
    auth_method: str  # "none" (public client), "client_secret_basic" or "client_secret_post"
    secret: str | None = field(default=None, repr=False)
    name: str = ""


@dataclass(frozen=True)
class Grant:
    """What one code, access token or refresh token stands for."""

    client_id: str
    scopes: tuple[str, ...]
    resource: str  # the audience (RFC 8707): the one resource server that may accept it
    expires_at: float
    origin: str = ""  # the code it descends from (its family), so a replayed code or refresh token revokes them all
    redirect_uri: str = ""  # codes only
    challenge: str = field(default="", repr=False)  # codes only: the PKCE S256 challenge


def s256(verifier: str) -> str:
    """The PKCE S256 challenge of a verifier (RFC 7636 section 4.2)."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


class AuthorizationServer:
    """The server's tables and rules; ``app()`` puts them on HTTP."""

    def __init__(
        self,
        issuer: str,
        resources: Mapping[str, tuple[str, ...]],  # resource URL -> scopes it knows
        default_scopes: tuple[str, ...] = (),
        clock: Clock = time.time,
        access_lifetime: int = ACCESS_LIFETIME,
        refresh_lifetime: int = REFRESH_LIFETIME,
        code_lifetime: int = CODE_LIFETIME,
        state: Path | None = None,
        allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS,
        allowed_origins: tuple[str, ...] = LOOPBACK_ORIGINS,
    ) -> None:
        self.issuer = issuer.rstrip("/")
        self.resources = dict(resources)
        self.default_scopes = default_scopes
        self.clock = clock
        self.access_lifetime, self.refresh_lifetime, self.code_lifetime = access_lifetime, refresh_lifetime, code_lifetime
        self.allowed_hosts, self.allowed_origins = allowed_hosts, allowed_origins
        self.clients: dict[str, Client] = {}
        self.codes: dict[str, Grant] = {}
        self.used_codes: set[str] = set()
        self.access: dict[str, Grant] = {}
        self.refresh: dict[str, Grant] = {}
        self.spent: dict[str, Grant] = {}  # rotated refresh tokens, until they would have expired: a reuse is a theft
        self.state = state
        if state is not None:
            self._load(state)

    # --- RFC 8414 -------------------------------------------------------------------

    def metadata(self) -> dict[str, Any]:
        scopes = sorted({s for known in self.resources.values() for s in known})
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "registration_endpoint": f"{self.issuer}/register",
            "scopes_supported": scopes,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": True,
        }

    # --- RFC 7591 -------------------------------------------------------------------

    def register(self, request: Mapping[str, Any]) -> dict[str, Any]:
        uris = request.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            raise OAuthError("invalid_redirect_uri", "redirect_uris: a non-empty list of URLs is required")
        for uri in uris:
            _check_redirect_uri(uri)
        # RFC 7591 section 2: the default method is client_secret_basic.
        method = request.get("token_endpoint_auth_method") or "client_secret_basic"
        if method not in ("none", "client_secret_basic", "client_secret_post"):
            raise OAuthError("invalid_client_metadata", f"token_endpoint_auth_method '{method}' is not supported")
        client = Client(
            client_id="client_" + secrets.token_urlsafe(12),
            redirect_uris=tuple(uris),
            auth_method=method,
            secret=None if method == "none" else "cs_" + secrets.token_urlsafe(24),
            name=str(request.get("client_name") or ""),
        )
        self.clients[client.client_id] = client
        self._save()
        answer = {**request, "client_id": client.client_id, "client_id_issued_at": int(self.clock()),
                  "redirect_uris": list(client.redirect_uris), "token_endpoint_auth_method": method}
        if client.secret:
            answer |= {"client_secret": client.secret, "client_secret_expires_at": 0}
        return answer

    # --- the authorization endpoint ---------------------------------------------------

    def authorize(self, params: Mapping[str, str]) -> str:
        """The URL to redirect the user agent to: the client's redirect_uri with code or error.

        Raises ``OAuthError`` only when redirecting would be unsafe (unknown client or a
        redirect_uri that is not registered): RFC 6749 section 4.1.2.1 forbids a redirect then.
        """
        client = self.clients.get(params.get("client_id", ""))
        if client is None:
            raise OAuthError("invalid_request", "unknown client_id")
        redirect_uri = params.get("redirect_uri") or (client.redirect_uris[0] if len(client.redirect_uris) == 1 else "")
        if redirect_uri not in client.redirect_uris:  # exact string match (OAuth 2.1 section 4.1.1)
            raise OAuthError("invalid_request", "redirect_uri is not registered for this client")
        state = params.get("state")

        def back(**answer: str) -> str:
            extra = {"state": state} if state is not None else {}
            return f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{urlencode({**answer, **extra, 'iss': self.issuer})}"

        try:
            if params.get("response_type") != "code":
                raise OAuthError("unsupported_response_type", "only response_type=code is supported")
            if not params.get("code_challenge") or params.get("code_challenge_method") != "S256":
                raise OAuthError("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256")
            resource = self._resource(params.get("resource"))
            scopes = self._scopes(params.get("scope"), resource)
        except OAuthError as exc:
            return back(**exc.body())
        code = "code_" + secrets.token_urlsafe(24)
        self.codes[code] = Grant(client.client_id, scopes, resource, self.clock() + self.code_lifetime,
                                 redirect_uri=redirect_uri, challenge=params["code_challenge"])
        self._save()
        return back(code=code)

    # --- the token endpoint -----------------------------------------------------------

    def token(self, form: Mapping[str, str], basic: tuple[str, str] | None = None) -> dict[str, Any]:
        client = self._authenticate(form, basic)
        grant_type = form.get("grant_type")
        try:
            if grant_type == "authorization_code":
                return self._exchange_code(client, form)
            if grant_type == "refresh_token":
                return self._exchange_refresh(client, form)
        finally:  # a refusal changes the tables too: a code or refresh token is spent either way
            self._save()
        raise OAuthError("unsupported_grant_type", f"grant_type '{grant_type}' is not supported")

    def _authenticate(self, form: Mapping[str, str], basic: tuple[str, str] | None) -> Client:
        client_id, secret = basic or (form.get("client_id", ""), form.get("client_secret"))
        client = self.clients.get(client_id)
        if client is None:
            raise OAuthError("invalid_client", "unknown client", 401)
        if client.secret is not None and (secret is None or not secrets.compare_digest(secret, client.secret)):
            raise OAuthError("invalid_client", "client authentication failed", 401)
        return client

    def _exchange_code(self, client: Client, form: Mapping[str, str]) -> dict[str, Any]:
        code = form.get("code", "")
        if code in self.used_codes:
            # RFC 6749 section 4.1.2: a code used twice may be stolen; revoke what it bought.
            self._revoke_descendants(code)
            raise OAuthError("invalid_grant", "authorization code was already used")
        grant = self.codes.pop(code, None)
        if grant is None or grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "unknown authorization code")
        self.used_codes.add(code)
        if grant.expires_at <= self.clock():
            raise OAuthError("invalid_grant", "authorization code expired")
        if form.get("redirect_uri") != grant.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri does not match the authorization request")
        verifier = form.get("code_verifier", "")
        if not verifier or not secrets.compare_digest(s256(verifier), grant.challenge):
            raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge")
        if self._resource(form.get("resource") or grant.resource) != grant.resource:
            raise OAuthError("invalid_target", "resource differs from the one authorized")
        return self._issue(replace(grant, origin=code, redirect_uri="", challenge=""))

    def _exchange_refresh(self, client: Client, form: Mapping[str, str]) -> dict[str, Any]:
        # Rotation: the refresh token is spent by this request, whatever happens next.
        token = form.get("refresh_token", "")
        grant = self.refresh.pop(token, None)
        if grant is None and token in self.spent:
            # OAuth 2.1 section 4.3.1: a rotated token presented again means two parties hold
            # it, and the server cannot tell which is the thief: the whole family goes.
            self._revoke_descendants(self.spent[token].origin)
            raise OAuthError("invalid_grant", "refresh token was already used; every token of its grant is revoked")
        if grant is None or grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "unknown refresh token")
        now = self.clock()  # a spent token past its own expiry could not be used anyway: forget it
        self.spent = {t: g for t, g in self.spent.items() if g.expires_at > now}
        self.spent[token] = grant
        if grant.expires_at <= self.clock():
            raise OAuthError("invalid_grant", "refresh token expired")
        if self._resource(form.get("resource") or grant.resource) != grant.resource:
            raise OAuthError("invalid_target", "resource differs from the one authorized")
        scopes = self._scopes(form["scope"], grant.resource) if form.get("scope") else grant.scopes
        if not set(scopes) <= set(grant.scopes):  # RFC 6749 section 6: a refresh may only narrow
            raise OAuthError("invalid_scope", "a refresh cannot add scopes")
        return self._issue(replace(grant, scopes=scopes))

    def _issue(self, grant: Grant) -> dict[str, Any]:
        now = self.clock()
        access, refresh = "at_" + secrets.token_urlsafe(24), "rt_" + secrets.token_urlsafe(24)
        self.access[access] = replace(grant, expires_at=now + self.access_lifetime)
        self.refresh[refresh] = replace(grant, expires_at=now + self.refresh_lifetime)
        return {"access_token": access, "token_type": "Bearer", "expires_in": self.access_lifetime,
                "refresh_token": refresh, "scope": " ".join(grant.scopes)}

    def _revoke_descendants(self, code: str) -> None:
        for table in (self.access, self.refresh):
            for token in [t for t, g in table.items() if g.origin == code]:
                del table[token]

    # --- state across restarts --------------------------------------------------------

    _TABLES = ("codes", "access", "refresh", "spent")

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:  # never quote the content: it holds tokens
            raise SystemExit(f"oauth_server: state file {path.name}: unreadable ({type(exc).__name__}); delete it to start afresh")
        now = self.clock()
        self.clients = {c["client_id"]: Client(**{**c, "redirect_uris": tuple(c["redirect_uris"])}) for c in data.get("clients", [])}
        for name in self._TABLES:
            grants = {k: Grant(**{**g, "scopes": tuple(g["scopes"])}) for k, g in data.get(name, {}).items()}
            setattr(self, name, {k: g for k, g in grants.items() if g.expires_at > now})
        self.used_codes = set(data.get("used_codes", []))

    def _save(self) -> None:
        if self.state is None:
            return
        data = {"clients": [asdict(c) for c in self.clients.values()], "used_codes": sorted(self.used_codes),
                **{name: {k: asdict(g) for k, g in getattr(self, name).items()} for name in self._TABLES}}
        self.state.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # A temp file made 0600 by mkstemp, then os.replace: never half-written, never readable by others.
        fd, tmp = tempfile.mkstemp(dir=self.state.parent, prefix=f".{self.state.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True, indent=1)
            os.replace(tmp, self.state)
        except BaseException:
            os.unlink(tmp)
            raise

    def _resource(self, resource: str | None) -> str:
        if not resource:
            raise OAuthError("invalid_target", "the resource parameter is required (RFC 8707)")
        if resource not in self.resources:
            raise OAuthError("invalid_target", f"unknown resource {resource}")
        return resource

    def _scopes(self, scope: str | None, resource: str) -> tuple[str, ...]:
        wanted = tuple(sorted(set(scope.split()))) if scope else self.default_scopes
        unknown = [s for s in wanted if s not in self.resources[resource]]
        if unknown:
            raise OAuthError("invalid_scope", f"unknown scope {' '.join(unknown)}")
        return wanted

    # --- for the resource server ------------------------------------------------------

    def verify(self, token: str, resource: str) -> Grant:
        """The grant behind a bearer token, if it is live and meant for ``resource``."""
        grant = self.access.get(token)
        if grant is None:
            raise OAuthError("invalid_token", "unknown access token", 401)
        if grant.expires_at <= self.clock():
            raise OAuthError("invalid_token", "access token expired", 401)
        if grant.resource != resource:
            raise OAuthError("invalid_token", "access token is for another resource", 401)
        return grant

    # --- HTTP -------------------------------------------------------------------------

    def app(self) -> Any:
        """The routes, behind the Host and Origin check."""
        return HostCheck(Starlette(routes=self.routes()), self.allowed_hosts, self.allowed_origins)

    def routes(self) -> list[Route]:
        async def metadata(request: Request) -> Response:
            return JSONResponse(self.metadata())

        async def register(request: Request) -> Response:
            try:
                body = await request.json()
                if not isinstance(body, dict):
                    raise ValueError
            except ValueError:
                return _error(OAuthError("invalid_client_metadata", "body must be a JSON object"))
            try:
                return JSONResponse(self.register(body), status_code=201, headers=_NO_STORE)
            except OAuthError as exc:
                return _error(exc)

        async def authorize(request: Request) -> Response:
            try:
                return RedirectResponse(self.authorize(request.query_params), status_code=302)
            except OAuthError as exc:
                return _error(exc)

        async def token(request: Request) -> Response:
            form = {k: str(v) for k, v in (await request.form()).items()}
            try:
                return JSONResponse(self.token(form, _basic(request.headers.get("authorization"))), headers=_NO_STORE)
            except OAuthError as exc:
                return _error(exc)

        return [
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/register", register, methods=["POST"]),
            Route("/authorize", authorize, methods=["GET"]),
            Route("/token", token, methods=["POST"]),
        ]


_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


@dataclass(frozen=True)
class HostCheck:
    """ASGI middleware: the SDK's DNS-rebinding check (``Host``, then ``Origin``), as the MCP endpoints run it.

    A wrong Host is 421, a foreign Origin 403, both before any route sees the request.
    A request without Origin (every native client, and a browser's top-level navigation
    to /authorize) passes the Origin check.
    """

    app: Any
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    allowed_origins: tuple[str, ...] = LOOPBACK_ORIGINS

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = await refuse_foreign(scope, self.allowed_hosts, self.allowed_origins)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def refuse_foreign(scope: dict, allowed_hosts: tuple[str, ...], allowed_origins: tuple[str, ...]) -> Response | None:
    """The refusal for a request whose Host or Origin is not allowed, or None (shared with protected.py)."""
    return await _checker(allowed_hosts, allowed_origins).validate_request(Request(scope), is_post=False)


@functools.lru_cache(maxsize=8)
def _checker(allowed_hosts: tuple[str, ...], allowed_origins: tuple[str, ...]) -> Any:
    from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings

    settings = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(allowed_hosts),
                                         allowed_origins=list(allowed_origins))
    return TransportSecurityMiddleware(settings)


def _check_redirect_uri(uri: str) -> None:
    """RFC 8252 section 7.3 and 8.3: https anywhere, plain http only to a loopback address; no fragment (RFC 6749 3.1.2)."""
    shown = uri if len(uri) <= 100 else uri[:100] + "..."
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:
        raise OAuthError("invalid_redirect_uri", f"redirect_uris: '{shown}' is not a URL") from None
    if parts.fragment or "#" in uri:
        raise OAuthError("invalid_redirect_uri", f"redirect_uris: '{shown}' has a fragment")
    if parts.scheme == "https" and host:
        return
    if parts.scheme == "http" and host in LOOPBACK_REDIRECT_HOSTS:
        return
    raise OAuthError("invalid_redirect_uri", f"redirect_uris: '{shown}' must be https, or http to a loopback address (127.0.0.1, [::1], localhost)")


def _error(exc: OAuthError) -> Response:
    headers = dict(_NO_STORE)
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="token"'
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def _basic(header: str | None) -> tuple[str, str] | None:
    """``Authorization: Basic`` credentials (RFC 6749 section 2.3.1: both parts form-encoded)."""
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
    except ValueError:
        return None
    return unquote_plus(client_id), unquote_plus(secret)


def bind(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: the OS picks), so the real port is known before serving."""
    from mock_servers.serve import bind_loopback

    return bind_loopback(port)


def serve(app: Any, *socks: socket.socket) -> None:
    """Serve ``app`` on already bound sockets until interrupted or terminated."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=list(socks))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A local OAuth 2.1 authorization server (127.0.0.1 only).")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--resource", action="append", default=[], help="a resource URL it issues tokens for")
    parser.add_argument("--scope", action="append", default=["docs:read", "docs:write"], help="scopes every resource knows")
    parser.add_argument("--state", type=Path, metavar="FILE", help="keep clients and tokens in FILE across restarts (0600)")
    args = parser.parse_args(argv)
    sock = bind(args.port)
    issuer = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = AuthorizationServer(issuer, {r: tuple(args.scope) for r in args.resource}, state=args.state)
    print(f"READY {issuer}", flush=True)
    serve(server.app(), sock)


if __name__ == "__main__":
    from harness.exits import exit_now
    from mock_servers.serve import server_side_sdk

    server_side_sdk()
    main()
    exit_now(0)
