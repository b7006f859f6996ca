"""The user CLI: your own MCP config, through the course's hub.

    python -m harness [--config FILE]... servers [--json]
    python -m harness [--config FILE]... tools [--json]
    python -m harness [--config FILE]... call TOOL [JSON_ARGS] [--json]
    python -m harness [--config FILE]... chat (--scenario FILE | --live [--prompt TEXT]) [--workspace DIR] [--yes]
    python -m harness [--config FILE]... resources | read URI | prompts | prompt NAME [JSON_ARGS]

It reads the config you already have (``--config FILE``, repeatable, in any of the three
formats; with none, Claude Code's scopes from the current folder: see ``harness.config``),
connects every enabled server at once, on the stack every lesson builds on
(``harness.stack``), and then:

    servers   each server: scope, transport, state, era, and its tools or why it has none
    tools     the pool a model would get: model-facing name, server, tool, description
    call      one tool by its model-facing name (mcp__server__tool), arguments as JSON; the
              result is shown as the model would get it (s32): an image named with its
              size, audio and binary data saved to files, a text over the cap cut with
              the rest saved
    resources every resource and resource template the servers offer
    read      one resource by URI (from the server that lists it; --server to choose)
    prompts   every prompt, with its arguments
    prompt    one prompt (NAME or SERVER/NAME) expanded with its arguments (JSON), as the
              user message it would start a conversation with
    chat      the agent loop over those servers: the scripted model replaying a scenario
              file, or the real model (--live, needs ANTHROPIC_API_KEY) on one prompt.
              It prints the transcript the lessons print, every state change included,
              with every mechanism of the course on: servers that need OAuth sign in
              through their authenticate tool (s26); servers that crash are reconnected
              with backoff (s28); with one --config file, edits to it are applied
              between turns (s29); the resource tools are offered while a server has
              resources (s30); a call that is not read-only asks first (s31: on the
              terminal, from the scenario's answers or --answer, or --yes to allow
              all), with each server's autoApprove; results reach the model as s32
              renders them (images as image blocks, a text over the cap spilled to a
              file: DIR/.mcp-output with --workspace, else the output folder below);
              and servers may ask for forms, samples and roots (s33). File tools are
              offered only with --workspace DIR, and only inside DIR.

Tokens are kept in ``--token-store DIR`` (default ``$XDG_STATE_HOME/mcp-course/tokens``).
A sign-in opens your browser (``--sign-in browser``); ``--sign-in auto`` consents at
once without one, which only the course's mock authorization server on 127.0.0.1 can
answer (scripted runs). Files a result spills go to ``$XDG_STATE_HOME/mcp-course/output``
(one folder per run) unless chat has a workspace.

``--json`` prints data instead: ``servers`` a list of ``{name, scope, transport, state,
error, tools, era}`` (era: the protocol version a connected server speaks, s34); ``tools`` a list of ``{name, server, tool, description, annotations,
input_schema}``; ``call`` ``{is_error, content, structured}``; ``resources`` a list of
``{server, uri, name, mime_type, description, template}``; ``read`` ``{server, uri,
contents}``; ``prompts`` a list of ``{server, name, description, arguments}``; ``prompt``
``{server, name, description, messages, text}``. While servers connect, a
terminal shows each one's state as it changes (on stderr; never with ``--json`` or when
stderr is not a terminal). Real URLs and paths are printed; secrets never are.

A server that did not connect (a missing ``${VAR}``, a crash) is an ``error:`` line on
stderr for every command but ``servers`` (whose rows say it), and what did connect is
listed all the same. Exit codes: 0 done; 1 the tool reported an error, or (``resources``,
``read``, ``prompts``, ``prompt``) a server did not connect; 2 bad usage or a config that
cannot be read (for those four, a server entry the config rejects, too); 130 Ctrl-C; 143
SIGTERM. Every
server is stopped on every exit.

Introduced with s27 (the config it reads), ``chat`` with s29, resources and prompts
with s30; every command builds its servers with ``harness.stack`` (the parts left out:
``call`` and the listings ask no permission and watch no file, since the user runs
them by hand).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from harness import config, echo, naming, nesting, schemas, signals
from harness.client import Offers
from harness.cli_types import Parser, existing_folder, positive
from harness.errors import ConfigError, HarnessError, ToolError, UsageError
from harness.hub import Change, Hub
from harness.spec import State


def parser() -> argparse.ArgumentParser:
    title, _, rest = (__doc__ or "").strip().partition("\n")
    top = Parser(prog="python -m harness", description=title, epilog=rest.strip(), formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--config", type=Path, action="append", default=[], metavar="FILE",
                     help="an mcpServers file (repeatable; default: Claude Code's scopes from here)")
    top.add_argument("--home", type=Path, default=Path.home(), metavar="DIR", help="where ~/.claude.json is (default: your home)")
    top.add_argument("--managed", type=Path, default=config.Paths().managed, metavar="DIR",
                     help="the enterprise folder (managed-mcp.json, managed-settings.json; default: %(default)s)")
    config.add_arguments(top)  # --format, --input (issue 21)
    top.add_argument("--answer", action="append", default=[], type=_answer, metavar="ANSWER",
                     help="what to answer when asked (repeatable, in order): a permission (yes, no, always) or a server's "
                          "question (yes, no, done, decline, cancel, a form as JSON '{\"form\": {...}}', a sample "
                          "'{\"sample\": \"text\"}'); default: ask on the terminal, else no")
    top.add_argument("--root", type=existing_folder, metavar="DIR",
                     help="offer servers this folder as their root (roots/list); default: chat's --workspace, else no roots, "
                          "so servers keep the folders their own config names")
    top.add_argument("--token-store", type=Path, metavar="DIR",
                     help="where OAuth tokens are kept (default: $XDG_STATE_HOME/mcp-course/tokens)")
    top.add_argument("--sign-in", choices=("browser", "auto"), default="browser",
                     help="how a sign-in is done: open your browser (default), or consent at once without one "
                          "(auto: only the course's mock authorization server on 127.0.0.1 answers that)")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name, text in (("servers", "list the configured servers and their state"), ("tools", "list the tool pool a model would get")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("--json", action="store_true", help="print JSON")
    call = commands.add_parser("call", help="call one tool by its model-facing name", description="call one tool by its model-facing name")
    call.add_argument("tool", help="model-facing name, e.g. mcp__docs__search")
    call.add_argument("arguments", nargs="?", default="{}", help="the arguments as a JSON object (default: {})")
    call.add_argument("--json", action="store_true", help="print the result as JSON")
    for name, text in (("resources", "list the resources and resource templates"), ("prompts", "list the prompts")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("--json", action="store_true", help="print JSON")
    read = commands.add_parser("read", help="read one resource", description="read one resource by its URI")
    read.add_argument("uri")
    read.add_argument("--server", help="the server to ask (default: the one that lists the URI)")
    read.add_argument("--json", action="store_true", help="print JSON")
    prompt = commands.add_parser("prompt", help="expand one prompt", description="expand one prompt with its arguments")
    prompt.add_argument("name", help="the prompt's name, or SERVER/NAME")
    prompt.add_argument("arguments", nargs="?", default="{}", help="its arguments as a JSON object of strings (default: {})")
    prompt.add_argument("--json", action="store_true", help="print JSON")
    chat = commands.add_parser("chat", help="run the agent loop over your servers", description="run the agent loop over your servers")
    how = chat.add_mutually_exclusive_group(required=True)
    how.add_argument("--scenario", type=Path, metavar="FILE", help="replay this scenario with the scripted model (offline)")
    how.add_argument("--live", action="store_true", help="use the real Anthropic API (needs ANTHROPIC_API_KEY)")
    chat.add_argument("--prompt", help="the user prompt (with --live; default: read from the terminal or stdin)")
    chat.add_argument("--model", help="live model name (default: $ANTHROPIC_MODEL, else the course's default)")
    chat.add_argument("--workspace", type=existing_folder, metavar="DIR", help="offer the file tools, inside DIR only (default: no file tools)")
    chat.add_argument("--max-turns", type=positive, default=20, metavar="N", help="stop after this many model turns (default: 20)")
    chat.add_argument("--yes", action="store_true", help="allow every call that would be asked about, without asking (for scripted use)")
    return top


def _answer(value: str) -> Any:
    if value.lstrip().startswith("{"):
        try:
            parsed = nesting.loads(value)
        except nesting.TooDeep as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"not valid JSON: {exc.msg}") from None
        if not (isinstance(parsed, dict) and ({"form"} == set(parsed) and isinstance(parsed["form"], dict) or {"sample"} == set(parsed))):
            raise argparse.ArgumentTypeError('expected {"form": {...}} or {"sample": "text"}')
        return parsed
    return value


class _NoModel:
    async def reply(self, system: str, messages: Any, tools: Any) -> Any:
        raise PermissionError("no model to sample with: give the sample with --answer '{\"sample\": \"...\"}'")


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    args = parser().parse_args(argv)
    try:
        with signals.trapped() as trap:  # from here a signal is one line and an exit code, whatever phase it lands in
            arguments = _arguments(args) if args.command in ("call", "prompt") else {}
            paths = config.Paths(home=args.home, cwd=Path.cwd(), managed=args.managed)
            servers = config.load(paths, args.config, **config.options(args, err))
            if args.command == "chat":
                model, prompt = _chat_model(args)
                return signals.run(lambda: _chat(args, paths, servers, model, prompt, out), trap)
            return signals.run(lambda: _run(args, servers, arguments, out, err), trap)
    except (UsageError, ConfigError) as exc:
        print(f"error: {exc}", file=err)
        return 2
    except HarnessError as exc:
        print(f"error: {exc}", file=err)
        return 1
    except signals.Stopped as stop:
        print(f"error: {stop}", file=err)
        return stop.code
    except BrokenPipeError:
        return signals.reader_left()


def _arguments(args: argparse.Namespace) -> dict[str, Any]:
    try:
        value = nesting.loads(args.arguments)
    except nesting.TooDeep as exc:
        raise UsageError(f"JSON_ARGS: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"JSON_ARGS: not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise UsageError("JSON_ARGS: expected a JSON object, e.g. '{\"query\": \"hooks\"}'")
    return value


async def _run(args: argparse.Namespace, servers: list[config.ServerConfig], arguments: dict[str, Any], out: TextIO, err: TextIO) -> int:
    from harness.stack import Stack  # the SDK: only once there is something to connect

    progress = _progress(err) if not args.json and err.isatty() else None
    shown = not args.json and err.isatty()  # progress is for a person at a terminal; warnings always go to stderr

    def warn(text: str) -> None:
        err.write(f"warning: {text}\n")

    def progressed(text: str) -> None:
        err.write(f"progress: {text}\n")
        err.flush()

    # The user runs these by hand: nothing to ask permission for, no file to watch.
    async with Stack(servers, without={"permissions", "reload"}, on_change=progress, warn=warn, progress=progressed if shown else None,
                     **_stack_options(args, args.answer)) as stack:
        hub = stack.hub
        await stack.connect_all()
        if args.command == "servers":
            return _servers(_with_eras(config.rows(hub, servers), hub), args.json, out)
        failed = _failures(hub, err)  # said first: a listing of what did connect follows, and the exit code says it
        if args.command in ("resources", "read", "prompts", "prompt"):
            return max(failed, await _offers(hub, args, arguments, out))
        names = naming.assign(naming.pairs(hub.clients.values()))
        if args.command == "tools":
            return _tools(hub, names, args.json, out)  # the failures are said; `tools` still lists what connected
        return await _call(stack, names, args.tool, arguments, args.json, out)  # the call's own outcome


def _stack_options(args: argparse.Namespace, answers: list[Any], model: Any = None, transcript: Any = None) -> dict[str, Any]:
    """What every command's stack gets from the command line: sign-in, spill folder, and what servers may ask."""
    from harness import auth, elicit
    from harness.ask import Ask
    from harness.tools import state_dir

    script = elicit.Script(answers) if answers else None
    asker = elicit.Asker(transcript=transcript, ask=Ask.terminal_or_nobody(script))
    workspace = vars(args).get("workspace")  # chat's
    folder = args.root or workspace
    return {
        "token_store": args.token_store or auth.default_store(),
        "browser": auth.auto_browser if args.sign_in == "auto" else _desktop_browser,
        "asker": asker,
        "sampler": elicit.Sampler(model or _NoModel(), asker, script if model is None else None),
        "roots": elicit.Roots(folder) if folder is not None else None,  # no folder: no roots capability at all
        "spill": workspace / ".mcp-output" if workspace else state_dir() / "output" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}",
        "spill_shown_as": ".mcp-output" if workspace else "",
        "prompter": _prompter(args, script),
    }


