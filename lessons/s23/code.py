"""s23: real stdio transport. The mock servers become real MCP servers in child processes.

New here: `docs` and `deploy` are no longer Python objects in this process. connect_mcp
spawns `python -m mock_servers.docs --transport stdio`, speaks JSON-RPC with it over
stdin/stdout (initialize, notifications/initialized, tools/list, tools/call), keeps its
stderr in a temporary file, and stops it when the run ends: close stdin, then SIGTERM,
then SIGKILL, every wait bounded, on errors and Ctrl-C too. Naming and the pool are s22's.

The default run notes each spawn (the command, no pid: it changes every run). A wire tap
records every frame when asked: --wire prints them inline (>> sent,
<< received), and --frames FILE writes them as JSON lines. --fault gives one server a fault flag from
mock_servers/serve.py; a server that cannot start, crashes or hangs becomes an error
result naming it (exit code, last stderr lines), and the other server keeps working.

Not yet: SSE (s24), Streamable HTTP sessions (s25), reconnecting a dead server (s28).

New module: harness/transports/stdio.py (and harness/connection.py, harness/sessions.py, harness/hooks.py for the connection and its hooks, harness/wire.py for the tap)

Run: python lessons/s23/code.py                       (offline, scripted model)
     python lessons/s23/code.py --wire                (and every JSON-RPC frame)
     python lessons/s23/code.py --fault deploy:--exit-at-start=4 --scenario lessons/s23/faults.yaml
     python lessons/s23/code.py --live                (real model; needs ANTHROPIC_API_KEY)
"""

import sys

from harness import lesson, naming, pool, wire
from harness.connect import connect_tool
from harness.hub import Hub
from harness.spec import ServerSpec, Timeouts
from mock_servers.launch import fault_flags, fault_option

BASE = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."
SERVERS = ("docs", "deploy")
CHILD_ENV = {"PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}  # on top of the SDK's safe HOME, PATH, ...


def spec(name: str, faults: list[str]) -> ServerSpec:
    """How to start one server: a command line, run from the repository root."""
    flags = fault_flags(name, faults)
    args = ("-m", f"mock_servers.{name}", "--transport", "stdio", *flags)
    return ServerSpec(name, "stdio", command=sys.executable, args=args, env=CHILD_ENV, cwd=str(lesson.ROOT))


async def session(run: lesson.Run) -> None:
    from harness.connection import Connections  # the SDK loads here, once the options are parsed: --help stays fast

    accept = naming.checker(run.transcript.warning, run.transcript.note)
    with wire.recording(run.transcript, run.args, events=True) as tap:  # each spawn, in the default run too
        # Leaving these blocks stops every server they started, whatever happened inside.
        async with Connections(run.transcript, timeouts=Timeouts(call=run.args.call_timeout)) as conns, \
                Hub(run.transcript, accept=accept) as hub:
            for name in SERVERS:
                server = spec(name, run.args.fault)
                hub.add(name, conns.connector(server, tap=tap), server)
            builtins = run.workspace.tools() + [connect_tool(hub)]
            await run.agent(pool.rebuilt(BASE, builtins, hub.clients, report=run.transcript.note))


def options(parser) -> None:
    wire.options(parser)
    fault_option(parser, "deploy:--exit-at-start=4", SERVERS, "stdio")
    parser.add_argument("--call-timeout", type=float, default=Timeouts.call, metavar="SECONDS",
                        help=f"the call timeout (default: {Timeouts.call:g})")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
