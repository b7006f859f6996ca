"""s35: the capstone. The whole hub in one loop, on the course's servers or on your own config.

New here: nothing in the harness but `harness/survey.py`. This run is the user CLI's
`chat` (the same `Stack`, every part on, the same loop) on a config written the way a
Claude Code user writes one: a user scope (~/.claude.json) and a project .mcp.json,
with an enterprise policy beside them. It holds the course's servers over stdio
(deploy, media, desk, desk2026), SSE (handbook) and Streamable HTTP (notes, and docs behind
OAuth), one broken entry (wiki has no command) and one blocked server (shell). desk and
notes are pinned to the handshake era ("protocol": "2025-11-25"), desk2026 to 2026-07-28;
the others negotiate theirs (s34). In one run:

- every server connects at once, each state shown; wiki and shell cost only themselves;
- docs needs authorization: the model signs in through mcp__docs__authenticate;
- deploy crashes on its second call: failed, then pending with a backoff wait, then
  spawned again when the model calls it;
- the user fixes wiki's entry in .mcp.json; the edit is applied before the next turn;
- the conversation starts from handbook's summarize prompt; the model reads a resource;
- add_note is not marked read-only: the user answers "always", and the next one runs
  unasked; media's chart is an image block and its report is cut at the cap and spilled;
- desk asks for a form while a call runs; desk2026, which cannot send requests, answers
  "input required" with a form instead, and the harness calls again with the answer;
- notes forgets its sessions after two calls: the third re-initializes and is retried.
The run ends with every server closed, and says how many processes are left: none.

With --config FILE the same loop runs on your own mcpServers file. Without a --scenario of
yours, the scripted model (harness/survey.py) lists your servers and tools, calls one
read-only tool per server, and sums up; anything not read-only is asked about first
(and with nobody at the terminal, the answer is no).

Not here: the connect_mcp tool (s20), since every server comes from the files.

New module: harness/survey.py

Run: python lessons/s35/code.py                      (offline: scripted model and answers)
     python lessons/s35/code.py --wire               (and every JSON-RPC frame)
     python lessons/s35/code.py --config FILE        (your own servers, surveyed read-only)
     python lessons/s35/code.py --config FILE --live (your own servers, the real model)
"""

import dataclasses
import json
import os
import shutil
import sys
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from harness import config, lesson, wire
from harness.errors import ServerError, UsageError

BASE = "You are a coding agent. Use the tools to answer; be brief."
HERE = Path(__file__).resolve().parent / "config"
NETWORK = {"handbook": ("HANDBOOK_URL", "sse", ()), "notes": ("NOTES_URL", "http", ("--forget-sessions-after", "2")),
           "docs": ("DOCS_URL", "http", ())}  # started before the agent, like remote servers; docs behind OAuth
FIX_BEFORE_TURN = 5  # the user fixes wiki's entry before the model's fifth turn
WIKI_FIXED = {"command": "${PYTHON}", "args": ["-m", "mock_servers.serve", "acme wiki", "--transport", "stdio"]}


def lay_out(root: Path) -> config.Paths:
    """lessons/s35/config/ copied into the workspace: a home, a project and a managed folder, as a user has them."""
    shutil.copytree(HERE, root, dirs_exist_ok=True)
    user = root / "home" / ".claude.json"  # the project's approvals are keyed by its path, which only now exists
    user.write_text(user.read_text(encoding="utf-8").replace("{project}", json.dumps(str(root / "project"))[1:-1]), encoding="utf-8")
    return config.Paths(home=root / "home", cwd=root / "project", managed=root / "managed")


def fix_wiki(project: Path) -> None:
    """What the user does in their editor: give wiki the command it lacked."""
    path = project / ".mcp.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["mcpServers"]["wiki"] = WIKI_FIXED
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def children() -> set[str]:
    """This process's children, by pid (Linux's /proc; none where it cannot tell)."""
    try:
        return {pid for task in Path(f"/proc/{os.getpid()}/task").iterdir() for pid in (task / "children").read_text().split()}
    except OSError:
        return set()


@asynccontextmanager
async def served(wanted):
    """The network servers, started all at once (their start-ups overlap); their URLs by name while the block lasts."""
    import anyio

    from mock_servers.launch import serve_http

    urls, failed, stop, body_error = {}, [], anyio.Event(), None

    async def one(name, transport, flags, ready):
        try:
            async with serve_http(name, transport, *flags, module="mock_servers.protected" if name == "docs" else None) as url:
                urls[name] = url
                ready.set()
                await stop.wait()
        except ServerError as exc:
            failed.append(exc)
        finally:
            ready.set()

    async with anyio.create_task_group() as group:
        readies = {name: anyio.Event() for name in wanted}
        for name, (_, transport, flags) in wanted.items():
            group.start_soon(one, name, transport, flags, readies[name])
        for ready in readies.values():
            await ready.wait()
        try:
            if not failed:
                yield urls
        except BaseException as exc:  # re-raised below, bare: not in the task group's ExceptionGroup
            body_error = exc
        finally:
            stop.set()
    if body_error is not None:
        raise body_error
    if failed:
        raise failed[0]


