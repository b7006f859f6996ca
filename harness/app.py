"""The user CLI: your own MCP config, through the course's hub.

    mcp-course [OPTIONS] servers [--strict] | tools [--strict]
    mcp-course [OPTIONS] call TOOL [JSON_ARGS | KEY=VALUE...] [--output FILE]
    mcp-course [OPTIONS] resources | read URI [--server NAME] | prompts | prompt NAME [JSON_ARGS]
    mcp-course [OPTIONS] chat (--scenario FILE | --live [--prompt TEXT]) [--workspace DIR] [--yes]
    mcp-course [OPTIONS] login SERVER | logout SERVER | approve SERVER | deny SERVER
    mcp-course [OPTIONS] doctor [--offline] | discover
    mcp-course [OPTIONS] add NAME (-- COMMAND ARGS... | --url URL) [--scope local|project|user] | remove NAME
    mcp-course completion bash|zsh|fish
    mcp-course --version

(``python -m harness`` is the same program.) OPTIONS (``--config FILE``..., ``--json``,
``--home``, ``--managed``, ``--answer``, ``--root``, ``--token-store``, ``--sign-in``) go
before or after the command. It reads the config you already have (``--config FILE``,
repeatable; with none, Claude Code's scopes from the current folder: see
``harness.config``), connects the servers the command needs at once, on the stack every
lesson builds on (``harness.stack``), and then:

    servers   each server: scope, transport, state, era, and its tools or why it has none
              (needs-auth: the login command to run)
    tools     the pool a model would get: model-facing name with its arguments, description
    call      one tool by its model-facing name (mcp__server__tool) or SERVER.TOOL, with
              arguments as JSON or KEY=VALUE words typed from its input schema, checked
              against that schema before they are sent; it starts only that server. The
              result is shown as s32 renders it, for a person: images, audio and binary
              data saved to files, a text over the cap cut with the rest saved; a tool's
              error on stderr (harness.commands.call)
    resources every resource and resource template the servers offer
    read      one resource by URI (from the server that lists it; --server to choose,
              and start only that one)
    prompts   every prompt, with its arguments
    prompt    one prompt (NAME or SERVER/NAME, which starts only SERVER) expanded with
              its arguments (JSON), as the user message it would start a conversation with
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
    login     sign in to one server with a URL, and keep its tokens (harness.commands.signin)
    logout    delete that server's stored tokens
    doctor    every config file and server checked, each problem once with its fix
              (harness.commands.doctor)
    discover  every MCP client config on this machine (under --home, and from here up),
              each with its client, path, scope and servers; nothing is started
              (harness.commands.discover)
    add       write a server into the file a client reads (--format: claude-code, the
              default, claude-desktop or cline; --scope as claude mcp add), every other
              key kept; remove: take one out (harness.commands.edit)
    approve   let a .mcp.json server of this folder start; deny: keep it from starting
              (~/.claude.json, as Claude Code keeps it: harness.commands.approve)
    completion  a shell completion script (harness.commands.completion)

Lessons add commands and options of their own (``harness.commands.extensions``, one module
each: s36's ``tools --search`` and ``chat --tool-search`` in ``harness.commands.toolfind``);
``--help`` lists them after these.

Tokens are kept in ``--token-store DIR`` (default ``$XDG_STATE_HOME/mcp-course/tokens``).
A sign-in opens your browser and prints the address on stderr (``--sign-in browser``;
with no desktop, only the address); ``--sign-in auto`` consents at once without one,
which only the course's mock authorization server on 127.0.0.1 can answer (scripted
runs). Files a result spills go to ``$XDG_STATE_HOME/mcp-course/output`` (one folder per
run) unless chat has a workspace.

``--json`` prints data instead: ``servers`` a list of ``{name, scope, transport, state,
error, tools, era}`` (era: the protocol version a connected server speaks, s34);
``tools`` a list of ``{name, server, tool, description, annotations, input_schema}``;
``call`` ``{is_error, content, structured}``; ``resources`` a list of ``{server, uri,
name, mime_type, description, template}``; ``read`` ``{server, uri, contents}``;
``prompts`` a list of ``{server, name, description, arguments}``; ``prompt`` ``{server,
name, description, messages, text}``; ``doctor`` ``{files, problems, notes, servers}``;
``discover`` a list of ``{client, path, scope, servers, error}``.
While servers connect, a terminal shows each one's state as it changes (on stderr;
never with ``--json`` or when stderr is not a terminal). Real URLs and paths are
printed; secrets never are.

A server that did not connect (a missing ``${VAR}``, a crash, a sign-in it needs) is an
``error:`` line on stderr for every command but ``servers`` (whose rows say it), and
what did connect is listed all the same. Exit codes: 0 done; 1 the tool reported an
error, or (``resources``, ``read``, ``prompts``, ``prompt``) a server did not connect,
or (``doctor``, ``--strict``) a problem was found; 2 bad usage or a config that cannot
be read (for those four, a server entry the config rejects, too); 130 Ctrl-C; 143
SIGTERM. Every server is stopped on every exit.

Every command builds its servers with ``harness.stack`` (the parts left out: ``call``
and the listings ask no permission and watch no file, since the user runs them by
hand). Not handled here: revoking tokens at logout, completion for ``python -m harness``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from harness import config, echo, era, naming, nesting, redact, schemas, sdk_half, sdklog, signals, terminal
from harness.ask import Ask, as_form
from harness.cli_types import Parser, existing_folder, json_arguments, positive
from harness.commands.extension import Extension
from harness.commands.extensions import EXTENSIONS
from harness.errors import ConfigError, HarnessError, UsageError
from harness.exits import exit_now
from harness.hub import Change, Hub
from harness.jsonvalue import JSONObject
from harness.spec import State
from harness.tools import Tool, state_dir

if TYPE_CHECKING:
    from harness.elicit import Script
    from harness.model import Model, Reply
    from harness.parts import Part
    from harness.permissions import Asking
    from harness.signals import Trap
    from harness.stack import Stack
    from harness.transcript import Transcript

PROG = "mcp-course"  # the console script; ``python -m harness`` passes its own name


JSON_COMMANDS = ("servers", "tools", "call", "resources", "read", "prompts", "prompt", "doctor", "discover")  # those with --json
REPEATED = ("config", "answer", "input")  # options that add up: given before and after the command, both count


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    title, _, rest = (__doc__ or "").strip().partition("\n")
    top = Parser(prog=prog, description=title, epilog=_epilog(rest), formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("-V", "--version", action=_Version, help="print the version and exit")
    _options(top)
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    def command(name: str, text: str, description: str = "") -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=text, description=description or text)
        _options(sub.add_argument_group("options of every command (before or after it)"), after=True)
        return sub

    for name, text in (("servers", "list the configured servers and their state"), ("tools", "list the tool pool a model would get")):
        command(name, text).add_argument("--strict", action="store_true", help="exit 1 if a server did not connect (failed, or needs a sign-in)")
    call = command("call", "call one tool by name, with JSON or KEY=VALUE arguments", "call one tool (harness.commands.call)")
    call.add_argument("tool", help="model-facing name (mcp__docs__search) or SERVER.TOOL (docs.search)")
    call.add_argument("arguments", nargs="*", default=[], help="one JSON object, or KEY=VALUE words typed from the tool's "
                      "input schema (default: no arguments)")
    call.add_argument("--output", type=Path, metavar="FILE", help="write the result's first binary block, else its text, to FILE")
    command("resources", "list the resources and resource templates")
    read = command("read", "read one resource", "read one resource by its URI")
    read.add_argument("uri")
    read.add_argument("--server", help="the server to ask (default: the one that lists the URI)")
    command("prompts", "list the prompts")
    prompt = command("prompt", "expand one prompt", "expand one prompt with its arguments")
    prompt.add_argument("name", help="the prompt's name, or SERVER/NAME")
    prompt.add_argument("arguments", nargs="?", default="{}", help="its arguments as a JSON object of strings (default: {})")
    chat = command("chat", "run the agent loop over your servers")
    how = chat.add_mutually_exclusive_group(required=True)
    how.add_argument("--scenario", type=Path, metavar="FILE", help="replay this scenario with the scripted model (offline)")
    how.add_argument("--live", action="store_true", help="use the real Anthropic API (needs ANTHROPIC_API_KEY)")
    chat.add_argument("--prompt", help="the user prompt (with --live; default: read from the terminal or stdin)")
    chat.add_argument("--model", help="live model name (default: $ANTHROPIC_MODEL, else the course's default)")
    chat.add_argument("--workspace", type=existing_folder, metavar="DIR", help="offer the file tools, inside DIR only (default: no file tools)")
    chat.add_argument("--max-turns", type=positive, default=20, metavar="N", help="stop after this many model turns (default: 20)")
    chat.add_argument("--yes", action="store_true", help="allow every call that would be asked about, without asking (for scripted use)")
    for name, text in (("login", "sign in to one server (OAuth) and keep its tokens"), ("logout", "delete one server's stored tokens")):
        command(name, text).add_argument("server", help="the server's name in the config (one with a URL)")
    for name, text in (("approve", "let a .mcp.json server of this folder start (as Claude Code records it)"),
                       ("deny", "keep a .mcp.json server of this folder from starting (as Claude Code records it)")):
        command(name, text, text + ": in ~/.claude.json, under --home").add_argument("server", help="the server's name in .mcp.json")
    doctor = command("doctor", "check every config file and server: each problem once, with the fix")
    doctor.add_argument("--offline", action="store_true", help="only read the files: start no server, connect to none")
    command("discover", "list every MCP client config on this machine and its servers (nothing started)")
    for name, text in (("add", "write a server into a client's config file"), ("remove", "take a server out of a client's config file")):
        edit = command(name, text, text + " (harness.commands.edit)")
        edit.add_argument("name", help="the server's name")
        edit.add_argument("--scope", choices=("local", "project", "user"), default="local",
                          help="Claude Code's file: this folder in ~/.claude.json (local, default), .mcp.json (project), "
                               "~/.claude.json for every folder (user)")
    add = commands.choices["add"]
    add.add_argument("--url", help="a remote server's URL (instead of a command)")
    add.add_argument("--transport", choices=("http", "sse"), help="with --url: how it is reached (default: http)")
    add.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'", help="with --url (repeatable)")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="with a command (repeatable)")
    add.epilog = "a local server's command goes last, after --: mcp-course add docs -- npx -y @acme/docs-mcp"
    command("completion", "print a shell completion script").add_argument("shell", choices=("bash", "zsh", "fish"))
    for extension in EXTENSIONS:  # the lessons' commands (harness.commands.extensions), then their options on any command
        for added in extension.commands:
            added.arguments(command(added.name, added.help))
    for extension in EXTENSIONS:
        extension.options(commands.choices)
    hidden = commands.add_parser("_complete")  # no help=: not listed; the completion scripts call it
    _options(hidden, after=True)
    hidden.add_argument("kind", choices=("servers", "tools"))
    return top


def _epilog(doc: str) -> str:
    """The module docstring as ``--help`` shows it: its usage lines indented as written, no ``literal`` marks, and
    only what a user needs (up to the paragraph on where the code came from)."""
    text = doc.strip("\n").split("\nIntroduced with ")[0].rstrip()
    return text.replace("``", "")


def _options(group: argparse._ActionsContainer, after: bool = False) -> None:
    """The options of every command. Before the command they have their defaults; after it they are left out unless
    given (``SUPPRESS``), so they never reset what was given before; repeatable ones gather under ``NAME_after``."""
    def option(*names: str, **how: Any) -> None:  # how: add_argument's keywords, as argparse takes them
        if after:
            how["default"] = argparse.SUPPRESS
            if how["dest"] in REPEATED:
                how["dest"] += "_after"
        group.add_argument(*names, **how)

    option("--config", dest="config", type=Path, action="append", default=[], metavar="FILE",
           help="an mcpServers file (repeatable; default: Claude Code's scopes from here)")
    option("--home", dest="home", type=Path, default=Path.home(), metavar="DIR", help="where ~/.claude.json is (default: your home)")
    option("--managed", dest="managed", type=Path, default=config.Paths().managed, metavar="DIR",
           help=f"the enterprise folder (managed-mcp.json, managed-settings.json; default: {config.Paths().managed})")
    config.add_arguments(group, option)  # --format, --input: what they mean is the config's (harness.config.cli)
    option("--json", dest="json", action="store_true", default=False,
           help=f"print JSON instead of text ({', '.join(JSON_COMMANDS)})")
    option("--answer", dest="answer", action="append", default=[], type=_answer, metavar="ANSWER",
           help="what to answer when asked (repeatable, in order): a permission (yes, no, always) or a server's "
                "question (yes, no, done, decline, cancel; a form's fields as JSON, '{\"team\": \"web\"}' or "
                "'{\"form\": {\"team\": \"web\"}}'; a sample '{\"sample\": \"text\"}', which is also the consent to "
                "sample when no yes is given); default: ask on the terminal, else no")
    option("--root", dest="root", type=existing_folder, default=None, metavar="DIR",
           help="offer servers this folder as their root (roots/list); default: chat's --workspace, else no roots, "
                "so servers keep the folders their own config names")
    option("--token-store", dest="token_store", type=Path, default=None, metavar="DIR",
           help="where OAuth tokens are kept (default: $XDG_STATE_HOME/mcp-course/tokens)")
    option("--sign-in", dest="sign_in", choices=("browser", "auto"), default="browser",
           help="how a sign-in is done: open your browser and print its address (default), or consent at once without "
                "one (auto: only the course's mock authorization server on 127.0.0.1 answers that)")


class _Version(argparse.Action):
    """``--version``: the installed package's version, read only when asked (importlib.metadata is not free)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **how: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **how)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option_string: str | None = None) -> None:
        from importlib import metadata  # importlib.metadata is not free: read only for --version

        try:
            version = metadata.version("mcp-course")
        except metadata.PackageNotFoundError:  # run from a checkout that was never installed
            version = "unknown (not installed: pip install -e .)"
        sys.stdout.write(f"{parser.prog} {version}\n")  # on stdout, as argparse's own --version
        parser.exit(0)


