"""The docs server behind OAuth: Streamable HTTP that wants a bearer token (s26).

    python -m mock_servers.protected --port 0        prints READY http://127.0.0.1:<port>/mcp
    python -m mock_servers.protected --state DIR     the same, remembering its two ports and the
                                                     authorization server's clients and tokens in
                                                     DIR (0700), so a restart looks like no restart

One process, two listeners on 127.0.0.1, so the resource server and the authorization
server have different origins as they do in real deployments:

    MCP port  /mcp                                        the docs server (+ a write tool, publish)
              /.well-known/oauth-protected-resource/mcp   RFC 9728 metadata naming the AS
    AS port   (all of mock_servers.oauth_server)          issuer http://127.0.0.1:<as port>

What /mcp answers before the MCP server sees a request:

    no bearer token                         401  WWW-Authenticate: Bearer resource_metadata="<PRM url>", scope="docs:read"
    unknown, expired, or another audience   401  Bearer error="invalid_token", error_description=..., resource_metadata=...
    a tools/call of a tool whose scope      403  Bearer error="insufficient_scope", scope="docs:read docs:write", ...
    the token lacks (publish: docs:write)

A token is checked by asking the authorization server object in this process (instead of
RFC 7662 introspection over HTTP). The request's user is set from the token, so the SDK
binds each MCP session to the OAuth client that opened it: a refreshed or stepped-up token
of the same client keeps the session.

Both ports check ``Host`` and ``Origin`` on every route (DNS rebinding): /mcp through the
SDK's transport security, the metadata and the authorization server through the same
check (``oauth_server.HostCheck``).

With ``--state DIR`` the server stands in for one that stays up between a client's runs
(s26's ``--token-store``): it binds the ports it used last time (``DIR/ports.json``) and
the authorization server keeps its tables in ``DIR/oauth.json``. If a port was taken
meanwhile, it takes new ones and says so on stderr; a client then has a new URL to sign
in to.

``running()`` serves the same thing inside a test's event loop with an injected clock.

Not handled: token introspection over HTTP, several authorization servers, SSE.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mock_servers.catalog import ServerDef, ToolDef, docs
from mock_servers.oauth_server import (ACCESS_LIFETIME, LOOPBACK_HOSTS, LOOPBACK_ORIGINS, AuthorizationServer, Clock, HostCheck,
                                       OAuthError, bind)

MCP_PATH = "/mcp"
PRM_PATH = "/.well-known/oauth-protected-resource" + MCP_PATH  # RFC 9728 section 3.1: the path goes after the well-known part
READ, WRITE = "docs:read", "docs:write"
TOOL_SCOPES = {"publish": WRITE}  # every other tool needs READ only


def protected_docs() -> ServerDef:
    """The catalog's docs server plus one tool that writes, so there is something to step up for."""
    def publish(args: dict[str, Any]) -> str:
        title = args.get("title")
        if not isinstance(title, str) or not title:
            raise ValueError("'title' must be a non-empty string")
        return f"published '{title}' to the team documentation"

    schema = {"type": "object", "properties": {"title": {"type": "string"}, "text": {"type": "string"}}, "required": ["title"]}
    write = ToolDef("publish", "Publish a page to the team documentation (needs docs:write).", schema, publish, {"readOnlyHint": False, "destructiveHint": False})
    base = docs()
    return replace(base, tools=base.tools + (write,))