async def _desktop_browser(url: str) -> None:
    """--sign-in browser: the authorization page in the desktop's browser; the loopback callback gets the answer."""
    import webbrowser

    import anyio

    await anyio.to_thread.run_sync(webbrowser.open, url)


def _prompter(args: argparse.Namespace, script: Any) -> Any:
    """Who answers a permission question: --yes, the scenario's answers and --answer (the same script as the servers'
    questions, so one list serves both, in order), the terminal, or nobody (no)."""
    from harness.ask import Ask
    from harness.permissions import Asking

    return Asking(Ask.terminal_or_nobody(script, yes=bool(vars(args).get("yes"))))


def _failures(hub: Hub, err: TextIO) -> int:
    """Each server that did not connect, as an error line on stderr; the exit code they make (2: its config, 1: other, 0: none)."""
    code = 0
    for name in sorted(hub.entries):
        entry = hub.entries[name]
        if entry.state is State.FAILED and entry.error is not None:
            err.write(f"error: {echo.text(str(entry.error))}\n")  # the harness's line breaks kept, a server's escaped
            code = max(code, 2 if isinstance(entry.error, ConfigError) else 1)
    return code


def _chat_model(args: argparse.Namespace) -> tuple[Any, str]:
    from harness.model import Scenario, ScriptedModel, live_model

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