def parse(argv: list[str] | None, prog: str = PROG) -> argparse.Namespace:
    """The command line, with the options given after the command joined to those before it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    server_command = argv[cut + 1:] if "add" in argv[:cut] else []  # add NAME -- COMMAND ARGS: the server's words, unparsed
    args = parser(prog).parse_args(argv[:cut] if "add" in argv[:cut] else argv)
    args.server_command = server_command
    for name in REPEATED:
        setattr(args, name, getattr(args, name) + vars(args).pop(f"{name}_after", []))
    args.prog = prog
    return args


def _answer(value: str) -> str | JSONObject:
    if value.lstrip().startswith("{"):
        try:
            parsed = nesting.loads(value)
        except nesting.TooDeep as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"not valid JSON: {exc.msg}") from None
        if not isinstance(parsed, dict):
            raise argparse.ArgumentTypeError('expected a form\'s fields {"team": "web"} (or {"form": {...}}), or {"sample": "text"}')
        return as_form(parsed)
    return value


class _NoModel:
    async def reply(self, system: str, messages: list[JSONObject], tools: Sequence[Tool]) -> Reply:
        raise PermissionError("no model to sample with: give the sample with --answer '{\"sample\": \"...\"}'")


def console(prog: str = PROG) -> None:
    """The program's start and end, as ``mcp-course`` and ``python -m harness`` run it: the SDK's client half
    only (``harness.sdk_half``), then ``main``, then ``harness.exits`` (flushed, past the interpreter's teardown)."""
    sdk_half.load_only("client")  # before anything imports mcp
    exit_now(main(prog=prog))


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None, prog: str = PROG,
         parts: Sequence[Part] = ()) -> int:
    """The CLI. ``parts``: more stack parts (``harness.parts.Part``) for every command that connects, for a program
    that runs the CLI with mechanisms of its own."""
    args = parse(argv, prog)
    args.plugged = tuple(parts)
    # Every line the CLI prints, a server's answer included, is redacted of the secrets the stack registers and escaped.
    args.redactor = redact.Redactor()
    out, err = terminal.Writer(out or sys.stdout, args.redactor), terminal.Writer(err or sys.stderr, args.redactor)
    try:
        # From here a signal is one line and an exit code, whatever phase it lands in; and the SDK's logs are lines of ours.
        with signals.trapped() as trap, sdklog.routed(err):
            return _dispatch(args, trap, out, err)
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


