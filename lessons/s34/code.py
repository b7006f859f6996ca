"""s34: two protocol eras side by side. The harness negotiates each server's, or the config pins it.

New here: `harness/era.py`, and beside it `harness/cache.py`. The same three mock servers, three times:

1. handshake.json pins every entry to "2025-11-25": initialize and a session (docs over
   Streamable HTTP gets an Mcp-Session-Id); the handbook says notifications/*/list_changed
   on its session; the desk asks for a form with a request of its own (elicitation/create).
2. modern.json pins "2026-07-28": server/discover instead of initialize, no session, every
   request carries the protocol version (and over HTTP the MCP-Protocol-Version, Mcp-Method
   and Mcp-Name headers); the handbook's changes come on a subscriptions/listen stream; the
   desk cannot send requests, so triage answers "input required" and is called again.
   The handbook runs with --cache-ttl 600000: its answers carry ttlMs, so the second read
   of the page it just published is served from the cache, and no request goes out.
3. mixed.json pins nothing ("auto"): docs speaks only 2026-07-28 (--era 2026-07-28), the
   handbook only the handshake era (--era 2025-11-25), the desk both. Each is negotiated:
   the transcript says what the probe found.

`python lessons/s34/code.py --wire` shows every frame, and with each request the HTTP headers
the session gives it.

Not here: permissions (s31), so no call is asked about; s20's connect_mcp tool, since every
server comes from a file.

New modules: harness/era.py, harness/cache.py

Run: python lessons/s34/code.py            (offline: scripted model and answers)
     python lessons/s34/code.py --wire     (and every frame, with its headers)
     python lessons/s34/code.py --live     (real model; you answer on the terminal)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent
PARTS = (  # (config file, what it shows, the docs server's flags)
    ("handshake.json", "every entry pins the handshake era (2025-11-25)", ()),
    ("modern.json", "every entry pins 2026-07-28", ()),
    ("mixed.json", "nothing pinned: docs speaks only 2026-07-28, the handbook only 2025-11-25, the desk both", ("--era", "2026-07-28")),
)


async def session(run: lesson.Run) -> None:
    from harness import elicit
    from harness.ask import Ask
    from harness.era import of
    from harness.stack import Asking, Permissions, Stack, upto  # the SDK: after the command line is parsed
    from mock_servers.launch import serve_http

    answers = getattr(getattr(run.model, "scenario", None), "answers", None)
    script = elicit.Script(answers) if answers is not None and not run.args.live else None
    asker = elicit.Asker(transcript=run.transcript, ask=Ask.terminal_or_nobody(script))
    with wire.recording(run.transcript, run.args, headers={"docs"}) as tap:  # docs is the one server over HTTP
        for number, (file, shows, docs_flags) in enumerate(PARTS, 1):
            run.transcript.note(f"part {number}, {file}: {shows}")
            async with serve_http("docs", "http", *docs_flags) as url:
                settings, nowhere = config.copied(HERE / file, run.workspace.root)
                servers = config.load(nowhere, [settings])
                async with Stack(servers, run.transcript, upto(given=[Asking(asker)], without=(Permissions,)), tap=tap,
                                 environ={"PYTHON": sys.executable, "DOCS_URL": url}) as stack:
                    await stack.connect_all()
                    eras = ", ".join(f"{name} {of(entry.client) or entry.state.value}" for name, entry in stack.hub.entries.items())
                    run.transcript.note(f"eras: {eras}")
                    await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