async def _chat(args: argparse.Namespace, paths: config.Paths, servers: list[config.ServerConfig], model: Any, prompt: str,
                out: TextIO) -> int:
    from harness.loop import run_agent
    from harness.model import ScriptedModel
    from harness.stack import Stack
    from harness.tools import Workspace
    from harness.transcript import Transcript

    transcript = Transcript(out)
    scripted = (list(model.scenario.answers) if isinstance(model, ScriptedModel) else []) + list(args.answer)
    watched = {"watch": args.config[0], "reread": lambda: config.load(paths, args.config, **config.options(args, sys.stderr)), "watch_shown": str(args.config[0])} \
        if len(args.config) == 1 else {}  # one file to watch: its edits apply between turns
    async with Stack(servers, transcript, **watched, **_stack_options(args, scripted, model if args.live else None, transcript)) as stack:
        await stack.connect_all()
        private = [stack.token_store] if stack.token_store is not None else []
        builtins = Workspace(args.workspace).keep_out(*private).tools() if args.workspace else []  # the tools never reach the tokens
        await run_agent(model, prompt, stack.pool(CHAT_SYSTEM, builtins, report=transcript.note), transcript, args.max_turns, stack.policy)
    return 0


async def _offers(hub: Hub, args: argparse.Namespace, arguments: dict[str, Any], out: TextIO) -> int:
    from harness import resources

    def show(value: Any, text: str) -> int:
        out.write((json.dumps(value, indent=1, ensure_ascii=False) if args.json else text) + "\n")
        return 0

    if args.command == "resources":
        rows = resources.resource_rows(hub)
        return show(rows, "\n".join(f"{r['server']}  {r['uri']}{'  (template)' if r['template'] else ''}  {r['description']}"
                                     for r in rows) or "no resources")
    if args.command == "prompts":
        rows = resources.prompt_rows(hub)
        return show(rows, "\n".join(f"{r['server']}/{r['name']}({', '.join(a['name'] for a in r['arguments'])})  {r['description']}"
                                     for r in rows) or "no prompts")
    offering = {n: c for n, c in hub.clients.items() if isinstance(c, Offers)}
    if args.command == "read":
        server = args.server or _lister(offering, args.uri)
        if server not in offering:
            raise UsageError(f"--server: no connected server '{server}'" + (" that offers resources" if server in hub.clients else ""))
        try:
            contents = await offering[server].read_resource(args.uri)
        except ToolError as exc:
            raise HarnessError(str(exc)) from None
        text = "\n".join(c.get("text", f"[binary {c.get('mimeType', 'data')}]") for c in contents)
        return show({"server": server, "uri": args.uri, "contents": contents}, text)
    server, _, name = args.name.rpartition("/")
    found = [r for r in resources.prompt_rows(hub) if r["name"] == name and server in ("", r["server"])]
    if len(found) != 1:
        known = ", ".join(f"{r['server']}/{r['name']}" for r in resources.prompt_rows(hub)) or "none"
        reason = "is offered by several servers: name it as SERVER/NAME" if found else "is not offered"
        raise UsageError(f"prompt '{args.name}' {reason} (prompts: {known})")
    if not all(isinstance(v, str) for v in arguments.values()):
        raise UsageError("JSON_ARGS: a prompt's arguments are strings")
    client = offering[found[0]["server"]]  # prompt_rows lists only servers that offer
    try:
        expanded = await client.get_prompt(name, arguments)
        text = await resources.expand(client, name, arguments)
    except ToolError as exc:
        raise HarnessError(str(exc)) from None
    return show({"server": found[0]["server"], "name": name, **expanded, "text": text}, text)