def _dispatch(args: argparse.Namespace, trap: Trap, out: TextIO, err: TextIO) -> int:
    """One command, from the cheapest: those that start nothing first, then those that connect (under ``trap``)."""
    with_json = JSON_COMMANDS + tuple(c.name for e in EXTENSIONS for c in e.commands if c.json)
    if args.json and args.command not in with_json:
        raise UsageError(f"--json: '{args.command}' has no JSON output (it goes with {', '.join(with_json)})")
    if args.command == "completion":
        return _completion(args.shell, args.prog, out)
    arguments = _arguments(args) if args.command == "prompt" else {}
    if args.command == "call":
        from harness.commands import call  # commands' modules: only for their command

        arguments = call.raw_arguments(args.arguments)
    paths = config.Paths(home=args.home, cwd=Path.cwd(), managed=args.managed)
    if args.command in ("add", "remove"):
        from harness.commands import edit  # commands' modules: only for their command

        return edit.add(args, paths, out) if args.command == "add" else edit.remove(args, paths, out)
    if args.command == "discover":
        from harness.commands import discover  # commands' modules: only for their command

        return discover.discover(paths, args.json, out)
    if args.command == "doctor":  # reads each file itself: a broken one is a finding, not the end
        return signals.run(lambda: _doctor(args, paths, out, err), trap)
    for extension in EXTENSIONS:  # a lesson's command that starts nothing: before any config is read
        if any(c.name == args.command and not c.connects for c in extension.commands):
            return signals.run(lambda: _unconnected(extension, args, out, err), trap)
    if args.command in ("approve", "deny"):
        from harness.commands import approve  # a command's module loads when it runs: --help loads none

        if args.config:
            raise UsageError(f"{args.command} answers for this folder's .mcp.json servers; it takes no --config")
        return approve.answer(args.command, args.server, paths, out)
    servers = config.load(paths, args.config, **config.options(args, err))
    if args.command == "_complete":  # for the completion scripts: names, and nothing started
        from harness.commands import completion  # a command's module loads when it runs

        out.write("".join(f"{name}\n" for name in completion.names(args.kind, servers)))
        return 0
    if args.command in ("login", "logout"):
        from harness.commands import signin  # a command's module loads when it runs

        server = signin.remote(servers, args.server)
        if args.command == "logout":
            return signin.logout(server, _token_store(args), out)
        return signals.run(lambda: _login(args, server, out, err), trap)
    if args.command == "chat":
        from harness.commands import chat  # a command's module loads when it runs

        model, prompt = chat.model(args)
        options = lambda answers, live, transcript: _parts(args, answers, live, transcript)  # noqa: E731
        return signals.run(lambda: chat.chat(args, paths, servers, model, prompt, out, options), trap)
    return signals.run(lambda: _run(args, _needed(args, servers), arguments, out, err), trap)


