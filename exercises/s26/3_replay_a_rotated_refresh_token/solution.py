"""The third run sends the refresh token the second run already spent (rotation gave it a
new one). The authorization server recognises a rotated-away token: the `/token` request
gets `400 invalid_grant`, and the server revokes *every* token of that grant, including
the ones the second run received. It must, because it cannot tell who is presenting the
old token: the client, or a thief who copied it. If only the old token were refused, a
thief who refreshed first would keep a working family of tokens. OAuth 2.1 section 4.3.1
says so: when a refresh token is reused, the server should revoke the active refresh
token (and with it the access tokens of that grant).
`tests/test_oauth_server.py::test_reusing_a_rotated_refresh_token_revokes_the_whole_family`
shows it; here the same steps run against the course's authorization server, in process.
"""

from expect import contains, equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`mock_servers.oauth_server.AuthorizationServer(...).app()` runs in process with '
    '`httpx2.AsyncClient(transport=httpx2.ASGITransport(app=...))`; `server.verify(token, resource)` '
    'raises `OAuthError` for a revoked token.'
)


def solve(env):
    import anyio
    import httpx2

    from mock_servers.oauth_server import AuthorizationServer, OAuthError, s256
    from urllib.parse import parse_qs, urlsplit

    issuer, resource, redirect, verifier = "http://127.0.0.1:9000", "http://127.0.0.1:9001/mcp", "http://127.0.0.1:9003/callback", "v" * 50
    server = AuthorizationServer(issuer, {resource: ("docs:read",)}, ("docs:read",))

    async def main():
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=server.app()), base_url=issuer) as http:
            client = (await http.post("/register", json={"redirect_uris": [redirect], "token_endpoint_auth_method": "none"})).json()
            r = await http.get("/authorize", params={"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect,
                                                     "state": "s", "code_challenge": s256(verifier), "code_challenge_method": "S256",
                                                     "resource": resource, "scope": "docs:read"})
            code = parse_qs(urlsplit(r.headers["location"]).query)["code"][0]
            first = (await http.post("/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                                     "client_id": client["client_id"], "code_verifier": verifier, "resource": resource})).json()
            refresh = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client["client_id"], "resource": resource}
            second = (await http.post("/token", data=refresh)).json()          # run 2: an hour later, rotation
            third = await http.post("/token", data=refresh)                    # run 3: the copy put back
            try:
                server.verify(second["access_token"], resource)
                second_alive = True
            except OAuthError:
                second_alive = False
            return third.status_code, third.json(), second_alive

    return anyio.run(main)


def check(result):
    status, body, second_alive = result
    equal((status, body.get("error")), (400, "invalid_grant"), "the replayed refresh to get (status, error)")
    contains(body.get("error_description", ""), "revoked", "the error description")
    equal(second_alive, False, "the second run's tokens to be still valid:")


def wrong(result):
    return 200, {"access_token": "..."}, True  # the replay accepted