def _lister(offering: Mapping[str, Offers], uri: str) -> str:
    """The server that lists ``uri``, or whose template's fixed start it has; a usage error if none or several."""
    listed = sorted({n for n, c in offering.items() for r in c.resources if r["uri"] == uri})
    if not listed:
        listed = sorted({n for n, c in offering.items() for t in c.resource_templates if uri.startswith(t["uriTemplate"].split("{", 1)[0])})
    if len(listed) != 1:
        raise UsageError(f"no single server lists {uri}" + (f" ({', '.join(listed)}): give --server" if listed else ": give --server"))
    return listed[0]


def _progress(err: TextIO) -> Any:
    def show(change: Change) -> None:
        if change.old is State.PENDING and change.new is not State.PENDING:  # how each connect ended, as it ends
            err.write(f"{change.server}: {change.new.value}\n")
            err.flush()

    return show


def _with_eras(rows: list[dict[str, Any]], hub: Any) -> list[dict[str, Any]]:
    """Each row with ``era``: the protocol version its server speaks (s34), None when it is not connected."""
    from harness import era

    return [{**row, "era": era.of(hub.entries[row["name"]].client)} for row in rows]


def _servers(rows: list[dict[str, Any]], as_json: bool, out: TextIO) -> int:
    if as_json:
        out.write(json.dumps(rows, indent=1) + "\n")
        return 0
    if not rows:
        out.write("no MCP servers configured\n")
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        detail = echo.text(r["error"]) if r["error"] else f"{len(r['tools'])} tools: {echo.names(r['tools'])}"  # a terminal gets server text escaped
        out.write(f"{r['name']:<{width}}  {r['scope']:<10} {r['transport'] or '-':<6} {r['state']:<10} {r['era'] or '-':<10} {detail}\n")
    return 0


