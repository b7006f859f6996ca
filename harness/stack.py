"""The composition root: one place that builds the whole stack from a config.

Every lesson from s27 and the user CLI need the same wiring: ``Connections`` and a
``Hub``, every configured server added with a connector, and around the agent loop a
pool source and a policy. ``Stack`` builds all of it from the server list that
``config.load`` gives and a list of parts (``harness.parts.Part``), each a small object::

    parts = upto("s32", given=[Reload(settings, reread)], without=(Permissions,))
    async with Stack(servers, transcript, parts, tap=tap) as stack:
        await stack.connect_all()
        await run_agent(model, prompt, stack.pool(BASE, workspace.tools()), transcript, policy=stack.policy)

The parts, each with the lesson that introduced it; ``upto(lesson)`` gives those up to a
lesson that need nothing from the caller, and ``given=`` adds or replaces the rest::

    Naming        s21  the name checker: a server whose tools would collide is refused
    Auth          s26  OAuth for every server with a URL: needs-auth and its authenticate pseudo-tool
    Lifecycle     s28  every state change shown as a ``state:`` line
    Reconnect     s28  a supervisor with ``lifecycle.Backoff()`` for every connection
    Reload        s29  the settings file watched; each edit (read again with ``reread``) applied before the next turn
    Resources     s30  the two resource tools while a server offers resources; its queued logs each turn
    Permissions   s31  the before-call hook: rules, autoApprove, annotations; denied tools not offered
    Screen        s31  a warning when a tool's description reads as instructions to the model
    Output        s32  the after-result, render and show hooks: every block for the Messages API, the cap, spill files
    Asking        s33  what servers may ask: forms and pages (``asker``), samples (``sampler``), folders (``roots``)
    Eras          s34  each server's protocol era negotiated (or pinned by its ``protocol`` field), and a
                       2026-07-28 session's side (``harness.modern``); without it, every server opens with ``initialize``
    Cache         s34  a 2026-07-28 answer reused for its ttlMs (``harness.cache``); without it, every list and read is sent

Every connection also gets the mechanisms of s25, s30 and s33 that cost nothing unless a
server uses them: an expired HTTP session re-initialized, resources and prompts listed,
input-required rounds answered (with the callbacks ``Asking`` gives, or none). A
connection's mechanisms are sorted by their ``order`` (``harness.hooks``).

Leaving ``async with`` closes every server (the hub), every connection and every
authorization listener, in that order, on every exit: an error, Ctrl-C, a signal.

Not handled here: a server added later by a reload with a URL gets no OAuth (its
authorizer would have to be opened in this task), and an edited ``autoApprove`` or
``maxOutputTokens`` applies from the next run; the prompts a user picks
(``resources.expand``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, NoReturn, TypeVar

import anyio

from harness import auth, cache, config, elicit, era, lifecycle, modern, naming, output, permissions, pool, reload, resources
from harness.connection import Connections
from harness.errors import ConfigError, ServerError
from harness.expiry import SessionExpiry
from harness.hooks import Mechanism
from harness.hub import Accept, Change, Hub
from harness.loop import Policy, Turn
from harness.parts import Built, Connector, Opener, Part
from harness.redact import Redactor
from harness.tools import Tool
from harness.transcript import Transcript

if TYPE_CHECKING:
    import httpx2

    from harness.client import Client
    from harness.hooks import SessionCallback
    from harness.opening import Handshake
    from harness.wire import WireTap

P = TypeVar("P", bound=Part)


# -- the parts -----------------------------------------------------------------------------


@dataclass
class Naming(Part):
    lesson: ClassVar[str] = "s21"

    def accept(self, transcript: Transcript | None) -> Accept:
        said = transcript if transcript is not None else Transcript()  # no transcript: the warnings go nowhere
        return naming.checker(said.warning, said.note)


@dataclass
class Auth(Part):
    """``token_store``: where tokens are kept (None: a folder for this stack's life); ``browser``: how a sign-in is shown."""

    lesson: ClassVar[str] = "s26"
    token_store: Path | None = None
    browser: auth.Browser | None = None
    store: Path | None = field(default=None, init=False)  # where the tokens are (None: no server uses OAuth)
    authorizers: dict[str, auth.Authorizer] = field(default_factory=dict, init=False)

    async def enter(self, built: Built) -> None:
        remote = []
        for server in built.servers:
            if server.spec is None or server.spec.url is None:
                continue
            try:
                remote.append((server.name, config.expand(server.spec, built.environ).url))
            except ConfigError:
                continue  # its connect fails with that error; there is nothing to authorize
        if not remote:
            return
        self.store = self.token_store or built.exits.enter_context(auth.temporary_store())
        said = built.transcript if built.transcript is not None else Transcript(redactor=built.redact)  # the exchange is not shown
        for name, url in remote:
            authorizer = auth.Authorizer(name, url, self.store, said, **({"browser": self.browser} if self.browser else {}))
            self.authorizers[name] = await built.exits.enter_async_context(authorizer)
        built.found["authorizers"] = self.authorizers

    def connector(self, server: config.ServerConfig, opener: Opener, built: Built) -> Connector | None:
        authorizer = self.authorizers.get(server.name)
        return None if authorizer is None else auth.connector(authorizer, opener, built.hub)


@dataclass
class Lifecycle(Part):
    lesson: ClassVar[str] = "s28"

    def on_change(self, transcript: Transcript | None) -> Callable[[Change], None] | None:
        return lifecycle.show(transcript) if transcript is not None else None


@dataclass
class Reconnect(Part):
    lesson: ClassVar[str] = "s28"
    backoff: lifecycle.Backoff = field(default_factory=lifecycle.Backoff)

    def mechanisms(self, server: config.ServerConfig, built: Built) -> Sequence[Mechanism]:
        return [lifecycle.Supervisor(self.backoff)]


@dataclass
class Reload(Part):
    """``watch``: the settings file; ``reread()``: the servers it now configures; ``shown``: its name in messages."""

    lesson: ClassVar[str] = "s29"
    watch: Path
    reread: Callable[[], list[config.ServerConfig]]
    shown: str | None = None
    reloader: reload.Reloader | None = field(default=None, init=False)

    async def started(self, built: Built) -> None:
        self.reloader = reload.Reloader(built.hub, self.watch, self.reread, built.servers, built.connector, built.transcript,
                                        shown=self.shown)
        watching = await built.exits.enter_async_context(anyio.create_task_group())
        built.exits.callback(watching.cancel_scope.cancel)  # runs first on leaving: the watcher stops, then the task group ends
        watching.start_soon(self.reloader.run)

    async def before_turn(self, built: Built) -> None:
        if self.reloader is not None:
            await self.reloader.settled()  # an edit made during the last turn is applied before this one


@dataclass
class Resources(Part):
    lesson: ClassVar[str] = "s30"

    def builtins(self, tools: Sequence[Tool], built: Built) -> Sequence[Tool]:
        return resources.WithResources(tools, built.hub)

    async def before_turn(self, built: Built) -> None:
        resources.show_logs(built.hub, built.transcript)  # what servers said between calls, before this turn


@dataclass
class Permissions(Part):
    """``rules``: allow, ask and deny; ``prompter``: who answers an ask (None: nobody, so no)."""

    lesson: ClassVar[str] = "s31"
    rules: permissions.Rules | None = None
    prompter: permissions.Prompter | None = None
    permissions: permissions.Permissions | None = field(default=None, init=False)
    _said: set[str] = field(default_factory=set, init=False)

    async def enter(self, built: Built) -> None:
        entries = [s for s in built.servers if s.spec is not None]
        self.permissions = permissions.Permissions(self.rules or permissions.Rules(), prompter=self.prompter,
                                                   auto_approve=permissions.auto_approve(entries), transcript=built.transcript)
        built.found["prompter"] = self.permissions.prompter  # who asks the user: a later part asks through it too
        built.found["permissions"] = self.permissions  # s38's subagents leave out what a deny rule names, as here

    def offered(self, turn: Turn, built: Built) -> Turn:
        assert self.permissions is not None
        visible, hidden = self.permissions.split(turn.tools)  # the same two objects again while the pool is the same
        for name, rule in hidden.items():  # deny rules hide tools: say so once
            if name not in self._said and built.transcript is not None:
                self._said.add(name)
                built.transcript.note(f"{name} is not offered: deny rule {rule}")
        return Turn(turn.system, visible)

    def policy(self, policy: Policy, built: Built) -> Policy:
        assert self.permissions is not None
        return replace(policy, before_call=self.permissions.before_call)


@dataclass
class Screen(Part):
    lesson: ClassVar[str] = "s31"
    screen: permissions.Screen | None = field(default=None, init=False)

    async def enter(self, built: Built) -> None:
        self.screen = permissions.Screen(built.transcript)

    async def connected(self, built: Built) -> None:
        self._check(built)

    async def before_turn(self, built: Built) -> None:
        self._check(built)

    def _check(self, built: Built) -> None:
        if self.screen is not None:
            self.screen.check(built.hub.clients)


@dataclass
class Output(Part):
    """``spill``: the folder long results and binary blocks go to (None: one for this stack's life); ``shown_as``: its name."""

    lesson: ClassVar[str] = "s32"
    spill: Path | None = None
    shown_as: str = ""
    output: output.Output | None = field(default=None, init=False)

    async def enter(self, built: Built) -> None:
        folder = self.spill
        if folder is None:
            folder = Path(tempfile.mkdtemp(prefix="mcp-course-output-"))
            built.exits.callback(shutil.rmtree, folder, ignore_errors=True)
        entries = [s for s in built.servers if s.spec is not None]
        self.output = output.Output(folder, shown_as=self.shown_as, transcript=built.transcript, caps=output.caps(entries))

    def policy(self, policy: Policy, built: Built) -> Policy:
        assert self.output is not None
        return replace(policy, after_result=self.output.after_result, render=self.output.render, show=self.output.show)


@dataclass
class Asking(Part):
    """What a server may ask for: the user (``asker``), the model (``sampler``), the folders (``roots``); each optional.
    A session declares a capability exactly for what is given."""

    lesson: ClassVar[str] = "s33"
    asker: elicit.Asker | None = None
    sampler: elicit.Sampler | None = None
    roots: elicit.Roots | None = None

    def callbacks(self, server: config.ServerConfig) -> Mapping[str, SessionCallback]:
        return elicit.callbacks(server.name, asker=self.asker, sampler=self.sampler, roots=self.roots)


@dataclass
class Eras(Part):
    lesson: ClassVar[str] = "s34"

    def handshake(self, server: config.ServerConfig) -> Handshake:
        return era.handshake(era.protocol(server))

    def mechanisms(self, server: config.ServerConfig, built: Built) -> Sequence[Mechanism]:
        return modern.mechanisms()


@dataclass
class Cache(Part):
    lesson: ClassVar[str] = "s34"

    def mechanisms(self, server: config.ServerConfig, built: Built) -> Sequence[Mechanism]:
        authorizer = built.found.get("authorizers", {}).get(server.name)
        return [cache.ResponseCache(cache.Settings(partition=cache.partition(authorizer)))]


def mechanisms(callbacks: Mapping[str, SessionCallback] | None = None, *, eras: bool = False) -> list[Mechanism]:
    """What every connection of a stack has, for a caller that opens connections itself: an expired HTTP session
    re-initialized (s25), resources and prompts (s30), input-required rounds answered with ``callbacks`` (s33); with
    ``eras``, a 2026-07-28 session's side too (s34). Sorted by ``order``: the first is outermost."""
    found: list[Mechanism] = [SessionExpiry(), resources.Offering(), elicit.InputRounds(callbacks or {})]
    if eras:
        found += modern.mechanisms()
    return sorted(found, key=lambda m: m.order)


DEFAULTS: tuple[type[Part], ...] = (Naming, Auth, Lifecycle, Reconnect, Resources, Permissions, Screen, Output, Eras, Cache)


def upto(lesson: str | None = None, *, given: Iterable[Part] = (), without: tuple[type[Part], ...] = ()) -> list[Part]:
    """The parts introduced up to ``lesson`` (every one: None), in lesson order: each of ``DEFAULTS``, or the part of
    its kind in ``given``, which also adds the parts that need the caller (``Reload``, ``Asking``); less ``without``."""
    given = list(given)
    kinds = [*DEFAULTS, *(type(p) for p in given if type(p) not in DEFAULTS)]
    chosen = []
    for kind in sorted(kinds, key=lambda k: k.lesson or "~"):  # stable: the order above within a lesson; a lessonless part last
        if (lesson is not None and kind.lesson > lesson) or issubclass(kind, without):
            continue
        part = next((p for p in given if type(p) is kind), None)
        chosen.append(part if part is not None else kind())
    return chosen


# -- the stack -----------------------------------------------------------------------------


class Stack:
    """Connections, hub, connectors, pool and policy for ``servers`` with ``parts``; an async context manager."""

    def __init__(self, servers: Sequence[config.ServerConfig], transcript: Transcript | None = None,
                 parts: Sequence[Part] | None = None, *, environ: Mapping[str, str] = os.environ, tap: WireTap | None = None,
                 on_change: Callable[[Change], None] | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None, redactor: Redactor | None = None) -> None:
        self.servers = list(servers)
        self.transcript = transcript
        # Where every secret of this stack is registered (config values, tokens): the transcript's, or the caller's.
        self.redact = transcript.redact if transcript is not None else redactor or Redactor()
        self.parts = list(upto() if parts is None else parts)
        self.environ, self.tap = environ, tap
        self._on_change, self._warn, self._progress = on_change, warn, progress
        self._exits = AsyncExitStack()
        self.built: Built  # set on entering
        self.hub: Hub

    def find(self, kind: type[P]) -> P | None:
        """The part of this kind in the stack, or None if it was left out."""
        return next((p for p in self.parts if isinstance(p, kind)), None)

    @property
    def token_store(self) -> Path | None:
        """Where the tokens are (None: no server uses OAuth): keep the file tools out of it."""
        part = self.find(Auth)
        return part.store if part is not None else None

    async def __aenter__(self) -> Stack:
        try:
            await self._build()
        except BaseException:
            await self._exits.aclose()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> bool | None:
        return await self._exits.__aexit__(*exc_info)

    async def _build(self) -> None:
        # Entered in this order, so closed in reverse: what the parts open (an authorization listener) outlives the
        # connections, which outlive the hub's servers; a part started last (the reload watcher) stops first.
        self.built = built = Built(self.transcript, self.redact, self.servers, self.environ, self._exits, self.connector)
        for part in self.parts:
            await part.enter(built)
        built.conns = await self._exits.enter_async_context(Connections(self.transcript, warn=self._warn, progress=self._progress))
        accept = next((a for p in self.parts if (a := p.accept(self.transcript)) is not None), None)
        on_change = self._on_change or next((c for p in self.parts if (c := p.on_change(self.transcript)) is not None), None)
        self.hub = built.hub = await self._exits.enter_async_context(Hub(self.transcript, accept=accept, on_change=on_change))
        config.add_to(self.hub, self.servers, self.connector)
        for part in self.parts:
            await part.started(built)

    # -- what the hub, reload and the loop get --

    def connector(self, server: config.ServerConfig) -> Connector:
        """The hub connector for ``server`` with every part applied: what ``config.add_to`` and a reload take."""
        try:
            handshake = next((h for p in self.parts if (h := p.handshake(server)) is not None), None)
        except ConfigError as exc:  # that server fails with the reason; the others go on
            said = str(exc)

            async def broken() -> NoReturn:
                raise ServerError(said)

            return broken
        built = self.built

        def plugged() -> list[Mechanism]:
            callbacks: dict[str, SessionCallback] = {}
            for part in self.parts:
                callbacks.update(part.callbacks(server))
            found = mechanisms(callbacks) + [m for part in self.parts for m in part.mechanisms(server, built)]
            return sorted(found, key=lambda m: m.order)

        era_handshake = handshake

        def opener(*, auth: httpx2.Auth | None = None, handshake: Handshake | None = None) -> Awaitable[Client]:
            # The era's handshake wins: each of its steps already stops the connect clock at a sign-in (s26's does too).
            return config.connector(server, built.conns, self.environ, tap=self.tap, handshake=era_handshake or handshake,
                                    auth=auth, mechanisms=plugged, redactor=self.redact)()

        for part in self.parts:
            if (wrapped := part.connector(server, opener, built)) is not None:
                return wrapped
        return lambda: opener()

    async def connect_all(self) -> None:
        """Connect every pending server at once (``Hub.connect_all``); then each part looks (the screen, at each tool)."""
        await self.hub.connect_all()
        for part in self.parts:
            await part.connected(self.built)

    async def prompted(self, prompt: str) -> str:
        """The user's prompt once each part has had it, in the parts' order (s37: a typed ``/server:prompt`` expanded)."""
        for part in self.parts:
            prompt = await part.prompted(prompt, self.built)
        return prompt

    def pool(self, base: str, builtins: Sequence[Tool], report: Callable[[str], None] | None = None) -> Callable[[], Awaitable[Turn]]:
        """The pool source (s22's ``pool.rebuilt``) with what each part does on each turn, in the parts' order: before the
        turn (an edit applied, logs shown, new tools screened), then the offered turn (denied tools left out)."""
        built = self.built
        for part in self.parts:
            builtins = part.builtins(builtins, built)
        rebuilt = pool.rebuilt(base, builtins, self.hub.clients, report=report, entries=self.hub.entries)  # needs-auth is not "connected"

        async def turn() -> Turn:
            for part in self.parts:
                await part.before_turn(built)
            offered = rebuilt()
            for part in self.parts:
                offered = part.offered(offered, built)
            return offered

        return turn

    @property
    def policy(self) -> Policy:
        """The composed policy: each part's hooks in turn (permissions' before-call, then output's after-result, ...)."""
        policy = Policy()
        for part in self.parts:
            policy = part.policy(policy, self.built)
        return policy
