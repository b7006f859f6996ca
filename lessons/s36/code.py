"""s36: large tool pools. Deferred loading and tool search: 240 tools, and the model reads three.

New here: `harness/toolsearch.py` (the part) and `harness/toolindex.py` (the search). Six
servers of mock_servers.fleet, 40 tools each: an issue tracker, chat, storage, a database,
a cloud account, mail. Sending every definition every turn would cost about 20,000 tokens
before the user has said anything; here each MCP tool goes in the request with
`defer_loading: true`, and the model loads what it needs with `tool_search`:

- The model searches twice ("file a bug", "send a direct message"); each answer is a
  `tool_reference` block that loads one tool, and the model calls both.
- mail is configured but still pending (this lesson never starts it, standing in for a
  slow server): a search for its tool says so, by name and state, instead of "no match".
- The tracker crashes on its second call; the hub reconnects it on the next call, and the
  loaded tool stays loaded: no second search.
- The tools array is the same bytes on every turn (the prompt cache holds), loads and
  reconnect included. chat's post_message and the tracker's get_issue carry
  `_meta["anthropic/alwaysLoad"]` and are never deferred.

`--tool-search auto|auto:N|on|off` sets the policy (default auto: on here, since 240 tools
pass 30); `--tool-search off --scenario lessons/s36/off.yaml` shows what search saves.

`--live --tool-search server` offers the Messages API's own search tool instead of ours
(`tool_search_tool_bm25_20251119`, `harness/apisearch.py`); `lessons/s36/server.yaml` is a
script for it. Offline it is refused: no scripted model can run Anthropic's search.

Not here: the connect_mcp tool (s20), since every server comes from the settings file.

New modules: harness/toolsearch.py, harness/toolindex.py, harness/apisearch.py, mock_servers/fleet.py

Run: python lessons/s36/code.py            (offline, scripted model)
     python lessons/s36/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent
STILL_STARTING = ("mail",)  # configured, never started in this run: pending, as a slow server is


async def session(run: lesson.Run) -> None:
    from harness.stack import Permissions, Reload, Stack, upto  # the SDK: after the command line is parsed
    from harness.toolsearch import ToolSearch

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(HERE / "cline_mcp_settings.json", run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])
        parts = upto("s36", given=[Reload(settings, lambda: config.load(nowhere, [settings])), Permissions(prompter=lesson.prompter(run)),
                                   ToolSearch(run.args.tool_search, api=run.args.live)])
        async with Stack(servers, run.transcript, parts, environ=environ, tap=tap) as stack:
            await stack.hub.connect_all([s.name for s in servers if s.name not in STILL_STARTING])
            # Each turn the part marks the MCP tools deferred and adds tool_search; its policy refuses a deferred
            # tool that was not loaded, and renders a search's answer as tool_reference blocks.
            await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)


def options(parser) -> None:
    from harness.toolsearch import argument  # no SDK: the part's module imports only the harness's own

    wire.options(parser)
    parser.add_argument("--tool-search", default="auto", metavar="POLICY", type=argument,
                        help="auto, auto:N (N%% of the context), on, server (the API's own search; with --live) or off (default: auto)")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
