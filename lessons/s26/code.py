"""s26: OAuth. A server that needs authorization is a state, and the model can sign in.

New here: the docs server now sits behind OAuth 2.1 (python -m mock_servers.protected:
an MCP server plus its own authorization server, both on 127.0.0.1). The harness first
connects with whatever its token store holds. The server answers 401, so docs is listed
as `needs-auth` and the model sees one tool, mcp__docs__authenticate. Calling it runs
the whole flow: protected-resource metadata, authorization-server metadata, dynamic
client registration, the authorization URL with PKCE S256 and `resource` (printed with
placeholders), a loopback callback, the token exchange, the retried request. The real
tools then replace the pseudo-tool (the hub promotes the server from needs-auth to
connected). publish needs docs:write, so its 403
insufficient_scope triggers a step-up. An hour later (the lesson moves the harness
clock) the token is near expiry and is refreshed before the request. Tokens, codes and
secrets only ever appear as placeholders, in every run, and the file tools never reach
the token store.

Everything s20-s25 built is still here: connect_mcp, the name checker, and the deploy
server over stdio, which the model connects at the end.

Not yet: configuration files (s27), the other connection states and retries (s28).

New modules: harness/auth/clock.py, harness/auth/store.py, harness/auth/redirect.py, harness/auth/provider.py, harness/auth/needs_auth.py

Run: python lessons/s26/code.py                  (offline, scripted model)
     python lessons/s26/code.py --wire           (and every JSON-RPC frame)
     python lessons/s26/code.py --token-store D  (keep tokens in D; run twice: no sign-in the second time)
     python lessons/s26/code.py --live           (real model; needs ANTHROPIC_API_KEY)
"""

import dataclasses
import itertools
import sys
import time
from contextlib import AsyncExitStack, nullcontext
from pathlib import Path

from harness import cli_types, lesson, naming, pool, wire
from harness.connect import connect_tool
from harness.hub import Hub
from harness.loop import Turn
from harness.model import Scenario, ScriptedModel
from harness.spec import ServerSpec, State, Timeouts
from mock_servers.launch import serve_http

BASE = "You are a coding agent. Use the tools to answer; sign in to MCP servers that need it; connect others when you need them; be brief."
AN_HOUR_LATER = 4  # the scenario's 4th turn happens an hour after the 3rd
SIGNED_IN = Path(__file__).resolve().parent / "signed_in.yaml"  # the script when the store signs docs in: no sign-in turn
DEPLOY = ServerSpec("deploy", "stdio", command=sys.executable, args=("-m", "mock_servers.deploy", "--transport", "stdio"),
                    env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(lesson.ROOT))


async def session(run: lesson.Run) -> None:
    from harness import auth  # the SDK (and the server's starlette) load here, once the options are parsed: --help stays fast
    from harness.connection import Connections
    from mock_servers.oauth_server import ACCESS_LIFETIME

    clock = auth.SteppedClock()
    args = run.args
    lifetime = args.token_lifetime or ACCESS_LIFETIME
    timeouts = Timeouts(auth=args.auth_timeout, settings={"auth": "--auth-timeout SECONDS"})
    accept = naming.checker(run.transcript.warning, run.transcript.note)
    # Without --token-store the servers, and so their tokens, last one run: a private temp store.
    kept = nullcontext(args.token_store) if args.token_store else auth.temporary_store()
    with wire.recording(run.transcript, args) as tap, kept as store:
        workspace = run.workspace.keep_out(store)  # even with --workspace above it, the tools never reach the tokens
        server = ["--token-lifetime", str(lifetime)]
        if args.token_store:  # the servers play one that stays up between runs: same ports, same memory
            server += ["--state", str(Path(store, "server").resolve())]
        async with AsyncExitStack() as stack:  # closed in reverse: the hub's servers, the callback, the server
            url = await stack.enter_async_context(serve_http("docs", "http", *server, module="mock_servers.protected"))
            run.transcript.note(f"docs server (OAuth-protected) is listening at {url}")
            authorizer = await stack.enter_async_context(auth.Authorizer("docs", url, store, run.transcript, clock=clock, timeouts=timeouts,
                                                                         store_clock=time.time))  # the clock jump is this run's story only
            conns = await stack.enter_async_context(Connections(run.transcript))
            hub = await stack.enter_async_context(Hub(run.transcript, accept=accept))
            docs = ServerSpec("docs", "http", url=url)
            hub.add("docs", auth.connector(authorizer, lambda **how: conns.open(docs, tap=tap, **how), hub), docs)
            hub.add("deploy", conns.connector(DEPLOY, tap=tap), DEPLOY)  # s23's stdio server, still one connect_mcp away
            state = (await hub.connect("docs")).state
            run.transcript.note(f"docs: {state.value}")
            later = AN_HOUR_LATER
            if state is State.CONNECTED and not args.live and args.scenario is None:
                run = dataclasses.replace(run, model=ScriptedModel(Scenario.load(SIGNED_IN, lesson.display_path(SIGNED_IN))))
                run.transcript.note("the token store signed docs in: the script without the sign-in turn plays (lessons/s26/signed_in.yaml)")
                later -= 1
            builtins = workspace.tools() + [connect_tool(hub)]
            rebuilt, turn_numbers = pool.rebuilt(BASE, builtins, hub.clients, entries=hub.entries), itertools.count(1)  # entries: needs-auth is not 'connected'

            def turn() -> Turn:
                if next(turn_numbers) == later:
                    clock.advance(3600)
                    run.transcript.note(f"an hour passes: the harness clock jumps 3600 s (access tokens live {lifetime} s; "
                                        f"the harness refreshes one with {auth.refresh_margin(lifetime):g} s or less left)")
                return rebuilt()

            await run.agent(turn)


def options(parser) -> None:
    wire.options(parser)
    parser.add_argument("--token-store", type=cli_types.folder, metavar="DIR",
                        help="keep the tokens in DIR, and the servers' ports and the authorization server's memory in DIR/server, "
                             "so a second run needs no sign-in (default: a private temporary folder, gone after the run)")
    parser.add_argument("--token-lifetime", type=cli_types.positive, metavar="SECONDS",
                        help="how long the server's access tokens live (default: the mock server's ACCESS_LIFETIME, an hour)")
    parser.add_argument("--auth-timeout", type=cli_types.positive, default=Timeouts.auth, metavar="SECONDS",
                        help=f"how long a sign-in may take in the browser (default: {Timeouts.auth:g})")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