async def _unconnected(extension: Extension, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    code = await extension.run(args, None, out, err)
    if code is None:
        raise HarnessError(f"{args.command}: its extension did not run it")  # a command it declared: a bug of the extension
    return code


def _arguments(args: argparse.Namespace) -> JSONObject:
    return json_arguments(args.arguments)


async def _run(args: argparse.Namespace, servers: list[config.ServerConfig], arguments: JSONObject, out: TextIO, err: TextIO) -> int:
    progress = _progress(err) if not args.json and err.isatty() else None
    shown = not args.json and err.isatty()  # progress is for a person at a terminal; warnings always go to stderr

    def warn(text: str) -> None:
        err.write(f"warning: {text}\n")

    def progressed(text: str) -> None:
        err.write(f"progress: {text}\n")
        err.flush()

    async with _stack(args, servers, err, on_change=progress, warn=warn, progress=progressed if shown else None) as stack:
        hub = stack.hub
        await stack.connect_all()
        strict = 1 if vars(args).get("strict") and any(e.state in (State.FAILED, State.NEEDS_AUTH) for e in hub.entries.values()) else 0
        if args.command in ("servers", "tools"):  # what completion offers as tool names
            from harness.commands import completion  # a command's module loads when it runs

            completion.remember(servers, {name: [t["name"] for t in client.tools] for name, client in hub.clients.items()
                                          if hub.entries[name].state is State.CONNECTED})
        if args.command == "servers":
            return max(strict, _servers(_with_eras(_rows(hub, servers, args), hub), args.json, out, _looked(args)))
        failed = _failures(hub, err, args.prog)  # said first: a listing of what did connect follows, and the exit code says it
        for extension in EXTENSIONS:  # a lesson's command, or its flag on a shared one: the failures were said, --strict counts
            if (code := await extension.run(args, stack, out, err)) is not None:
                return max(strict, code)
        if args.command in ("resources", "read", "prompts", "prompt"):
            from harness.commands import offers  # a command's module loads when it runs

            from harness.stack import Output

            return max(failed, await offers.offers(hub, args, arguments, out, stack.find(Output).output))  # type: ignore[union-attr]
        names = naming.assign(naming.pairs(hub.clients.values()))
        if args.command == "tools":
            return max(strict, _tools(hub, names, args.json, out))  # the failures are said; `tools` still lists what connected
        from harness.commands import call  # commands' modules: only after a connect

        return await call.call(stack, names, args.tool, arguments, args.json, args.output, out, err)  # the call's own outcome


def _completion(shell: str, prog: str, out: TextIO) -> int:
    """``completion SHELL``: the script, with the commands and options of this parser."""
    from harness.commands import completion  # a command's module loads when it runs

    top = parser(prog)
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))  # argparse keeps no public list
    visible = [c.dest for c in commands._choices_actions]
    options = {o for p in (top, *commands.choices.values()) for a in p._actions for o in a.option_strings if o.startswith("--")}
    out.write(completion.script(shell, visible, sorted(options)))
    return 0


