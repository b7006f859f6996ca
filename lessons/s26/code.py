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
secrets only ever appear as placeholders, in every run.

Everything s20-s25 built is still here: connect_mcp, the name checker, and the deploy
server over stdio, which the model connects at the end.

Not yet: configuration files (s27), the other connection states and retries (s28).

New module: harness/auth.py

Run: python lessons/s26/code.py                  (offline, scripted model)
     python lessons/s26/code.py --wire           (and every JSON-RPC frame)
     python lessons/s26/code.py --token-store D  (keep tokens in D; run twice: no sign-in the second time)
     python lessons/s26/code.py --live           (real model; needs ANTHROPIC_API_KEY)
"""

import itertools
import sys
from contextlib import AsyncExitStack
from pathlib import Path

from harness import auth, lesson, naming, pool, wire
from harness.connect import connect_tool
from harness.connection import Connections
from harness.hub import Hub
from harness.loop import Turn
from harness.spec import ServerSpec
from mock_servers.launch import serve_http

BASE = "You are a coding agent. Use the tools to answer; sign in to MCP servers that need it; connect others when you need them; be brief."
AN_HOUR_LATER = 4  # the scenario's 4th turn happens an hour after the 3rd
DEPLOY = ServerSpec("deploy", "stdio", command=sys.executable, args=("-m", "mock_servers.deploy", "--transport", "stdio"),
                    env={"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}, cwd=str(lesson.ROOT))


async def session(run: lesson.Run) -> None:
    clock = auth.SteppedClock()
    store = run.args.token_store or run.workspace.root / ".mcp-auth"
    accept = naming.checker(run.transcript.warning, run.transcript.note)
    with wire.recording(run.transcript, run.args) as tap:
        async with AsyncExitStack() as stack:  # closed in reverse: the hub's servers, the callback, the server
            url = await stack.enter_async_context(serve_http("docs", "http", module="mock_servers.protected"))
            run.transcript.note(f"docs server (OAuth-protected) is listening at {url}")
            authorizer = await stack.enter_async_context(auth.Authorizer("docs", url, Path(store), run.transcript, clock=clock))
            conns = await stack.enter_async_context(Connections(run.transcript))
            hub = await stack.enter_async_context(Hub(run.transcript, accept=accept))
            docs = ServerSpec("docs", "http", url=url)
            hub.add("docs", auth.connector(authorizer, lambda a: conns.open(docs, tap=tap, auth=a), hub), docs)
            hub.add("deploy", conns.connector(DEPLOY, tap=tap), DEPLOY)  # s23's stdio server, still one connect_mcp away
            run.transcript.note(f"docs: {(await hub.connect('docs')).state.value}")
            builtins = run.workspace.tools() + [connect_tool(hub)]
            rebuilt, turn_numbers = pool.rebuilt(BASE, builtins, hub.clients), itertools.count(1)

            def turn() -> Turn:
                if next(turn_numbers) == AN_HOUR_LATER:
                    clock.advance(3600)
                    run.transcript.note("an hour passes: the harness clock jumps 3600 s, so the access token is about to expire")
                return rebuilt()

            await run.agent(turn)


def options(parser) -> None:
    wire.options(parser)
    parser.add_argument("--token-store", type=lesson.folder, metavar="DIR", help="folder for the token store (default: <workspace>/.mcp-auth)")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
