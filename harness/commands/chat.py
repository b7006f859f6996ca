"""``chat``: the agent loop over your servers, on the whole stack (every part of ``harness.stack`` on).

The scripted model replays a scenario file (offline), or the real model answers one
prompt (``--live``). Every mechanism of the course stays on, as the stack builds it:
OAuth (s26: a server that needs it joins ``needs-auth`` with its authenticate tool),
reconnects (s28), the one ``--config`` file watched (s29), the resource tools (s30),
permissions (s31: asked on the terminal, from the scenario's answers or ``--answer``, or
``--yes``), output limits and spill files (s32), forms, samples and roots (s33). The
file tools are offered only with ``--workspace``, and never reach the token store.

Not handled here: the
command line (``harness.app``), a conversation of more than one prompt.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from harness import config
from harness.commands import streams
from harness.errors import UsageError
from harness.loop import run_agent
from harness.model import Model, Scenario, ScriptedModel, live_model
from harness.stack import Reload, Stack, upto
from harness.tools import Workspace
from harness.transcript import Transcript


def model(args: argparse.Namespace) -> tuple[Model, str]:
    """The model and the user's prompt: the live one (--live), or the scripted one replaying --scenario."""
    if args.live:
        prompt = args.prompt
        if prompt is None:
            prompt = input("you> ") if sys.stdin.isatty() else sys.stdin.read()
        if not prompt.strip():
            raise UsageError("chat --live: the prompt is empty (give --prompt TEXT, or type one)")
        return live_model(args.model), prompt
    if args.prompt is not None or args.model is not None:
        raise UsageError("--prompt and --model go with --live: the scripted model replays its scenario")
    if not args.scenario.is_file():
        raise UsageError(f"--scenario: no such file: {args.scenario}")
    scenario = Scenario.load(args.scenario, str(args.scenario))
    return ScriptedModel(scenario), scenario.prompt


CHAT_SYSTEM = "You are a coding agent. Use the tools to answer; be brief."


async def chat(args: argparse.Namespace, paths: config.Paths, servers: list[config.ServerConfig], model: Model, prompt: str,
               out: TextIO, options: Callable[..., dict[str, object]]) -> int:
    """The agent loop on the whole stack; ``options(answers, model, transcript)``: the parts the command line sets."""
    transcript = Transcript(out)
    scripted = (list(model.scenario.answers) if isinstance(model, ScriptedModel) else []) + list(args.answer)
    parts = options(scripted, model if args.live else None, transcript)
    if len(args.config) == 1:  # one file to watch: its edits apply between turns
        parts.append(Reload(args.config[0], lambda: config.load(paths, args.config, **config.options(args, sys.stderr)), str(args.config[0])))
    async with Stack(servers, transcript, upto(given=parts), tap=streams.tap(args, transcript)) as stack:  # --wire: frames inline
        await stack.connect_all()
        prompt = await stack.prompted(prompt)  # a part may expand it (a typed /server:prompt command)
        private = [stack.token_store] if stack.token_store is not None else []
        builtins = Workspace(args.workspace).keep_out(*private).tools() if args.workspace else []  # the tools never reach the tokens
        await run_agent(model, prompt, stack.pool(CHAT_SYSTEM, builtins, report=transcript.note), transcript, args.max_turns, stack.policy)
    return 0