def _needed(args: argparse.Namespace, servers: list[config.ServerConfig]) -> list[config.ServerConfig]:
    """The servers a command starts: the one that ``call``'s tool name, ``read --server`` or ``prompt SERVER/NAME``
    names; every server otherwise, and when the name fits none or several (two names that normalize alike, a
    name shortened with a hash)."""
    if args.command == "call":  # mcp__{server}__{tool} or SERVER.TOOL: a normalized name never holds "__" (the config refuses it)
        from harness.commands import call  # commands' modules: only for their command

        meant = call.server_of(args.tool, [s.name for s in servers])
        named = [s for s in servers if s.name == meant]
    elif args.command == "read" and args.server is not None:
        named = [s for s in servers if s.name == args.server]
    elif args.command == "prompt" and "/" in args.name:
        named = [s for s in servers if s.name == args.name.rpartition("/")[0]]
    else:
        return servers
    return named if len(named) == 1 else servers


def _stack(args: argparse.Namespace, servers: list[config.ServerConfig], err: TextIO, *,
           on_change: Callable[[Change], None] | None = None, warn: Callable[[str], None] | None = None,
           progress: Callable[[str], None] | None = None) -> Stack:
    """The stack of every command but chat. The user runs these by hand: nothing to ask permission for, no file to watch."""
    from harness.stack import Permissions, Stack, upto  # the SDK: only once there is something to connect

    return Stack(servers, None, upto(given=_parts(args, args.answer, err=err), without=(Permissions,)),
                 redactor=vars(args).get("redactor"), on_change=on_change, warn=warn, progress=progress)


