"""The lesson runner: options, model choice, workspace, signals, exit codes.

A lesson's ``code.py`` is wiring: ``main(argv, out)`` hands this module its docstring
and an async ``session(run)`` that builds the lesson's tool pool and runs the agent.
Everything else is the same in every lesson and lives here:

    --live              the real Anthropic API instead of the scripted model
    --model NAME        live model (default: $ANTHROPIC_MODEL, then DEFAULT_LIVE_MODEL)
    --prompt TEXT       with --live: the user prompt (default: the scenario's)
    --scenario FILE     replay another script (default: the lesson's scenario.yaml)
    --workspace DIR     the folder the file tools may touch (default: a fresh temp folder)
    --max-turns N       stop after N model turns (N >= 1)
    --deterministic     placeholders for ports, paths and the interpreter, as the pinned
                        transcripts show them (the snapshot tests pass it)

Exit codes: 0 the run finished (or its reader left: ``| head``); 1 the run stopped on a
harness error, printed as the transcript's last line ``error: ...``; 2 bad usage or a
missing API key (one line on stderr); 130 interrupted (Ctrl-C); 143 terminated
(SIGTERM); 129 hung up (SIGHUP: the terminal closed). On each of these signals, whenever
it comes, every server is stopped and the temporary workspace removed before the exit,
within the shutdown graces. Never a traceback, unless the harness itself has a bug.

``kill -9`` cannot be caught: the servers still die (they watch their parent: see
``harness/transports/stdio.py`` and ``mock_servers/lifeline.py``), but the temporary
workspace stays behind, as ``mcp-course-*`` in the system's temporary folder.

The options are parsed before anything slow happens, and this module imports no SDK: a
lesson's ``code.py`` imports the SDK inside its ``session``, so ``--help`` and a bad command
line are answered in about a tenth of a second of CPU, not one and a half
(``tests/test_lessons.py`` checks that neither imports the SDK).

(``python -m harness`` is the user CLI, not this: this runner serves lessons.)

Introduced by s19.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from harness import sdk_half, sdklog, signals
from harness.cli_types import Parser, positive
from harness.errors import HarnessError, ServerError, UsageError
from harness.exits import exit_now
from harness.hub import Hub, unavailable
from harness.jsonvalue import JSONObject
from harness.loop import DEFAULT_MAX_TURNS, Policy, PoolSource, run_agent
from harness.model import DEFAULT_LIVE_MODEL, Model, Scenario, ScriptedModel, live_model
from harness.spec import ServerSpec, Timeouts
from harness.tools import Workspace
from harness.transcript import Normalizer, Transcript

if TYPE_CHECKING:
    from harness.hooks import Mechanism
    from harness.permissions import Prompter
    from harness.wire import WireTap

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Run:
    """Everything a lesson's session gets."""

    args: argparse.Namespace
    model: Model
    prompt: str
    transcript: Transcript
    workspace: Workspace

    async def agent(self, pool: PoolSource, policy: Policy = Policy()) -> list[JSONObject]:
        """Run the agent loop on this run's model, prompt and transcript."""
        return await run_agent(self.model, self.prompt, pool, self.transcript, self.args.max_turns, policy)


Session = Callable[["Run"], Awaitable[None]]
Options = Callable[[argparse.ArgumentParser], None]


def run_lesson(lesson_file: str, doc: str | None, argv: list[str] | None, out: TextIO, session: Session, options: Options | None = None) -> int:
    """Parse ``argv``, build the model and workspace, run ``session``; return the exit code.

    When the lesson is the program (``python lessons/sNN/code.py``), it loads the client
    half of the SDK only (``harness.sdk_half``), and the process ends here with the code
    through ``harness.exits.exit_now``, past the interpreter's teardown: every server is
    stopped and the workspace removed by then. Called in process (the
    tests' ``main(argv, out)``), it returns the code.
    """
    program = _is_program(lesson_file)
    if program:
        sdk_half.load_only("client")  # nothing imported mcp yet: the options come first
    code = _run(lesson_file, doc, argv, out, session, options)
    if program:
        exit_now(code)
    return code


def _is_program(lesson_file: str) -> bool:
    program = getattr(sys.modules.get("__main__"), "__file__", None)
    return program is not None and Path(program).resolve() == Path(lesson_file).resolve()


def _run(lesson_file: str, doc: str | None, argv: list[str] | None, out: TextIO, session: Session, options: Options | None) -> int:
    args = _parser(doc or "", options).parse_args(argv)
    normalizer = Normalizer() if args.deterministic else None
    transcript = Transcript(out, normalizer)
    if normalizer is not None:
        normalizer.add(sys.executable, "python")  # s23 on: servers run as `python -m ...`, whatever the venv
    try:
        # From here on a signal raises signals.Stopped, so every `finally` runs; the SDK's logs are lines of ours.
        with signals.trapped() as trap, sdklog.routed(sys.stderr):
            model, prompt = _model(args, Path(lesson_file).resolve().parent)
            with _workspace(args.workspace, trap) as root:
                if normalizer is not None:
                    normalizer.add(str(root), "<workspace>")
                run = Run(args, model, prompt, transcript, Workspace(root))
                signals.run(lambda: session(run), trap)  # Ctrl-C and SIGTERM stop it; errors come out as one
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return signals.reader_left()
    except HarnessError as exc:
        return _last_word(transcript, str(exc), 1)
    except signals.Stopped as stop:
        return _last_word(transcript, str(stop), stop.code)
    except KeyboardInterrupt:  # a Ctrl-C outside the session (before the event loop ran)
        return _last_word(transcript, "interrupted", 130)
    return 0