@dataclass(frozen=True)
class Guard:
    """ASGI middleware: the bearer-token checks above, in front of the MCP app."""

    app: Any
    server: AuthorizationServer
    resource: str  # this server's canonical URL, the audience its tokens must carry
    metadata_url: str

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        if token is None:
            await self._challenge(send, 401, scope=READ)
            return
        try:
            grant = self.server.verify(token, self.resource)
        except OAuthError as exc:
            await self._challenge(send, 401, error=exc.error, error_description=exc.description)
            return
        body, receive = await _buffered(receive) if scope["method"] == "POST" else (b"", receive)
        needed = {READ} | _tool_scopes(body)
        if not needed <= set(grant.scopes):
            await self._challenge(send, 403, error="insufficient_scope", scope=" ".join(sorted(needed)))
            return
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        user = AuthenticatedUser(AccessToken(token=token, client_id=grant.client_id, scopes=list(grant.scopes),
                                             expires_at=int(grant.expires_at), resource=grant.resource))
        await self.app({**scope, "user": user}, receive, send)

    async def _challenge(self, send: Any, status: int, **params: str) -> None:
        # RFC 6750 section 3 + RFC 9728 section 5.1: say what is wrong and where to learn how to fix it.
        fields = ", ".join(f'{k}="{v}"' for k, v in {**params, "resource_metadata": self.metadata_url}.items())
        body = json.dumps({"error": params.get("error", "invalid_token"), "error_description": params.get("error_description", "authorization required")}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"www-authenticate", f"Bearer {fields}".encode()), (b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


def _bearer(scope: dict) -> str | None:
    for key, value in scope["headers"]:
        if key == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


async def _buffered(receive: Any) -> tuple[bytes, Any]:
    """Read the whole request body, and a ``receive`` that hands it to the app again."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return b"", receive
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body, replayed = b"".join(chunks), False

    async def replay() -> dict:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect, as the app expects

    return body, replay


def _tool_scopes(body: bytes) -> set[str]:
    try:
        message = json.loads(body) if body else None
    except ValueError:
        return set()  # not ours to judge: the MCP app answers a parse error
    messages = message if isinstance(message, list) else [message]
    return {TOOL_SCOPES[m["params"]["name"]] for m in messages
            if isinstance(m, dict) and m.get("method") == "tools/call" and isinstance(m.get("params"), dict)
            and m["params"].get("name") in TOOL_SCOPES}


def build(mcp_port: int, as_port: int, clock: Clock = time.time, access_lifetime: int = ACCESS_LIFETIME,
          state: Path | None = None) -> tuple[Any, AuthorizationServer]:
    """The ASGI app serving both ports (it dispatches on the port a request came in on), and the AS.

    ``state``: the file the authorization server keeps its tables in (None: forget at exit).
    """
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.routing import Route

    from mock_servers.serve import Options, Counters, build_server

    base, issuer = f"http://127.0.0.1:{mcp_port}", f"http://127.0.0.1:{as_port}"
    resource = base + MCP_PATH
    server = AuthorizationServer(issuer, {resource: (READ, WRITE)}, (READ,), clock=clock, access_lifetime=access_lifetime, state=state)
    mcp = build_server(protected_docs(), Options("http"), Counters())
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=list(LOOPBACK_HOSTS),
                                         allowed_origins=list(LOOPBACK_ORIGINS))
    mcp_app = mcp.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security, session_idle_timeout=None)
    prm = {"resource": resource, "authorization_servers": [issuer], "scopes_supported": [READ, WRITE],
           "bearer_methods_supported": ["header"], "resource_name": "docs"}

    mcp_app.router.routes.insert(0, Route(PRM_PATH, HostCheck(metadata_app(prm))))
    guarded, as_app = Guard(mcp_app, server, resource, base + PRM_PATH), server.app()

    async def app(scope: dict, receive: Any, send: Any) -> None:
        # Lifespan goes to the MCP app (its session manager); the AS has no lifespan.
        if scope["type"] == "http" and scope["server"][1] == as_port:
            await as_app(scope, receive, send)
        else:
            await guarded(scope, receive, send)

    return app, server


def metadata_app(prm: dict[str, Any]) -> Any:
    """The protected-resource metadata (RFC 9728) as a small ASGI app."""
    from starlette.responses import JSONResponse

    async def app(scope: dict, receive: Any, send: Any) -> None:
        await JSONResponse(prm)(scope, receive, send)

    return app


def bind_kept(state: Path | None, ports: tuple[int, int]) -> tuple[socket.socket, socket.socket]:
    """The MCP and AS sockets: on ``ports``, or with ``state`` on the ports kept there (recorded for next time)."""
    record = state / "ports.json" if state is not None else None
    if record is not None and record.is_file() and ports == (0, 0):
        try:
            kept = json.loads(record.read_text(encoding="utf-8"))
            ports = (int(kept["mcp"]), int(kept["as"]))
        except (OSError, ValueError, KeyError, TypeError):
            print(f"protected: {record.name} is unreadable; taking new ports", file=sys.stderr)
    try:
        socks = bind(ports[0]), bind(ports[1])
    except OSError:  # taken since the last run: new ports, so a client signs in again (its URL changed)
        print(f"protected: ports {ports[0]} and {ports[1]} are not both free; taking new ones", file=sys.stderr)
        socks = bind(0), bind(0)
    if record is not None:
        missing = [level for level in (state, *state.parents) if not level.exists()]
        for level in reversed(missing):  # every folder it creates is private: the AS state holds secrets
            level.mkdir(mode=0o700)
            os.chmod(level, 0o700)
        record.write_text(json.dumps({"mcp": socks[0].getsockname()[1], "as": socks[1].getsockname()[1]}) + "\n", encoding="utf-8")
    return socks


def _config(app: Any) -> Any:
    import uvicorn
    from sse_starlette.sse import EventSourceResponse

    EventSourceResponse.DEFAULT_PING_INTERVAL = 0  # the keep-alive comment carries the wall-clock time
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", server_header=False,
                          date_header=False, timeout_graceful_shutdown=1)


@asynccontextmanager
async def running(clock: Clock = time.time, access_lifetime: int = ACCESS_LIFETIME, ready_timeout: float = 20.0) -> AsyncIterator[tuple[str, AuthorizationServer]]:
    """Serve in this event loop (tests): yields the MCP URL and the AS object."""
    import anyio
    import uvicorn

    mcp_sock, as_sock = bind(0), bind(0)
    app, server = build(mcp_sock.getsockname()[1], as_sock.getsockname()[1], clock, access_lifetime)
    uv = uvicorn.Server(_config(app))
    uv.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # the test runner owns the signals
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: uv.serve(sockets=[mcp_sock, as_sock]))
        with anyio.fail_after(ready_timeout):
            while not uv.started:
                await anyio.sleep(0.005)
        try:
            yield f"http://127.0.0.1:{mcp_sock.getsockname()[1]}{MCP_PATH}", server
        finally:
            uv.should_exit = True


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m mock_servers.protected", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="MCP port (0: the OS picks one)")
    parser.add_argument("--as-port", type=int, default=0, help="authorization server port (0: the OS picks one)")
    parser.add_argument("--token-lifetime", type=_positive, default=ACCESS_LIFETIME, metavar="SECONDS", help="access token lifetime in seconds")
    parser.add_argument("--state", type=Path, metavar="DIR", help="keep the ports and the authorization server's clients and tokens in DIR")
    args = parser.parse_args(argv)
    mcp_sock, as_sock = bind_kept(args.state, (args.port, args.as_port))
    state = args.state / "oauth.json" if args.state is not None else None
    app, _ = build(mcp_sock.getsockname()[1], as_sock.getsockname()[1], access_lifetime=args.token_lifetime, state=state)
    url = f"http://127.0.0.1:{mcp_sock.getsockname()[1]}{MCP_PATH}"

    class ReadyServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"READY {url}", flush=True)

    ReadyServer(_config(app)).run(sockets=[mcp_sock, as_sock])


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"'{value}': a whole number of seconds, 1 or more")
    return int(value)


if __name__ == "__main__":
    from harness.exits import exit_now
    from mock_servers.serve import server_side_sdk

    server_side_sdk()
    main()
    exit_now(0)
