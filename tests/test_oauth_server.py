"""The authorization server really refuses: each refusal with the error code its RFC names.

Everything runs in process over httpx2's ASGI transport (no sockets, no waiting); the
clock is a value the test moves.
"""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest

from mock_servers.oauth_server import AuthorizationServer, OAuthError, s256

ISSUER = "http://127.0.0.1:9000"
RESOURCE = "http://127.0.0.1:9001/mcp"
OTHER = "http://127.0.0.1:9002/mcp"
REDIRECT = "http://127.0.0.1:9003/callback"
VERIFIER = "v" * 50


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def run(test):
    """Run ``test(server, http, clock)`` against a fresh server."""
    clock = Clock()
    server = AuthorizationServer(ISSUER, {RESOURCE: ("docs:read", "docs:write"), OTHER: ("docs:read",)}, ("docs:read",), clock=clock,
                                 access_lifetime=60, refresh_lifetime=600, code_lifetime=30)

    async def main():
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=server.app()), base_url=ISSUER) as http:
            await test(server, http, clock)

    anyio.run(main)


async def register(http, method="none"):
    r = await http.post("/register", json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method, "client_name": "t"})
    assert r.status_code == 201, r.text
    return r.json()


async def authorize(http, client, **overrides):
    params = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT, "state": "st-1",
              "code_challenge": s256(VERIFIER), "code_challenge_method": "S256", "resource": RESOURCE, "scope": "docs:read"}
    params.update(overrides)
    r = await http.get("/authorize", params={k: v for k, v in params.items() if v is not None})
    return r


def location_params(r) -> dict[str, str]:
    assert r.status_code == 302, f"expected a redirect, got {r.status_code} {r.text}"
    location = r.headers["location"]
    assert location.startswith(REDIRECT + "?"), location
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def code_for(http, client, **overrides):
    answer = location_params(await authorize(http, client, **overrides))
    assert "code" in answer, answer
    return answer["code"]


async def exchange(http, client, code, **overrides):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": client["client_id"],
            "code_verifier": VERIFIER, "resource": RESOURCE}
    form.update(overrides)
    return await http.post("/token", data={k: v for k, v in form.items() if v is not None})


def refused(r, status, error):
    assert r.status_code == status and r.json()["error"] == error, f"expected {status} {error}, got {r.status_code} {r.text}"
    assert r.headers["cache-control"] == "no-store"


def test_metadata_names_every_endpoint_and_s256_only():
    async def test(server, http, clock):
        meta = (await http.get("/.well-known/oauth-authorization-server")).json()
        assert meta["issuer"] == ISSUER
        assert meta["token_endpoint"] == f"{ISSUER}/token" and meta["registration_endpoint"] == f"{ISSUER}/register"
        assert meta["code_challenge_methods_supported"] == ["S256"]
        assert meta["authorization_response_iss_parameter_supported"] is True

    run(test)


def test_happy_path_binds_the_resource_into_the_token():
    async def test(server, http, clock):
        client = await register(http)
        answer = location_params(await authorize(http, client))
        assert answer["state"] == "st-1" and answer["iss"] == ISSUER, answer
        r = await exchange(http, client, answer["code"])
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["token_type"] == "Bearer" and body["expires_in"] == 60 and body["scope"] == "docs:read"
        grant = server.verify(body["access_token"], RESOURCE)
        assert grant.resource == RESOURCE and grant.scopes == ("docs:read",)

    run(test)


def test_wrong_verifier_is_invalid_grant():
    async def test(server, http, clock):
        client = await register(http)
        refused(await exchange(http, client, await code_for(http, client), code_verifier="w" * 50), 400, "invalid_grant")

    run(test)


def test_reused_code_is_invalid_grant_and_revokes_its_tokens():
    async def test(server, http, clock):
        client = await register(http)
        code = await code_for(http, client)
        first = (await exchange(http, client, code)).json()
        refused(await exchange(http, client, code), 400, "invalid_grant")
        with pytest.raises(OAuthError) as info:
            server.verify(first["access_token"], RESOURCE)
        assert info.value.error == "invalid_token"

    run(test)


def test_expired_code_is_invalid_grant():
    async def test(server, http, clock):
        client = await register(http)
        code = await code_for(http, client)
        clock.now += 31
        refused(await exchange(http, client, code), 400, "invalid_grant")

    run(test)


def test_unregistered_redirect_uri_is_refused_without_redirecting():
    async def test(server, http, clock):
        client = await register(http)
        r = await authorize(http, client, redirect_uri="http://127.0.0.1:9003/callback/")  # one character off
        refused(r, 400, "invalid_request")
        assert "location" not in r.headers

    run(test)


def test_redirect_uri_at_token_must_match_the_authorize_one():
    async def test(server, http, clock):
        client = await register(http)
        r = await exchange(http, client, await code_for(http, client), redirect_uri="http://127.0.0.1:9004/callback")
        refused(r, 400, "invalid_grant")

    run(test)