async def _login(args: argparse.Namespace, server: config.ServerConfig, out: TextIO, err: TextIO) -> int:
    """``login``: that one server on the CLI's stack (its sign-in is the only thing that runs)."""
    from harness.commands import signin  # a command's module loads when it runs

    async with _stack(args, [server], err) as stack:
        return await signin.login(stack, server.name, out)


async def _doctor(args: argparse.Namespace, paths: config.Paths, out: TextIO, err: TextIO) -> int:
    """``doctor``: the files and entries read (nothing started), then every server that passed connected at once."""
    from harness.commands import doctor  # a command's module loads when it runs

    files, problems, servers = doctor.files_problems(paths, args.config, **config.options(args, err))
    found, notes = doctor.static(servers, prog=args.prog, paths=paths)
    problems += found
    states = {s.name: State.FAILED.value if any(p.server == s.name for p in found) else s.state.value for s in servers}
    start, oks = doctor.clean(servers, problems), []
    if start and not args.offline:
        async with _stack(args, start, err, warn=lambda text: err.write(f"warning: {text}\n")) as stack:
            await stack.connect_all()
            more, oks = doctor.connected(stack.hub, start, args.prog)
            problems += more
            for extension in EXTENSIONS:
                problems += await extension.problems(stack, args.prog)
            states.update({s.name: stack.hub.entries[s.name].state.value for s in start})
    return doctor.report(files, problems, notes, oks, states, args.json, out)


