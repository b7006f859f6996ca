"""s25: Streamable HTTP. A session id per session; an expired session is re-initialized once.

New here: `ServerSpec(name, "http", url=...)`. Every frame is a POST to one URL (/mcp);
answers come back in the POST's response (JSON or an SSE stream), and a GET stream
carries what the server sends on its own. The answer to initialize carries an
Mcp-Session-Id header; every later request sends it back. The transcript shows it as
<docs-session-1>.

Sessions can end on the server's side (a restart, an idle timeout, a load balancer).
Here the docs server forgets every session after its first tools/call
(--forget-sessions-after 1). The next call gets HTTP 404; the harness notices the 404
on a request that carried the session id (at the HTTP layer, whatever JSON-RPC code the
body has), opens a new session (initialize, tools/list) and retries that call once. If
re-initializing fails, the server is marked failed, never "connected".

Not yet: auth (s26), reconnecting a dead server with backoff (s28).

New modules: harness/transports/http.py (the SDK's Streamable HTTP client and its SessionWatch), harness/expiry.py (re-initialize and retry once)

Run: python lessons/s25/code.py            (offline, scripted model)
     python lessons/s25/code.py --wire     (and every JSON-RPC frame)
     python lessons/s25/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from contextlib import AsyncExitStack

from harness import lesson, pool, wire
from harness.connect import connect_tool
from harness.spec import Timeouts
from mock_servers.launch import fault_flags, fault_option

BASE = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."
SERVERS = ("docs", "deploy")
TRANSPORT = "http"
FLAGS = {"docs": ["--forget-sessions-after", "1"]}  # the docs server forgets sessions after one call


async def session(run: lesson.Run) -> None:
    from harness.expiry import SessionExpiry  # the SDK: after the command line is parsed

    with wire.recording(run.transcript, run.args) as tap:
        async with AsyncExitStack() as stack:  # closed in reverse: the hub's servers first, then the server processes
            flags = {name: FLAGS.get(name, []) + fault_flags(name, run.args.fault) for name in SERVERS}
            # Each connection gets s25's mechanism: an expired session is re-initialized, and the call retried once.
            hub = await lesson.http_hub(run, stack, TRANSPORT, flags, tap, run.args.call_timeout, mechanisms=lambda: [SessionExpiry()])
            await run.agent(pool.rebuilt(BASE, run.workspace.tools() + [connect_tool(hub)], hub.clients, report=run.transcript.note))


def options(parser) -> None:
    wire.options(parser)
    fault_option(parser, "docs:--hang-on=search", SERVERS, TRANSPORT)
    parser.add_argument("--call-timeout", type=float, default=Timeouts.call, metavar="SECONDS",
                        help=f"the call timeout (default: {Timeouts.call:g})")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