@pytest.mark.parametrize("challenge", [{"code_challenge": None}, {"code_challenge_method": "plain"}, {"code_challenge_method": None}])
def test_pkce_s256_is_required(challenge):
    async def test(server, http, clock):
        client = await register(http)
        answer = location_params(await authorize(http, client, **challenge))
        assert answer["error"] == "invalid_request" and answer["state"] == "st-1" and "code" not in answer, answer

    run(test)


def test_unknown_resource_at_authorize_is_invalid_target():
    async def test(server, http, clock):
        client = await register(http)
        answer = location_params(await authorize(http, client, resource="http://127.0.0.1:9999/mcp"))
        assert answer["error"] == "invalid_target", answer

    run(test)


def test_token_for_another_resource_is_invalid_target():
    async def test(server, http, clock):
        client = await register(http)
        refused(await exchange(http, client, await code_for(http, client), resource=OTHER), 400, "invalid_target")

    run(test)


def test_unknown_scope_is_invalid_scope():
    async def test(server, http, clock):
        client = await register(http)
        assert location_params(await authorize(http, client, scope="docs:admin"))["error"] == "invalid_scope"

    run(test)


def test_access_token_is_refused_for_another_audience_and_after_expiry():
    async def test(server, http, clock):
        client = await register(http)
        token = (await exchange(http, client, await code_for(http, client))).json()["access_token"]
        with pytest.raises(OAuthError, match="another resource") as info:
            server.verify(token, OTHER)
        assert info.value.error == "invalid_token" and info.value.status == 401
        clock.now += 60
        with pytest.raises(OAuthError, match="expired") as info:
            server.verify(token, RESOURCE)
        assert info.value.error == "invalid_token"

    run(test)


def test_refresh_rotates_and_the_old_refresh_token_is_dead():
    async def test(server, http, clock):
        client = await register(http)
        first = (await exchange(http, client, await code_for(http, client))).json()
        clock.now += 61  # the access token has expired; the refresh token has not
        form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client["client_id"], "resource": RESOURCE}
        second = await http.post("/token", data=form)
        assert second.status_code == 200, second.text
        new = second.json()
        assert new["refresh_token"] != first["refresh_token"] and new["access_token"] != first["access_token"]
        assert server.verify(new["access_token"], RESOURCE).scopes == ("docs:read",)
        refused(await http.post("/token", data={**form, "refresh_token": new["refresh_token"], "resource": OTHER}), 400, "invalid_target")
        refused(await http.post("/token", data=form), 400, "invalid_grant")

    run(test)


def test_reusing_a_rotated_refresh_token_revokes_the_whole_family():
    """OAuth 2.1 section 4.3.1: the thief and the client both hold it; everything of that grant goes."""
    async def test(server, http, clock):
        client = await register(http)
        first = (await exchange(http, client, await code_for(http, client))).json()
        other = (await exchange(http, client, await code_for(http, client))).json()  # a second sign-in: another family
        form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client["client_id"], "resource": RESOURCE}
        new = (await http.post("/token", data=form)).json()
        server.verify(new["access_token"], RESOURCE)
        r = await http.post("/token", data=form)  # the rotated-away token, again
        refused(r, 400, "invalid_grant")
        assert "revoked" in r.json()["error_description"], r.json()
        for token in (new["access_token"], first["access_token"]):
            with pytest.raises(OAuthError, match="unknown access token"):
                server.verify(token, RESOURCE)
        refused(await http.post("/token", data={**form, "refresh_token": new["refresh_token"]}), 400, "invalid_grant")
        assert server.verify(other["access_token"], RESOURCE).client_id == client["client_id"], "another family is untouched"
        again = await http.post("/token", data={**form, "refresh_token": other["refresh_token"]})
        assert again.status_code == 200, again.text

    run(test)


@pytest.mark.parametrize("uri", [
    "http://evil.example/callback",  # plain http off loopback: the code would cross the network in clear
    "http://127.0.0.1.evil.example/callback",
    "myapp://callback",  # a private-use scheme: any app could claim it
    "javascript:alert(1)",
    "https://client.example/cb#frag",  # RFC 6749 section 3.1.2: no fragment
    "http://127.0.0.1:9003/callback#",
    "/relative/callback",
])
def test_registration_accepts_only_https_or_loopback_redirect_uris(uri):
    async def test(server, http, clock):
        r = await http.post("/register", json={"redirect_uris": [REDIRECT, uri], "token_endpoint_auth_method": "none"})
        refused(r, 400, "invalid_redirect_uri")
        assert server.clients == {}, "nothing registered"

    run(test)