def _token_store(args: argparse.Namespace) -> Path:
    from harness import auth  # the SDK and httpx2: only a command that signs in

    return args.token_store or auth.default_store()


def _parts(args: argparse.Namespace, answers: list[str | JSONObject], model: Model | None = None,
           transcript: Transcript | None = None, err: TextIO | None = None) -> list[Part]:
    """The stack's parts the command line sets: sign-in, spill folder, who answers a permission, what servers may ask."""
    from harness import auth, elicit  # the SDK: only once there is something to connect
    from harness.stack import Asking, Auth, Output, Permissions

    script = elicit.Script(answers) if answers else None
    asker = elicit.Asker(transcript=transcript, ask=Ask.terminal_or_nobody(script))
    workspace = vars(args).get("workspace")  # chat's
    folder = args.root or workspace
    spill = workspace / ".mcp-output" if workspace else state_dir() / "output" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    return [
        Auth(_token_store(args), auth.auto_browser if args.sign_in == "auto" else _desktop_browser(err or sys.stderr)),
        Permissions(prompter=_prompter(args, script)),
        Output(spill, ".mcp-output" if workspace else ""),
        Asking(asker, elicit.Sampler(model or _NoModel(), asker, script if model is None else None),
               elicit.Roots(folder) if folder is not None else None),  # no folder: no roots capability at all
        *(part for extension in EXTENSIONS for part in extension.parts(args)),  # the lessons' own (harness.commands.extensions)
        *vars(args).get("plugged", ()),  # main(parts=...): a program's own
    ]


def _desktop_browser(err: TextIO) -> Callable[[str], Awaitable[None]]:
    """--sign-in browser: the authorization page printed on stderr, and opened in the desktop's browser if there is
    one; the loopback callback gets the answer."""
    from harness.commands import signin  # a command's module loads when it runs

    async def browse(url: str) -> None:
        import webbrowser  # only for a sign-in that shows a page

        import anyio  # the SDK's async library: --help does not load it

        signin.shown_url(url, err)
        if signin.has_desktop():
            await anyio.to_thread.run_sync(webbrowser.open, url)

    return browse


def _prompter(args: argparse.Namespace, script: Script | None) -> Asking:
    """Who answers a permission question: --yes, the scenario's answers and --answer (the same script as the servers'
    questions, so one list serves both, in order), the terminal, or nobody (no)."""
    from harness.permissions import Asking  # only a command that asks for permission (chat)

    return Asking(Ask.terminal_or_nobody(script, yes=bool(vars(args).get("yes"))))


