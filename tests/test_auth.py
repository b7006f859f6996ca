"""harness.auth end to end: the token store, refresh, step-up, needs-auth, and no secret in any output.

The protected docs server and its authorization server run inside the test's event loop
(``mock_servers.protected.running``) on one injected clock, so expiry is a number the test
moves, never a wait. The client side is the real harness: ``harness.connection`` with the
SDK's OAuth provider under ``harness.auth``, and a ``Hub`` holding the server. After every test no process it started is left
(tests/leaks.py).

s26 runs in process (``main(argv, out)``, ``s26_here`` with a TMPDIR, HOME or XDG_STATE_HOME
of its own) where it can; as a child process where a test needs a signal and its exit code
(Ctrl-C during the OAuth setup) or a real run's own streams (real ports, no secret on them).
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from conftest import ROOT, call_main, load_lesson, run_lesson
from secret_check import assert_no_secret
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN, STEP, TIMEOUTS, scaled
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from harness import auth
from harness.auth import Authorizer, NeedsAuth, TokenStore
from harness.connection import Connections
from harness.errors import ConfigError, ServerError, ToolError
from harness.hub import Hub
from harness.spec import ServerSpec, State, Timeouts
from harness.transcript import Transcript
from mock_servers.protected import running

pytestmark = pytest.mark.usefixtures("no_process_left")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


class Scene:
    """One server, one store folder, one transcript; ``session()`` is one harness run."""

    def __init__(self, url: str, server, clock: Clock, store: Path) -> None:
        self.url, self.server, self.clock, self.store = url, server, clock, store
        self.out = io.StringIO()
        self.transcript = Transcript(self.out)
        self.issued: list[dict] = []  # every token response and token request the AS saw: the secrets to hunt for
        original = server.token

        def token(form, basic=None):
            self.issued.append(dict(form))
            answer = original(form, basic)
            self.issued.append(answer)
            return answer

        server.token = token

    def secrets(self) -> set[str]:
        values = {v for entry in self.issued for k, v in entry.items()
                  if k in ("access_token", "refresh_token", "code", "code_verifier", "client_secret")}
        values |= {c.secret for c in self.server.clients.values() if c.secret}
        values |= set(self.server.used_codes) | set(self.server.codes)
        return {v for v in values if v}

    def authorizer(self, **kwargs) -> Authorizer:
        return Authorizer("docs", self.url, self.store, self.transcript, clock=self.clock, **kwargs)

    @asynccontextmanager
    async def signed_in(self):
        """A harness run whose authorizer may open the browser at once; yields (state, authorizer, hub)."""
        async with Connections(self.transcript, timeouts=TIMEOUTS) as conns, self.authorizer() as authz:
            hub = Hub(self.transcript)
            authz.interactive = True
            yield await connect_docs(self, conns, authz, hub), authz, hub


def scene(test, tmp_path: Path, access_lifetime: int = 3600):
    clock = Clock()

    async def main():
        async with running(clock=clock, access_lifetime=access_lifetime) as (url, server):
            await test(Scene(url, server, clock, tmp_path / "auth"))

    anyio.run(main)


async def connect_docs(s: Scene, conns: Connections, authz: Authorizer, hub: Hub) -> str:
    """Ask the hub for docs through the auth connector; its state, or the ServerError if it failed."""
    spec = ServerSpec("docs", "http", url=authz.url)
    if "docs" not in hub.entries:
        hub.add("docs", auth.connector(authz, lambda **how: conns.open(spec, **how), hub), spec)
    entry = await hub.connect("docs")
    if entry.state is State.FAILED:
        raise entry.error
    return entry.state.value


# --- the store -----------------------------------------------------------------------------


def test_store_is_0600_atomic_and_survives_a_restart(tmp_path):
    clock = Clock()

    async def main():
        store = TokenStore(tmp_path / "auth", "docs", "http://127.0.0.1:1/mcp", clock)
        assert await store.get_tokens() is None and await store.get_client_info() is None
        await store.set_client_info(OAuthClientInformationFull(client_id="c1", client_secret="cs_x", redirect_uris=["http://127.0.0.1:2/callback"]))
        await store.set_tokens(OAuthToken(access_token="at_1", refresh_token="rt_1", expires_in=3600, scope="docs:read"))
        clock.now += 1000
        await store.set_tokens(OAuthToken(access_token="at_2", refresh_token="rt_2", expires_in=3600, scope="docs:read"))
        clock.now += 600
        again = TokenStore(tmp_path / "auth", "docs", "http://127.0.0.1:1/mcp", clock)  # a restart
        tokens = await again.get_tokens()
        assert (tokens.access_token, tokens.refresh_token, tokens.expires_in) == ("at_2", "rt_2", 3000), tokens
        assert (await again.get_client_info()).client_secret == "cs_x"
        other = TokenStore(tmp_path / "auth", "docs", "http://127.0.0.1:9/mcp", clock)
        assert await other.get_tokens() is None, "tokens are keyed by name and URL"
        return store.path

    path = anyio.run(main)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name], "a temp file was left behind"
    assert "at_1" not in path.read_text(), "the refreshed token must replace the old one"


# --- the server side of the protocol ---------------------------------------------------------


def test_protected_server_challenges_with_resource_metadata(tmp_path):
    async def test(s: Scene):
        async with httpx2.AsyncClient() as http:
            r = await http.post(s.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert r.status_code == 401
            challenge = r.headers["www-authenticate"]
            assert challenge.startswith("Bearer ") and 'resource_metadata="' in challenge, challenge
            prm = (await http.get(challenge.split('resource_metadata="')[1].rstrip('"'))).json()
            assert prm["resource"] == s.url and prm["authorization_servers"] == [s.server.issuer]
            r = await http.post(s.url, json={}, headers={"Authorization": "Bearer at_nope"})
            assert r.status_code == 401 and 'error="invalid_token"' in r.headers["www-authenticate"]

    scene(test, tmp_path)


def test_expired_token_gets_401_invalid_token(tmp_path):
    async def test(s: Scene):
        async with s.signed_in() as (state, authz, hub):
            assert state == "connected"
            token = (await authz.store.get_tokens()).access_token
        s.clock.now += 3600
        async with httpx2.AsyncClient() as http:
            r = await http.post(s.url, json={}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and 'error_description="access token expired"' in r.headers["www-authenticate"], r.headers

    scene(test, tmp_path)


# --- needs-auth, the swap, refresh, step-up, restart ------------------------------------------


def test_needs_auth_offers_only_authenticate_then_swaps_in_the_real_tools(tmp_path):
    async def test(s: Scene):
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
            hub = Hub(s.transcript)
            assert await connect_docs(s, conns, authz, hub) == "needs-auth"
            placeholder = hub.clients["docs"]
            assert isinstance(placeholder, NeedsAuth) and [t["name"] for t in placeholder.tools] == ["authenticate"]
            assert "/authorize" not in s.out.getvalue(), "no browser before the model asks"
            assert s.server.clients == {}, "no registration before the model asks"
            with pytest.raises(ToolError, match="needs authorization"):
                await placeholder.call_tool("search", {"query": "x"})
            answer = (await placeholder.call_tool("authenticate", {})).text()
            assert answer == "Authorized 'docs'. Its 3 tools replace the authenticate tool: search, get_version, publish"
            assert [t["name"] for t in hub.clients["docs"].tools] == ["search", "get_version", "publish"]
            assert "hooks" in (await hub.clients["docs"].call_tool("search", {"query": "hooks"})).text()

    scene(test, tmp_path)


def test_refresh_happens_before_expiry_and_rotates(tmp_path):
    async def test(s: Scene):
        async with s.signed_in() as (_, authz, hub):
            first = await authz.store.get_tokens()
            s.clock.now += 3600 - 299  # 299 s left: inside the 300 s margin, the server would still accept it
            assert "docs 1.4.2" in (await hub.clients["docs"].call_tool("get_version", {})).text()
            second = await authz.store.get_tokens()
            assert second.access_token != first.access_token and second.refresh_token != first.refresh_token
            assert "grant_type=refresh_token" in s.out.getvalue()
            assert first.refresh_token not in s.server.refresh, "the old refresh token must be spent"
            assert s.out.getvalue().count("/authorize?") == 1, "a refresh is not a new authorization"

    scene(test, tmp_path)


def test_403_insufficient_scope_steps_up_and_retries(tmp_path):
    async def test(s: Scene):
        async with s.signed_in() as (_, authz, hub):
            assert (await authz.store.get_tokens()).scope == "docs:read"
            assert (await hub.clients["docs"].call_tool("publish", {"title": "Hooks"})).text() == "published 'Hooks' to the team documentation"
            assert (await authz.store.get_tokens()).scope == "docs:read docs:write"
            text = s.out.getvalue()
            assert '-> 403 Bearer error="insufficient_scope", scope="docs:read docs:write"' in text, text
            assert "scope=docs:read+docs:write" in text.split("-> 403")[1], "the second authorization asks for both scopes"

    scene(test, tmp_path)


def test_a_restart_reuses_tokens_and_registration(tmp_path):
    async def test(s: Scene):
        for run in (1, 2):
            async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
                hub = Hub(s.transcript)
                state = await connect_docs(s, conns, authz, hub)
                if run == 1:
                    assert state == "needs-auth"
                    await hub.clients["docs"].call_tool("authenticate", {})
                else:
                    assert state == "connected"
        assert len(s.server.clients) == 1, "the second run must not register again"
        assert s.out.getvalue().count("/authorize?") == 1

    scene(test, tmp_path)


def test_a_401_to_a_live_token_is_answered_with_one_refresh_not_a_sign_in(tmp_path):
    """The server forgot the access token (a restart, a revocation): the refresh token still works, so no browser."""
    async def test(s: Scene):
        async with s.signed_in() as (_, authz, hub):
            first = await authz.store.get_tokens()
            s.server.access.clear()
            assert "hooks" in (await hub.clients["docs"].call_tool("search", {"query": "hooks"})).text()
            text = s.out.getvalue()
            assert text.count("/authorize?") == 1, "a refresh, not a new authorization"
            after = text.split("-> 401", 2)[-1]
            assert "grant_type=refresh_token" in after and after.count("-> 401") == 0, f"one refresh, then the retry:\n{after}"
            assert (await authz.store.get_tokens()).refresh_token != first.refresh_token

    scene(test, tmp_path)


def test_a_401_with_no_usable_refresh_token_runs_the_flow_again(tmp_path):
    async def test(s: Scene):
        async with s.signed_in() as (_, authz, hub):
            s.server.access.clear()  # the server forgets every token
            s.server.refresh.clear()
            assert "hooks" in (await hub.clients["docs"].call_tool("search", {"query": "hooks"})).text()
            text = s.out.getvalue()
            assert text.count("/authorize?") == 2 and "grant_type=refresh_token" in text and "-> 400" in text, text

    scene(test, tmp_path)


def test_a_restart_with_an_access_token_the_server_forgot_refreshes_instead_of_needs_auth(tmp_path):
    async def test(s: Scene):
        async with s.signed_in():
            pass
        s.server.access.clear()  # the server restarted without its access tokens; the refresh tokens live on
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
            assert await connect_docs(s, conns, authz, Hub(s.transcript)) == "connected"
        assert s.out.getvalue().count("/authorize?") == 1

    scene(test, tmp_path)


def test_a_refused_authorization_is_a_tool_error_and_stays_needs_auth(tmp_path, capfd):
    async def refusing_browser(url: str) -> None:
        from urllib.parse import parse_qs, urlsplit

        from harness.auth import deliver

        params = parse_qs(urlsplit(url).query)
        await deliver(f"{params['redirect_uri'][0]}?error=access_denied&state={params['state'][0]}")

    async def test(s: Scene):
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer(browser=refusing_browser) as authz:
            hub = Hub(s.transcript)
            await connect_docs(s, conns, authz, hub)
            with pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            assert str(info.value) == "server 'docs': authorization failed: the authorization server refused: access_denied", info.value
            assert isinstance(hub.clients["docs"], NeedsAuth)

    scene(test, tmp_path)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "OAuth flow error" not in err, f"the SDK's log of our own error reached stderr:\n{err}"


def test_server_that_is_down_is_failed_not_needs_auth(tmp_path):
    async def main():
        async with Connections() as conns, Authorizer("docs", "http://127.0.0.1:9/mcp", tmp_path, Transcript()) as authz:
            with pytest.raises(ServerError, match="server 'docs'"):
                await connect_docs(None, conns, authz, Hub())

    anyio.run(main)


# --- no secret in any output -----------------------------------------------------------------


def test_no_secret_reaches_any_output(tmp_path, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    errors: list[str] = []
    found: dict[str, set[str]] = {}

    async def test(s: Scene):
        for _ in (1, 2):  # a fresh run, then a restart from the store
            async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
                hub = Hub(s.transcript)
                if await connect_docs(s, conns, authz, hub) == "needs-auth":
                    await hub.clients["docs"].call_tool("authenticate", {})
                await hub.clients["docs"].call_tool("publish", {"title": "x"})  # step-up
                s.clock.now += 3500  # refresh
                await hub.clients["docs"].call_tool("search", {"query": "mcp"})
                s.server.access.clear()  # re-authorization on 401
                await hub.clients["docs"].call_tool("get_version", {})
                s.server.refresh.clear()
                s.clock.now += 3500  # refresh refused, then a full flow
                await hub.clients["docs"].call_tool("get_version", {})
                refused = await hub.clients["docs"].call_tool("nope", {})  # the server's error, as data
                assert refused.is_error, refused
                errors.append(refused.text())
        found["secrets"] = s.secrets()
        found["events"] = {json.dumps(e) for e in s.transcript.events}
        found["text"] = {s.out.getvalue()}
        stored = json.loads(next(s.store.iterdir()).read_text())
        found["stored"] = {stored["tokens"]["token"]["access_token"], stored["client"]["client_secret"]}

    scene(test, tmp_path)
    secrets = found["secrets"]
    assert len(secrets) >= 12, f"the scan must have real secrets to look for, got {len(secrets)}"
    assert found["stored"] <= secrets
    captured = capfd.readouterr()
    outputs = {"transcript": "".join(found["text"]), "events": "\n".join(found["events"]), "logs": caplog.text,
               "log args": "\n".join(str(r.args) for r in caplog.records), "stdout": captured.out, "stderr": captured.err,
               "errors": "\n".join(errors)}
    assert "<access_token_1>" in outputs["transcript"] and "<client_secret>" not in outputs["errors"]
    assert_no_secret(secrets, **{where.replace(" ", "_"): text for where, text in outputs.items()})
    for where, text in outputs.items():
        assert "Bearer at_" not in text and "Basic " not in text, f"an Authorization value in {where}"



def test_a_corrupt_store_is_a_config_error_naming_the_file_and_never_its_content(tmp_path):
    store = TokenStore(tmp_path, "docs", "http://127.0.0.1:1/mcp")
    store.path.write_text('{"tokens": {"token": {"access_token": "at-leak', encoding="utf-8")
    store.path.chmod(0o600)  # as the store writes it: what is wrong here is the content
    with pytest.raises(ConfigError) as caught:
        anyio.run(store.get_tokens)
    message = str(caught.value)
    assert store.path.name in message and "at-leak" not in message, message
    assert str(tmp_path) not in message, "the store's folder is never shown (it may be a temp or personal path)"


@pytest.mark.slow
def test_a_real_run_prints_real_ports_and_no_secret_anywhere(tmp_path):
    """s26 as a user runs it (no --deterministic): real ports, and no stored secret in stdout, stderr or frames."""
    import re
    import subprocess
    import sys

    from conftest import ROOT

    store, frames = tmp_path / "store", tmp_path / "frames.jsonl"
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    done = subprocess.run([sys.executable, "lessons/s26/code.py", "--token-store", str(store), "--frames", str(frames)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"127\.0\.0\.1:\d+/mcp", done.stdout) and "<port>" not in done.stdout, "a real run prints real ports"
    saved = [json.loads(p.read_text()) for p in store.glob("*.json")]
    secrets = {s["tokens"]["token"][k] for s in saved for k in ("access_token", "refresh_token")} | {s["client"]["client_secret"] for s in saved}
    assert len(secrets) == 3, f"expected an access token, a refresh token and a client secret in the store, got {len(secrets)}"
    assert_no_secret(secrets, stdout=done.stdout, stderr=done.stderr, frames=frames)
    for where, text in (("stdout", done.stdout), ("stderr", done.stderr), ("frames", frames.read_text())):
        assert not re.search(r"Bearer [A-Za-z0-9._~+/-]{8,}", text), f"a bearer credential in {where}"


def test_a_redirect_with_another_state_says_state_mismatch_and_never_shows_a_state(tmp_path, capfd):
    forged = "forged-state-0123456789"

    async def forging_browser(url: str) -> None:
        from urllib.parse import parse_qs, urlsplit

        from harness.auth import deliver
        from harness.auth.redirect import _get

        _, headers = await _get(url)  # the real authorization, then a redirect carrying someone else's state
        code = parse_qs(urlsplit(headers["location"]).query)["code"][0]
        await deliver(f"{parse_qs(urlsplit(url).query)['redirect_uri'][0]}?code={code}&state={forged}")

    async def test(s: Scene):
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer(browser=forging_browser) as authz:
            hub = Hub(s.transcript)
            await connect_docs(s, conns, authz, hub)
            with pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            assert str(info.value) == "server 'docs': authorization failed: state mismatch", info.value
            assert isinstance(hub.clients["docs"], NeedsAuth)
        captured = capfd.readouterr()
        for where, text in (("transcript", s.out.getvalue()), ("stdout", captured.out), ("stderr", captured.err)):
            assert forged not in text, f"the forged state reached {where}"

    scene(test, tmp_path)


# --- the store's identity and place --------------------------------------------------------


def test_the_store_key_is_the_servers_stable_identity(tmp_path):
    def key(url: str) -> str:
        return TokenStore(tmp_path, "docs", url).path.name

    assert key("http://127.0.0.1:8000/mcp") == key("HTTP://127.0.0.1:8000/mcp#x") == key(" http://127.0.0.1:8000/mcp")
    assert key("https://Docs.Example/mcp") == key("https://docs.example:443/mcp")
    assert key("http://127.0.0.1:8000/mcp") != key("http://127.0.0.1:8001/mcp"), "another endpoint, another file"
    assert TokenStore(tmp_path, "docs", "http://a/mcp").path.name != TokenStore(tmp_path, "wiki", "http://a/mcp").path.name
    assert auth.identity("https://docs.example") == "https://docs.example/"


def test_the_default_store_is_per_user_state_never_the_workspace(tmp_path):
    assert auth.default_store({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "mcp-course" / "tokens"
    assert auth.default_store({"HOME": str(tmp_path)}) == tmp_path / ".local" / "state" / "mcp-course" / "tokens"
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    authz = Authorizer("docs", "http://127.0.0.1:1/mcp", None, Transcript())
    assert authz.store.path.parent == auth.default_store(), "store_dir None means the per-user default"
    from harness.tools import Workspace
    assert auth.default_store(env).parent in Workspace(tmp_path, env=env).private


def test_a_store_folder_is_made_0700_with_every_missing_parent(tmp_path):
    store = TokenStore(tmp_path / "a" / "b" / "tokens", "docs", "http://127.0.0.1:1/mcp")
    anyio.run(store.set_tokens, OAuthToken(access_token="at_1", expires_in=60))
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "tokens"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_a_temporary_store_is_private_and_gone_afterwards():
    with auth.temporary_store() as folder:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        (folder / "docs-x.json").write_text("{}")
    assert not folder.exists()


# --- the sign-in has its own timeout --------------------------------------------------------


def slow_browser(seconds: float):
    async def browse(url: str) -> None:
        await anyio.sleep(seconds)  # the simulated person, taking their time: the wait is the test's subject
        await auth.auto_browser(url)

    return browse


async def never_back(url: str) -> None:
    await anyio.sleep_forever()  # the person closed the tab


def test_the_browser_step_is_not_cut_by_the_connect_timeout(tmp_path):
    # The subject is the connect timeout: the person takes twice as long as it allows. Both
    # scale with the slack, so the rest of the handshake has the time it needs under load.
    timeouts = Timeouts(connect=scaled(0.5), auth=TIMEOUTS.connect)

    async def test(s: Scene):
        async with Connections(s.transcript, timeouts=timeouts) as conns, s.authorizer(browser=slow_browser(2 * timeouts.connect), timeouts=timeouts) as authz:
            hub = Hub(s.transcript)
            assert await connect_docs(s, conns, authz, hub) == "needs-auth"
            answer = (await hub.clients["docs"].call_tool("authenticate", {})).text()
            assert answer.startswith("Authorized 'docs'"), answer

    scene(test, tmp_path)


def test_a_sign_in_that_takes_too_long_names_the_auth_timeout_and_how_to_change_it(tmp_path, capfd):
    timeouts = Timeouts(connect=TIMEOUTS.connect, auth=1.5, settings={"auth": "--auth-timeout SECONDS"})  # the person never comes back

    async def test(s: Scene):
        async with Connections(s.transcript, timeouts=timeouts) as conns, s.authorizer(browser=never_back, timeouts=timeouts) as authz:
            hub = Hub(s.transcript)
            await connect_docs(s, conns, authz, hub)
            started = anyio.current_time()
            with pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            waited = anyio.current_time() - started
            assert str(info.value) == ("server 'docs': authorization failed: sign-in not finished within 1.5 s "
                                       "(auth timeout; change it with --auth-timeout SECONDS)"), info.value
            assert waited >= 1.5, f"expected the auth timeout (1.5 s) to end it: {waited:.1f} s"
            assert isinstance(hub.clients["docs"], NeedsAuth), "still needs-auth: the model may try again"

    scene(test, tmp_path)
    err = capfd.readouterr().err
    assert "Traceback" not in err, err


def test_the_default_auth_timeout_says_where_to_change_it():
    authz = Authorizer("docs", "http://127.0.0.1:1/mcp", Path("/nonexistent"), Transcript())
    assert authz.timeouts.auth == 300 and "Timeouts(auth=" in authz.timeouts.explain("auth")


def test_the_connect_timeout_still_bounds_the_rest_of_the_handshake():
    """The clock stops only for the person: a server that never answers initialize is still cut by connect."""
    class Silent:
        async def initialize(self):
            await anyio.sleep_forever()

    async def main():
        with anyio.fail_after(STEP), pytest.raises(TimeoutError):  # fail_after: a bound on the test itself, far above 0.2 s
            await auth.handshake(Silent(), Timeouts(connect=0.2))

    anyio.run(main)


# --- the protected server's metadata checks Host and Origin -------------------------------------


def test_the_resource_metadata_checks_host_and_origin(tmp_path):
    async def test(s: Scene):
        prm = s.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        async with httpx2.AsyncClient() as http:
            assert (await http.get(prm)).status_code == 200
            assert (await http.get(prm, headers={"Host": "evil.example"})).status_code == 421
            assert (await http.get(prm, headers={"Origin": "https://evil.example"})).status_code == 403
            metadata = f"{s.server.issuer}/.well-known/oauth-authorization-server"
            assert (await http.get(metadata, headers={"Host": "evil.example"})).status_code == 421

    scene(test, tmp_path)


# --- s26 as a user runs it: twice, with --workspace, interrupted --------------------------------

RUN_TIMEOUT = RUN  # seconds for one s26 run (tests/limits.py)
UNRESERVED_RUN = re.compile(r"[A-Za-z0-9._~-]{43,}")  # a PKCE verifier, a state or a challenge: 43+ such characters


@pytest.fixture
def s26_here(monkeypatch, capfd, caplog):
    """``python lessons/s26/code.py ARGS`` in this process, from the repository root, without Anthropic settings.

    ``env`` is set for the run (TMPDIR too: the temporary folder this process caches); its
    servers inherit it. The result's stderr is this process's stderr (its servers' too) and
    what was logged: in a process of its own, a log record with no handler goes to stderr.
    """
    monkeypatch.chdir(ROOT)
    for name in [k for k in os.environ if k.startswith("ANTHROPIC_")]:
        monkeypatch.delenv(name)

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        if env and "TMPDIR" in env:
            monkeypatch.setattr(tempfile, "tempdir", env["TMPDIR"])
        capfd.readouterr()
        caplog.clear()
        code, stdout = call_main(load_lesson("s26").main, list(args))
        return subprocess.CompletedProcess(["s26", *args], code, stdout, capfd.readouterr().err + caplog.text)

    return run


def stored_secrets(store: Path) -> set[str]:
    """Every secret in a token store folder: the client's files and the authorization server's tables."""
    found: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("access_token", "refresh_token", "client_secret") and isinstance(v, str):
                    found.add(v)
                if isinstance(k, str) and k.startswith(("at_", "rt_", "code_")):
                    found.add(k)  # the server's tables are keyed by the token itself
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith(("at_", "rt_", "code_", "cs_")):
            found.add(value)

    for file in store.rglob("*.json"):
        walk(json.loads(file.read_text()))
    return found


def test_a_second_run_with_the_same_token_store_does_not_sign_in(tmp_path):
    store = tmp_path / "store"
    code, first = run_lesson("s26", "--token-store", str(store))
    assert code == 0, first
    assert "note: docs: needs-auth" in first and first.count("/authorize?") == 2, first
    files = sorted(p.name for p in store.glob("*.json"))
    code, out = run_lesson("s26", "--token-store", str(store))
    assert code == 0, out
    assert "note: docs: connected" in out and "needs-auth" not in out, f"expected docs connected from the store\n{out}"
    assert "/authorize" not in out and "/register" not in out and "authenticate" not in out, f"expected no sign-in\n{out}"
    assert "signed_in.yaml" in out and "<- docs 1.4.2" in out and "<- published 'Permissions FAQ'" in out, out
    assert "grant_type=refresh_token" in out.split("an hour passes")[1], "an hour later the stored token is refreshed"
    assert sorted(p.name for p in store.glob("*.json")) == files, "the same store file, no second one"
    server = json.loads((store / "server" / "oauth.json").read_text())
    assert len(server["clients"]) == 1, "the authorization server kept the one registration"
    for folder in (store, store / "server"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in (*store.glob("*.json"), store / "server" / "oauth.json"))


def test_token_lifetime_sets_the_servers_lifetime_and_the_refresh_margin(tmp_path, capfd):
    code, out = run_lesson("s26", "--token-lifetime", "60")
    assert code == 0, out
    assert "(expires in 60 s, scope docs:read)" in out
    assert "access tokens live 60 s; the harness refreshes one with 30 s or less left" in out
    assert "grant_type=refresh_token" in out.split("an hour passes")[1]
    for bad in ("0", "-5", "soon"):
        capfd.readouterr()
        code, out = call_main(load_lesson("s26").main, ["--token-lifetime", bad])
        err = capfd.readouterr().err
        assert (code, out) == (2, "") and "--token-lifetime" in err and "Traceback" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("store_kind", ["given", "default"])
def test_no_token_secret_or_verifier_reaches_a_transcript_frames_or_the_workspace(tmp_path, store_kind, s26_here):
    workspace, frames, temp = tmp_path / "ws", tmp_path / "frames.jsonl", tmp_path / "tmp"
    workspace.mkdir()
    temp.mkdir()
    # TMPDIR: the default store is a temp folder, here one the test can check; HOME and
    # XDG_STATE_HOME: nothing may land in the user's state either.
    env = {"TMPDIR": str(temp), "HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}
    store = tmp_path / "store"
    extra = ("--token-store", str(store)) if store_kind == "given" else ()
    runs = [s26_here("--workspace", str(workspace), "--frames", str(frames), *extra, env=env)]
    texts = [runs[0].stdout, runs[0].stderr, frames.read_text()]
    secrets = stored_secrets(store) if store_kind == "given" else set()
    if store_kind == "given":
        runs.append(s26_here("--workspace", str(workspace), "--frames", str(frames), *extra, env=env))  # the signed-in run
        texts += [runs[1].stdout, runs[1].stderr, frames.read_text()]
        secrets |= stored_secrets(store)
        assert len(secrets) >= 8, f"the scan needs real secrets to look for, found {len(secrets)}"
    for run in runs:
        assert run.returncode == 0, run.stdout + run.stderr
    assert_no_secret(secrets, **{f"output_{number}": text for number, text in enumerate(texts)}, workspace=workspace)
    for text in texts:
        assert not UNRESERVED_RUN.search(text), f"a verifier-like string in an output: {UNRESERVED_RUN.search(text).group()[:12]}..."
        assert not re.search(r"\b(at|rt|cs|code)_[A-Za-z0-9_-]{30,}", text), "a raw token, secret or code in an output"
        assert "Bearer at_" not in text and str(store) not in text and str(temp) not in text, "a credential or the store's path"
    assert list(workspace.iterdir()) == [], f"the run left files in the workspace: {list(workspace.iterdir())}"
    assert list(temp.iterdir()) == [], f"a temporary file or store outlived the run: {list(temp.iterdir())}"
    assert not (tmp_path / "home").exists() and not (tmp_path / "state").exists(), "nothing goes to the user's home or state"


@pytest.mark.slow
def test_the_model_cannot_read_list_or_plant_tokens_even_with_the_workspace_above_the_store(tmp_path, s26_here):
    """--workspace W --token-store W/store, and the per-user state under W too: every file tool refuses them."""
    state = tmp_path / "state"
    (state / "mcp-course" / "tokens").mkdir(parents=True)
    (state / "mcp-course" / "tokens" / "docs-planted.json").write_text('{"tokens": {"token": {"access_token": "at_home_secret_value_0123456789"}}}')
    scenario = tmp_path / "probe.yaml"
    scenario.write_text(
        "prompt: Show me the tokens.\n"
        "turns:\n"
        "  - tool_calls:\n"
        "      - name: mcp__docs__authenticate\n"
        "  - tool_calls:\n"
        "      - {name: list_dir, input: {path: store}}\n"
        "      - {name: read_file, input: {path: store/server/oauth.json}}\n"
        "      - {name: write_file, input: {path: store/planted.json, content: '{}'}}\n"
        "      - {name: read_file, input: {path: state/mcp-course/tokens/docs-planted.json}}\n"
        "      - {name: read_file, input: {path: ./store/../store/server/ports.json}}\n"
        "  - text: done\n")
    env = {"XDG_STATE_HOME": str(state), "HOME": str(tmp_path / "home")}
    done = s26_here("--workspace", str(tmp_path), "--token-store", str(tmp_path / "store"), "--scenario", str(scenario), "--deterministic", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    refusals = [line for line in done.stdout.splitlines() if line.startswith("  <! ")]
    assert len(refusals) == 5 and all("private state" in line for line in refusals), "\n".join(refusals) or done.stdout
    assert not (tmp_path / "store" / "planted.json").exists(), "a refused write must not write"
    assert "at_home_secret" not in done.stdout and not stored_secrets(tmp_path / "store") & set(re.findall(r"\S+", done.stdout))


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["listening at", "-> mcp__docs__authenticate", "authorize in the browser", "saved access token"])
def test_ctrl_c_during_the_oauth_setup_exits_130_with_one_line(moment):
    """SIGINT once a line shows the moment has come: the signal lands in or just after that step."""
    from conftest import ROOT

    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    process = subprocess.Popen([sys.executable, "lessons/s26/code.py"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in process.stdout:  # ends at EOF if the moment never comes (the run finished: the test fails below)
            lines.append(line)
            if moment in line:
                process.send_signal(signal.SIGINT)
                break
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stdout = "".join(lines) + out
    assert any(moment in line for line in lines), f"the run never reached {moment!r}:\n{stdout}"
    assert process.returncode == 130, f"expected exit 130, got {process.returncode}\n{stdout}\n{err}"
    assert stdout.splitlines()[-1] == "error: interrupted", stdout
    assert stdout.count("error: ") == 1 and "Traceback" not in stdout + err and err == "", f"expected one line and a quiet stderr\n{err}"


@pytest.mark.parametrize("content", ['{"tokens": "x"}', '{"tokens": {"token": {"token_type": 3}}}', '{"client": {"redirect_uris": 5}}', "[]"])
def test_a_store_file_of_the_wrong_shape_is_one_config_error_when_the_authorizer_starts(tmp_path, content):
    url = "http://127.0.0.1:1/mcp"
    TokenStore(tmp_path, "docs", url).path.write_text(content)
    TokenStore(tmp_path, "docs", url).path.chmod(0o600)  # as the store writes it: what is wrong here is the shape

    async def main():
        async with Authorizer("docs", url, tmp_path, Transcript()):
            pass

    with pytest.raises(ConfigError, match=r"^token store file docs-[0-9a-f]{12}\.json: .*delete the file to sign in again$"):
        anyio.run(main)


def test_only_needs_auth_imports_the_hub():
    import ast
    from pathlib import Path

    package = Path(auth.__file__).parent
    importing = set()
    for module in package.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if any(n and (n == "harness.hub" or n.startswith("harness.hub.")) for n in names):
                importing.add(module.name)
    assert importing == {"needs_auth.py"}, f"expected only needs_auth.py to import the hub, got {sorted(importing)}"


@pytest.mark.parametrize("field", ["authorization_endpoint", "token_endpoint", "registration_endpoint"])
def test_an_endpoint_in_plain_http_off_this_machine_is_refused_before_use(tmp_path, capfd, field):
    """Issue 18, item 11: OAuth 2.1 wants https; off loopback a plain http endpoint is refused, naming the field."""
    opened: list[str] = []

    async def browser(url: str) -> None:
        opened.append(url)

    async def test(s: Scene):
        original = s.server.metadata

        def metadata():
            return {**original(), field: f"http://auth.invalid:8080/{field}"}

        s.server.metadata = metadata
        how = {"browser": browser} if field == "authorization_endpoint" else {}  # else the automatic one, which consents
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer(**how) as authz:
            hub = Hub(s.transcript)
            await connect_docs(s, conns, authz, hub)
            with pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            assert (f"the authorization server's metadata names {field} http://auth.invalid:8080/{field}: not https and "
                    "not on this machine (OAuth 2.1 requires https); refused") in str(info.value), info.value
            assert isinstance(hub.clients["docs"], NeedsAuth)
            if field == "authorization_endpoint":
                assert not opened, "no browser is opened to it"

    scene(test, tmp_path)
    assert "Traceback" not in capfd.readouterr().err


def test_an_issuer_mismatch_is_one_line_and_the_sdk_logs_no_traceback(tmp_path, caplog):
    """Issue 18, item 12: the SDK refuses the metadata, and says so in its log with a traceback (on a
    terminal: stderr). The harness's error is the one line the user sees; the SDK's record never reaches a handler."""

    async def test(s: Scene):
        original = s.server.metadata
        s.server.metadata = lambda: {**original(), "issuer": "http://127.0.0.1:1/another"}
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
            hub = Hub(s.transcript)
            await connect_docs(s, conns, authz, hub)
            with pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            assert "Authorization server metadata issuer mismatch" in str(info.value) and "\n" not in str(info.value), info.value

    with caplog.at_level(logging.DEBUG):
        scene(test, tmp_path)
    traced = [r for r in caplog.records if r.name.startswith("mcp") and r.exc_info]
    assert not traced, f"expected no SDK log record with a traceback, got {[r.getMessage() for r in traced]}"


# --- a token too big to be one ---------------------------------------------------------------


def test_a_10_mb_access_token_is_refused_by_name_in_one_line_at_once(tmp_path):
    import time

    from harness.auth.provider import MAX_TOKEN_CHARS

    huge = "at_" + "x" * 10_000_000
    took: list[float] = []

    async def test(s: Scene):
        issue = s.server._issue
        s.server._issue = lambda grant: {**issue(grant), "access_token": huge}
        async with Connections(s.transcript, timeouts=TIMEOUTS) as conns, s.authorizer() as authz:
            hub = Hub(s.transcript)
            assert await connect_docs(s, conns, authz, hub) == "needs-auth"
            start = time.monotonic()
            with anyio.fail_after(STEP), pytest.raises(ToolError) as info:
                await hub.clients["docs"].call_tool("authenticate", {})
            took.append(time.monotonic() - start)
            assert isinstance(hub.clients["docs"], NeedsAuth), "a refused token must leave the server needing a sign-in"
            assert authz.provider.context.current_tokens is None, "the SDK must not keep the refused token"
        message = str(info.value)
        assert message == (f"server 'docs': authorization failed: access_token from the authorization server: {len(huge)} "
                           f"characters, over the {MAX_TOKEN_CHARS} taken (MAX_TOKEN_CHARS in harness/auth/provider.py); refused"), message
        assert "xxxxxxxx" not in s.out.getvalue(), "no piece of the token may be printed"
        assert not any("xxxxxxxx" in p.read_text() for p in s.store.rglob("*.json")), "the refused token must not be stored"

    scene(test, tmp_path)
    assert took[0] < scaled(2), f"a refused 10 MB token should end the sign-in within {scaled(2)} s, took {took[0]:.1f} s"


def test_registering_a_secret_costs_time_linear_in_its_size():
    """A regex alternation of secrets took about 10 s per MB to compile, on every add."""
    import time

    from harness.redact import Redactor

    redactor = Redactor()
    big = "s" * 4_000_000
    start = time.monotonic()
    redactor.add(big, "<big>")
    redactor.add("short-secret", "<short>")
    shown = redactor(f"a {big} b short-secret c {big[:-1]}")
    took = time.monotonic() - start
    assert shown == f"a <big> b <short> c {big[:-1]}", shown[:100]
    assert took < scaled(1), f"a 4 MB secret should be registered and redacted within {scaled(1)} s, took {took:.1f} s"