@pytest.mark.parametrize("uri", ["http://127.0.0.1:9003/callback", "http://[::1]:8/cb", "http://localhost/cb", "https://client.example/cb?x=1"])
def test_registration_takes_https_and_loopback_redirect_uris(uri):
    async def test(server, http, clock):
        r = await http.post("/register", json={"redirect_uris": [uri], "token_endpoint_auth_method": "none"})
        assert r.status_code == 201 and r.json()["redirect_uris"] == [uri], r.text

    run(test)


@pytest.mark.parametrize(("method", "path"), [("GET", "/.well-known/oauth-authorization-server"), ("POST", "/token"),
                                              ("POST", "/register"), ("GET", "/authorize")])
def test_every_endpoint_checks_host_and_origin_as_the_mcp_endpoints_do(method, path):
    async def test(server, http, clock):
        rebound = await http.request(method, path, headers={"Host": "evil.example:9000"})  # DNS rebinding: our IP, their name
        assert rebound.status_code == 421 and rebound.text == "Invalid Host header", (rebound.status_code, rebound.text)
        cross = await http.request(method, path, headers={"Origin": "https://evil.example"})  # a page on another site
        assert cross.status_code == 403 and cross.text == "Invalid Origin header", (cross.status_code, cross.text)
        same = await http.request(method, path, headers={"Origin": "http://localhost:5173"})
        assert same.status_code not in (403, 421), "a loopback origin passes the check"
        assert server.clients == {}, "a refused request changes nothing"

    run(test)


def test_state_survives_a_restart_and_is_private(tmp_path):
    state = tmp_path / "server" / "oauth.json"

    async def first(server, http, clock):
        client = await register(http, "client_secret_post")
        tokens = (await exchange(http, client, await code_for(http, client), client_secret=client["client_secret"])).json()
        return client, tokens

    clock = Clock()

    async def restart_twice():
        results = []
        for _ in (1, 2):
            server = AuthorizationServer(ISSUER, {RESOURCE: ("docs:read",)}, ("docs:read",), clock=clock, state=state)
            async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=server.app()), base_url=ISSUER) as http:
                if not results:
                    results.append(await first(server, http, clock))
                else:
                    client, tokens = results[0]
                    assert server.verify(tokens["access_token"], RESOURCE).client_id == client["client_id"], "the access token survives"
                    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client["client_id"],
                            "client_secret": client["client_secret"], "resource": RESOURCE}
                    r = await http.post("/token", data=form)
                    assert r.status_code == 200, f"the registration and refresh token survive a restart: {r.text}"
        return results

    anyio.run(restart_twice)
    assert oct(state.stat().st_mode & 0o777) == "0o600" and oct(state.parent.stat().st_mode & 0o777) == "0o700"
    assert [p.name for p in state.parent.iterdir()] == ["oauth.json"], "no temp file left behind"
    clock.now += 10**8  # everything expired: a restart drops it
    server = AuthorizationServer(ISSUER, {RESOURCE: ("docs:read",)}, clock=clock, state=state)
    assert (server.access, server.refresh, server.spent) == ({}, {}, {}) and len(server.clients) == 1


def test_a_corrupt_state_file_stops_the_server_with_one_line_and_no_content(tmp_path):
    state = tmp_path / "oauth.json"
    state.write_text('{"access": {"at_leak')
    with pytest.raises(SystemExit) as info:
        AuthorizationServer(ISSUER, {RESOURCE: ("docs:read",)}, state=state)
    assert "oauth.json" in str(info.value) and "at_leak" not in str(info.value) and "\n" not in str(info.value), info.value


def test_expired_refresh_token_is_invalid_grant():
    async def test(server, http, clock):
        client = await register(http)
        first = (await exchange(http, client, await code_for(http, client))).json()
        clock.now += 601
        form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client["client_id"], "resource": RESOURCE}
        refused(await http.post("/token", data=form), 400, "invalid_grant")

    run(test)


def test_confidential_client_must_authenticate():
    async def test(server, http, clock):
        client = await register(http, "client_secret_basic")
        assert client["client_secret"].startswith("cs_")
        code = await code_for(http, client)
        refused(await exchange(http, client, code), 401, "invalid_client")  # no secret at all
        basic = base64.b64encode(f"{client['client_id']}:wrong".encode()).decode()
        r = await http.post("/token", data={"grant_type": "authorization_code", "code": code}, headers={"Authorization": f"Basic {basic}"})
        refused(r, 401, "invalid_client")
        basic = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
        code = await code_for(http, client)
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": VERIFIER, "resource": RESOURCE}
        r = await http.post("/token", data=form, headers={"Authorization": f"Basic {basic}"})
        assert r.status_code == 200, r.text

    run(test)


def test_registration_needs_redirect_uris():
    async def test(server, http, clock):
        refused(await http.post("/register", json={"client_name": "x"}), 400, "invalid_redirect_uri")
        refused(await http.post("/register", json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}), 400, "invalid_client_metadata")

    run(test)