async def desktop_browser(url: str) -> None:
    """A sign-in to one of your servers: the page opens in your browser; its loopback callback gets the answer."""
    import webbrowser

    import anyio

    await anyio.to_thread.run_sync(webbrowser.open, url)


async def session(run: lesson.Run) -> None:
    from harness import auth, elicit, era, permissions, resources, survey
    from harness.ask import Ask
    from harness.stack import Asking, Auth, Output, Permissions, Reload, Stack, upto  # the SDK: after the command line is parsed

    args = run.args
    own = args.config is not None
    if own and not args.config.is_file():
        raise UsageError(f"--config: no such file: {args.config}")
    already = children()  # a test runs the lesson in its own process, beside what it started
    with wire.recording(run.transcript, args) as tap:
        async with AsyncExitStack() as started:  # the network servers: stopped after the stack is closed
            if own:
                paths = config.Paths(cwd=Path.cwd())  # the file replaces the scopes; the enterprise policy still applies
                files, watched, environ = [args.config], args.config, os.environ
                if not args.live and args.scenario is None:  # no script of the user's own: survey their servers
                    run = dataclasses.replace(run, model=survey.Survey(), prompt=survey.PROMPT)
            else:
                paths = lay_out(run.workspace.root)
                files, watched, environ = [], paths.cwd / ".mcp.json", {"PYTHON": sys.executable}
                urls = await started.enter_async_context(served(NETWORK))
                for name, (variable, transport, _) in NETWORK.items():
                    environ[variable] = urls[name]
                    run.transcript.note(f"{name} is listening at {urls[name]} ({transport}{', OAuth' if name == 'docs' else ''}): ${{{variable}}} in the config")
            servers = config.load(paths, files)
            for source in sorted({s.source for s in servers}):
                run.transcript.note(f"read {source}: {', '.join(s.name for s in servers if s.source == source)}")
            # The answers: the scenario's, else the terminal's (--live), else nobody's (no); one list for both kinds of question.
            answers = getattr(getattr(run.model, "scenario", None), "answers", None)
            script = elicit.Script(answers) if answers and not args.live else None
            asker = elicit.Asker(transcript=run.transcript, ask=Ask.terminal_or_nobody(script))
            # Your own servers as the CLI has them: tokens kept in its store, a sign-in in your browser, no roots offered
            # (a server keeps the folders its own entry names); the course's consent at once, in a store for this run.
            signing_in = Auth(auth.default_store(), desktop_browser) if own else Auth(browser=auth.auto_browser)
            roots = None if own else elicit.Roots(run.workspace.root)
            parts = upto(given=[signing_in, Reload(watched, lambda: config.load(paths, files), watched.name),
                                Permissions(prompter=permissions.Asking(Ask.terminal_or_nobody(script))),
                                Output(run.workspace.root / ".mcp-output", ".mcp-output"),
                                Asking(asker, elicit.Sampler(run.model, asker, script), roots)])
            async with Stack(servers, run.transcript, parts, environ=environ, tap=tap) as stack:
                await stack.connect_all()  # all at once; each state change is a line
                for row in config.rows(stack.hub, servers):  # as `python -m harness servers` lists them, each with its era (s34)
                    speaks = era.of(stack.hub.entries[row["name"]].client)
                    detail = f": {row['error']}" if row["error"] else f": {len(row['tools'])} tools" if row["state"] == "connected" else ""
                    run.transcript.note(f"{row['name']} ({row['scope']}, {row['transport'] or 'no transport'}"
                                        f"{', ' + speaks if speaks else ''}): {row['state']}{detail}")
                prompt = run.prompt
                if not own and not args.prompt and "handbook" in stack.hub.clients:
                    run.transcript.note("the user picks handbook's summarize prompt with title=onboarding, after their request")
                    prompt += "\n\n" + await resources.expand(stack.hub.clients["handbook"], "summarize", {"title": "onboarding"})
                private = [stack.token_store] if stack.token_store is not None else []
                rebuilt, turns = stack.pool(BASE, run.workspace.keep_out(*private).tools()), 0

                async def turn():
                    nonlocal turns
                    turns += 1
                    if turns == FIX_BEFORE_TURN and not own:
                        fix_wiki(paths.cwd)
                        run.transcript.note("the user gives wiki its command in .mcp.json")
                    return await rebuilt()

                await dataclasses.replace(run, prompt=prompt).agent(turn, stack.policy)
        run.transcript.note(f"every server is closed: {len(children() - already)} processes left running")


def options(parser) -> None:
    wire.options(parser)
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="run on your own mcpServers file (.mcp.json, ~/.claude.json, cline_mcp_settings.json, ...)")


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