def _tools(hub: Hub, names: naming.NameMap, as_json: bool, out: TextIO) -> int:
    rows = []
    for (server, tool), name in sorted(names.items(), key=lambda item: item[1]):
        listing = next(t for t in hub.clients[server].tools if t["name"] == tool)
        rows.append({"name": name, "server": server, "tool": tool, "description": listing.get("description") or "",
                     "annotations": listing.get("annotations") or {},
                     "input_schema": schemas.offered(listing.get("inputSchema") or {"type": "object"})})  # as the model gets it
    if as_json:
        out.write(json.dumps(rows, indent=1) + "\n")
    else:
        width = max((len(row["name"]) for row in rows), default=0)
        for row in rows:
            out.write(f"{row['name']:<{width}}  {echo.line(row['description'], 300)}\n")  # a server's text: escaped, one line
    return 0


async def _call(stack: Any, names: naming.NameMap, tool: str, arguments: dict[str, Any], as_json: bool, out: TextIO) -> int:
    try:
        server, original = names.resolve(tool)
    except KeyError:
        known = sorted(names.values())
        raise UsageError(f"no tool '{tool}' among the connected servers' tools" + (f" ({', '.join(known)})" if known else "")) from None
    try:
        result = await stack.hub.clients[server].call_tool(original, arguments)
    except ToolError as exc:
        raise HarnessError(str(exc)) from None
    if as_json:
        out.write(json.dumps({"is_error": result.is_error, "content": list(result.content), "structured": result.structured}, indent=1) + "\n")
    else:  # as the model would get it (s32)
        from harness.tools import Tool

        governed = await stack.output.after_result(None, Tool(tool, "", {}, _no_call, source=server, original=original), result)
        out.write(stack.output.show(stack.output.render(governed)) + "\n")
    return 1 if result.is_error else 0


async def _no_call(arguments: dict[str, Any]) -> Any:
    raise AssertionError("the CLI calls the server itself")