def _last_word(transcript: Transcript, text: str, code: int) -> int:
    try:
        transcript.error(text)
    except BrokenPipeError:
        return signals.reader_left()
    except OSError:  # a terminal that hung up (EIO): nobody is left to read the word
        pass
    return code


def _parser(doc: str, options: Options | None) -> argparse.ArgumentParser:
    title, _, rest = doc.strip().partition("\n")
    parser = Parser(description=title, epilog=rest.strip() or None, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--live", action="store_true", help="use the real Anthropic API (needs ANTHROPIC_API_KEY)")
    parser.add_argument("--model", help=f"live model name (default: $ANTHROPIC_MODEL, else {DEFAULT_LIVE_MODEL})")
    parser.add_argument("--prompt", help="with --live: the user prompt (default: the scenario's)")
    parser.add_argument("--scenario", type=Path, help="scenario to replay (default: the lesson's scenario.yaml)")
    parser.add_argument("--workspace", type=Path, help="folder the file tools may use (default: a fresh temporary folder)")
    parser.add_argument("--max-turns", type=positive, default=DEFAULT_MAX_TURNS, metavar="N", help=f"stop after this many model turns (default: {DEFAULT_MAX_TURNS})")
    parser.add_argument("--deterministic", action="store_true", help="placeholders for ports, paths and the interpreter, as the pinned transcripts show them")
    if options:
        options(parser)
    return parser


def _model(args: argparse.Namespace, lesson_dir: Path) -> tuple[Model, str]:
    path = args.scenario or lesson_dir / "scenario.yaml"
    if args.prompt and not args.live:
        raise UsageError("--prompt goes with --live: offline, the scripted model replays its scenario")
    if args.scenario is not None and not args.scenario.is_file():
        raise UsageError(f"--scenario: no such file: {args.scenario}")
    if args.live:
        model = live_model(args.model)
        return model, args.prompt or Scenario.load(path, display_path(path)).prompt
    scenario = Scenario.load(path, display_path(path))
    return ScriptedModel(scenario), args.prompt or scenario.prompt


def display_path(path: Path) -> str:
    """A path as messages print it: relative to the repository when inside it, else as given."""
    resolved = path.resolve()
    return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else str(path)


@contextmanager
def _workspace(given: Path | None, trap: signals.Trap) -> Iterator[Path]:
    if given is not None:
        if not given.is_dir():
            raise UsageError(f"--workspace: no such folder: {given}")
        yield given.resolve()
        return
    tmp = None
    try:
        with trap.held():  # a signal between mkdir and the assignment would leave the folder unnamed, so unremoved
            tmp = tempfile.mkdtemp(prefix="mcp-course-")
        yield Path(tmp).resolve()
    finally:
        if tmp is not None:
            signals.finish(lambda: shutil.rmtree(tmp, ignore_errors=True))


def prompter(run: Run) -> Prompter:
    """Who answers a permission question in a lesson: the terminal in a live run at one, else the scenario's
    answers, else nobody (so every question is a no)."""
    from harness import permissions  # s31's module: only for the lessons that ask permission

    if run.args.live and sys.stdin.isatty():
        return permissions.TerminalPrompter()
    answers = getattr(getattr(run.model, "scenario", None), "answers", ())
    return permissions.ScriptedPrompter(answers) if answers else permissions.NoPrompter()


async def http_hub(run: Run, stack: AsyncExitStack, transport: str, flags: dict[str, list[str]], tap: WireTap | None,
                   call_timeout: float, mechanisms: Callable[[], Sequence[Mechanism]] = tuple) -> Hub:
    """s24 to s25's wiring: each mock server in ``flags`` served over ``transport`` on 127.0.0.1, added to a new hub.

    Everything it opens is entered on ``stack`` (an ``AsyncExitStack``): the servers first,
    then the connections and the hub, so leaving it closes the hub's sessions before it
    stops the processes. A server that did not start is said, and left to ``connect_mcp``
    to explain. The SDK is imported here, after the command line was parsed.
    """
    from harness import naming  # hashlib and OpenSSL: --help does not load them
    from harness.connection import Connections  # the SDK: only a lesson with HTTP servers, after its options are parsed
    from mock_servers.launch import serve_all  # the course's mock servers: only that lesson's

    urls = await serve_all(stack, transport, flags)
    for name, url in urls.items():
        run.transcript.note(f"{name} server did not start: {url}" if isinstance(url, ServerError) else f"{name} server is listening at {url}")
    conns = await stack.enter_async_context(Connections(run.transcript, timeouts=Timeouts(call=call_timeout)))
    hub = await stack.enter_async_context(Hub(run.transcript, accept=naming.checker(run.transcript.warning, run.transcript.note)))
    for name, url in urls.items():
        if isinstance(url, ServerError):
            hub.add(name, unavailable(url))  # connect_mcp will say why
            continue
        spec = ServerSpec(name, transport, url=url)
        hub.add(name, conns.connector(spec, tap=tap, mechanisms=mechanisms), spec)
    return hub
