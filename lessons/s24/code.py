"""s24: SSE transport (the legacy HTTP+SSE transport). Servers on 127.0.0.1, reached by URL.

New here: the servers are already running (as a remote server would be) and the harness
only knows a URL. Over SSE, the client opens one long GET /sse event stream; the server's
first event names a POST endpoint (/messages/?session_id=...), the client POSTs every
frame there, and every answer comes back on the event stream. The JSON-RPC frames are
exactly the stdio ones: only `ServerSpec(name, "sse", url=...)` changed. This is the
2024-11-05 transport; new servers use Streamable HTTP (s25), but many still speak SSE.
The default run prints those steps as notes (the GET, the endpoint event, each POST
answered 202 Accepted, each answer as a message event on the stream); --wire adds the frames.

The servers are started by `mock_servers.launch.serve_all` (serve_http each), which waits for their
`READY <url>` line and stops them at the end. Ports are picked by the OS (printed as
<port> with --deterministic, as pinned); the SSE session id is a secret, redacted always.

Not yet: Streamable HTTP and session expiry (s25), auth (s26), reconnecting (s28).

New module: harness/transports/sse.py (an SSE client on httpx behind the transport seam)

Run: python lessons/s24/code.py            (offline, scripted model)
     python lessons/s24/code.py --wire     (and every JSON-RPC frame)
     python lessons/s24/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from contextlib import AsyncExitStack

from harness import lesson, pool, wire
from harness.connect import connect_tool
from harness.spec import Timeouts
from mock_servers.launch import fault_flags, fault_option

BASE = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."
SERVERS = ("docs", "deploy")
TRANSPORT = "sse"


async def session(run: lesson.Run) -> None:
    with wire.recording(run.transcript, run.args, events=True) as tap:  # the transport's steps, in the default run too
        async with AsyncExitStack() as stack:  # closed in reverse: the hub's servers first, then the server processes
            hub = await lesson.http_hub(run, stack, TRANSPORT, {name: fault_flags(name, run.args.fault) for name in SERVERS}, tap, run.args.call_timeout)
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