def _failures(hub: Hub, err: TextIO, prog: str) -> int:
    """Each server that did not connect, as an error line on stderr; the exit code they make (2: its config, 1: other, 0: none)."""
    from harness.commands import doctor, signin  # commands' modules: only after a connect

    code = 0
    for name in sorted(hub.entries):
        entry = hub.entries[name]
        if entry.state is State.FAILED and entry.error is not None:
            err.write(f"error: {echo.text(str(entry.error))}\n")  # the harness's line breaks kept, a server's escaped
            if hint := doctor.first_run_hint(entry.spec, str(entry.error)):
                err.write(f"hint: {hint}\n")
            code = max(code, 2 if isinstance(entry.error, ConfigError) else 1)
        elif entry.state is State.NEEDS_AUTH:
            err.write(f"error: server '{name}': {signin.hint(prog, name)}\n")
            code = max(code, 1)
    return code


def _progress(err: TextIO) -> Callable[[Change], None]:
    def show(change: Change) -> None:
        if change.old is State.PENDING and change.new is not State.PENDING:  # how each connect ended, as it ends
            err.write(f"{change.server}: {change.new.value}\n")
            err.flush()

    return show


def _rows(hub: Hub, servers: list[config.ServerConfig], args: argparse.Namespace) -> list[JSONObject]:
    """``config.rows``, with what to do about a ``needs-auth`` or unapproved server as its error, and a first run's
    likely cause."""
    from harness.commands import approve, doctor, signin  # commands' modules: only after a connect

    rows, prog = config.rows(hub, servers), args.prog
    for row in rows:
        if row["state"] == State.NEEDS_AUTH.value:
            row["error"] = signin.hint(prog, row["name"])
        elif row["state"] == State.BLOCKED.value and "enabledMcpjsonServers" in (row["error"] or ""):  # the same words as doctor's
            row["error"] = f"server '{row['name']}': " + approve.hint(prog, row["name"], config.Paths(home=args.home, cwd=Path.cwd()))
        elif row["error"] and (hint := doctor.first_run_hint(hub.entries[row["name"]].spec, row["error"])):
            row["error"] += f" ({hint})"
    return rows


def _with_eras(rows: list[JSONObject], hub: Hub) -> list[JSONObject]:
    """Each row with ``era``: the protocol version its server speaks (s34), None when it is not connected."""
    return [{**row, "era": era.of(hub.entries[row["name"]].client)} for row in rows]


def _looked(args: argparse.Namespace) -> str:
    """Where the config was looked for, for a listing that found no server (as doctor says it)."""
    from harness.commands import doctor  # commands' modules: only when a listing found nothing

    paths = config.Paths(home=args.home, cwd=Path.cwd(), managed=args.managed)
    files = [str(f) for f in args.config] or [str(f) for f in doctor.scope_files(paths)]
    return f"read {', '.join(files)}" if files else \
        f"no config file found: looked for {paths.home / '.claude.json'} and .mcp.json from here up; give --config FILE"


def _servers(rows: list[JSONObject], as_json: bool, out: TextIO, looked: str = "") -> int:
    if as_json:
        out.write(json.dumps(rows, indent=1) + "\n")
        return 0
    if not rows:
        out.write(f"no MCP servers configured ({looked})\n" if looked else "no MCP servers configured\n")
    width = max((len(echo.line(r["name"])) for r in rows), default=0)
    kinds = max((len(r["transport"] or "-") + 1 for r in rows), default=0)  # http-or-sse is wider than most
    for r in rows:
        out.write(_server_line(r, width, max(6, kinds)) + "\n")
    return 0


def _server_line(r: JSONObject, width: int, kinds: int = 6) -> str:
    """One row of ``servers``, as a terminal shows it."""
    detail = echo.text(r["error"]) if r["error"] else f"{echo.count(len(r['tools']), 'tool')}: {echo.names(r['tools'])}"  # a terminal gets server text escaped
    return f"{echo.line(r['name']):<{width}}  {r['scope']:<10} {r['transport'] or '-':<{kinds}} {r['state']:<10} {r['era'] or '-':<10} {detail}"


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
        from harness.commands.call import signature  # commands' modules: only for their command

        called = [f"{row['name']}({signature(row['input_schema'])})" for row in rows]
        width = min(max((len(c) for c in called), default=0), 70)  # a long signature pushes its own line only
        for row, call in zip(rows, called):
            out.write(f"{call:<{width}}  {echo.line(row['description'], 300)}\n")  # a server's text: escaped, one line
    return 0
