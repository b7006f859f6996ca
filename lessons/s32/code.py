"""s32: output governance. Every kind of result becomes something the Messages API accepts, within a cap.

New here: `harness/output.py`, plugged into the loop's after-result, render and show hooks.
The media server returns one kind of result per tool:

- chart: text and a PNG, sent as an image block; fake_chart: "image/png" that is not a
  PNG, saved to a file instead, with a note.
- voice: audio, which a tool_result cannot hold: saved, and the model reads where.
- report: 400 lines, about 4,000 tokens, over this server's cap of 300 (its
  "maxOutputTokens"): the whole text is saved, and the model gets the head and a hint.
- links: a resource link (its URI as text), an embedded page (its text), and an embedded
  archive whose URI is "../../etc/passwd" plus a NUL: saved under a safe name.
- stats: structuredContent only, sent as JSON text; fail: an error with no words, still
  naming the server and tool; triage: a block for the user only is shown, not sent.

Files go to .mcp-output in the workspace, named NNN-server-tool.ext, whatever the server says.

Not here: the connect_mcp tool (s20), since every server comes from the settings file.
Not yet: elicitation, sampling and roots (s33).

New module: harness/output.py

Run: python lessons/s32/code.py            (offline, scripted model)
     python lessons/s32/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; be brief."
SETTINGS = Path(__file__).resolve().parent / "cline_mcp_settings.json"


async def session(run: lesson.Run) -> None:
    from harness.stack import Output, Reload, Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}
    settings, nowhere = config.copied(SETTINGS, run.workspace.root)  # the lesson's file, and no other config
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(nowhere, [settings])  # media's "maxOutputTokens" is its cap
        async with Stack(servers, run.transcript, upto("s32", given=[Reload(settings, lambda: config.load(nowhere, [settings])), Output(run.workspace.root / ".mcp-output", ".mcp-output")]),
                         environ=environ, tap=tap) as stack:
            await stack.connect_all()
            await run.agent(stack.pool(BASE, run.workspace.tools()), stack.policy)  # output's hooks are in the policy


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
