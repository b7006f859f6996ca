"""The composition root: one place that builds the whole stack from a config.

Every lesson from s27 and the user CLI need the same wiring: ``Connections`` and a
``Hub``, every configured server added with a connector, and around the agent loop a
pool source and a policy. ``Stack`` builds all of it, from the server list that
``config.load`` gives, with every mechanism the course has built switched on::

    async with Stack(servers, transcript, until="s32", without={"permissions"}, tap=tap) as stack:
        await stack.connect_all()
        await run_agent(model, prompt, stack.pool(BASE, workspace.tools()), transcript, policy=stack.policy)

The parts, each with the lesson that introduced it:

    naming       s21  the name checker: a server whose tools would collide is refused
    auth         s26  OAuth for every server with a URL: needs-auth and its authenticate pseudo-tool
    lifecycle    s28  every state change shown as a ``state:`` line (or ``on_change``)
    reconnect    s28  ``lifecycle.Backoff()`` for every connection
    reload       s29  the settings file ``watch`` watched; each edit (read with ``reread``) applied before the next turn
    resources    s30  the two resource tools while a server offers resources; its queued logs each turn
    permissions  s31  the before-call hook: rules, autoApprove, annotations; denied tools not offered
    screen       s31  a warning when a tool's description reads as instructions to the model
    output       s32  the after-result, render and show hooks: every block for the Messages API, the cap, spill files
    elicitation  s33  forms and pages the servers ask for (``asker``)
    sampling     s33  the servers' sampling requests (``sampler``)
    roots        s33  the folders offered to servers (``roots``)
    eras         s34  each server's protocol era negotiated (or pinned by its ``protocol`` field), and
                      a 2026-07-28 session's side (``harness.modern``: listen, log messages); without
                      it, every server is opened with ``initialize``, as s23 to s33 do
    cache        s34  the SDK's response cache on every connection: a 2026-07-28 answer reused for its ttlMs
                      (``harness.cache``); without it, every list and read is sent

``until="sNN"`` keeps only the parts introduced up to that lesson (default: every part);
``without`` leaves out parts by name. A part that needs something only the caller has is
on only when given it: reload needs the file to ``watch``; elicitation, sampling and roots
need their object, since the client declares a capability exactly when it has a callback
behind it. A name that is
not a part is a ``UsageError``.

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
from pathlib import Path
from typing import Any

from harness import config, lifecycle, naming, pool
from harness.errors import UsageError
from harness.hub import Change, Hub
from harness.loop import Policy, Turn
from harness.redact import Redactor
from harness.tools import Tool
from harness.transcript import Transcript

PARTS: Mapping[str, str] = {
    "naming": "s21", "auth": "s26", "lifecycle": "s28", "reconnect": "s28", "reload": "s29", "resources": "s30", "permissions": "s31",
    "screen": "s31", "output": "s32", "elicitation": "s33", "sampling": "s33", "roots": "s33",
    "eras": "s34", "cache": "s34",
}


def parts(until: str | None = None, without: Iterable[str] = ()) -> frozenset[str]:
    """The part names introduced up to lesson ``until`` (every part: None), less ``without``."""
    left_out = set(without)
    unknown = sorted(left_out - set(PARTS))
    if unknown:
        raise UsageError(f"Stack: no part named {', '.join(unknown)} (parts: {', '.join(PARTS)})")
    return frozenset(name for name, lesson in PARTS.items() if (until is None or lesson <= until) and name not in left_out)


class Stack:
    """Connections, hub, connectors, pool and policy for ``servers``; an async context manager."""

    def __init__(self, servers: Sequence[config.ServerConfig], transcript: Transcript | None = None, *,
                 until: str | None = None, without: Iterable[str] = (), environ: Mapping[str, str] = os.environ,
                 tap: Any = None, options: Callable[[config.ServerConfig], dict[str, Any]] | None = None,
                 on_change: Callable[[Change], None] | None = None, warn: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None,
                 watch: Path | None = None, reread: Callable[[], list[config.ServerConfig]] | None = None,
                 watch_shown: str | None = None,
                 token_store: Path | None = None, browser: Any = None,
                 rules: Any = None, prompter: Any = None,
                 spill: Path | None = None, spill_shown_as: str = "",
                 asker: Any = None, sampler: Any = None, roots: Any = None, redactor: Redactor | None = None) -> None:
        self.parts = parts(until, without)
        self.servers = list(servers)
        self.transcript = transcript
        # Where every secret of this stack is registered (config values, tokens): the transcript's, or the caller's.
        self.redact = transcript.redact if transcript is not None else redactor or Redactor()
        self.environ, self.tap, self._options = environ, tap, options
        self._on_change, self._warn, self._progress = on_change, warn, progress
        self._token_store, self._browser = token_store, browser
        self._watch = (watch, reread, watch_shown) if watch is not None and reread is not None and "reload" in self.parts else None
        self._rules, self._prompter = rules, prompter
        self._spill, self._spill_shown_as = spill, spill_shown_as
        self._asking = {"asker": asker if "elicitation" in self.parts else None,
                        "sampler": sampler if "sampling" in self.parts else None,
                        "roots": roots if "roots" in self.parts else None}
        self._exits = AsyncExitStack()
        self._authorizers: dict[str, Any] = {}
        self.conns: Any = None
        self.hub: Hub  # set on entering
        self.permissions: Any = None
        self.screen: Any = None
        self.output: Any = None
        self.reloader: Any = None  # the s29 Reloader while the settings file is watched
        self.token_store: Path | None = None  # where the tokens are (None: no server uses OAuth); keep the file tools out

    async def __aenter__(self) -> Stack:
        try:
            await self._build()
        except BaseException:
            await self._exits.aclose()
            raise
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return await self._exits.__aexit__(*exc_info)

    async def _build(self) -> None:
        from harness.connection import Connections  # the SDK: only once there is something to connect

        if "auth" in self.parts:
            await self._open_authorizers()
        more: dict[str, Any] = {}
        if "eras" in self.parts:  # every connection: a 2026-07-28 session's side (listen, log messages)
            from harness import era

            more["mechanisms"] = era.mechanisms()
        self.conns = await self._exits.enter_async_context(
            Connections(self.transcript, warn=self._warn, progress=self._progress, **more))
        said = self.transcript
        accept = None
        if "naming" in self.parts:
            accept = naming.checker(said.warning, said.note) if said is not None else naming.checker(_nothing, _nothing)
        on_change = self._on_change
        if on_change is None and "lifecycle" in self.parts and said is not None:
            on_change = lifecycle.show(said)
        self.hub = await self._exits.enter_async_context(Hub(self.transcript, accept=accept, on_change=on_change))
        entries = [s for s in self.servers if s.spec is not None]  # a broken entry's fields were refused when read (config.fields)
        if "permissions" in self.parts:
            from harness import permissions

            self.permissions = permissions.Permissions(self._rules or permissions.Rules(),
                                                       auto_approve=permissions.auto_approve(entries),
                                                       prompter=self._prompter, transcript=self.transcript)
        if "screen" in self.parts:
            from harness import permissions

            self.screen = permissions.Screen(self.transcript)
        if "output" in self.parts:
            from harness import output

            folder = self._spill
            if folder is None:  # no folder given: one for this stack's life
                folder = Path(tempfile.mkdtemp(prefix="mcp-course-output-"))
                self._exits.callback(shutil.rmtree, folder, ignore_errors=True)
            self.output = output.Output(folder, shown_as=self._spill_shown_as, transcript=self.transcript,
                                        caps=output.caps(entries))
        config.add_to(self.hub, self.servers, self.connector)
        if self._watch is not None:
            import anyio

            from harness import reload

            path, reread, shown = self._watch
            self.reloader = reload.Reloader(self.hub, path, reread, self.servers, self.connector, self.transcript, shown=shown)
            watching = await self._exits.enter_async_context(anyio.create_task_group())
            self._exits.callback(watching.cancel_scope.cancel)  # runs first on leaving: the watcher stops, then the task group ends
            watching.start_soon(self.reloader.run)

    async def _open_authorizers(self) -> None:
        from harness import auth
        from harness.errors import ConfigError

        remote = []
        for server in self.servers:
            if server.spec is None or server.spec.url is None:
                continue
            try:
                remote.append((server.name, config.expand(server.spec, self.environ).url))
            except ConfigError:
                continue  # its connect fails with that error; there is nothing to authorize
        if not remote:
            return
        store = self._token_store
        if store is None:  # no store given: tokens for this stack's life only
            store = self._exits.enter_context(auth.temporary_store())
        self.token_store = store
        said = self.transcript if self.transcript is not None else Transcript(redactor=self.redact)  # the exchange is not shown
        for name, url in remote:
            authorizer = auth.Authorizer(name, url, store, said, **({"browser": self._browser} if self._browser else {}))
            self._authorizers[name] = await self._exits.enter_async_context(authorizer)

    # -- what the hub, reload and the loop get --

    def connector(self, server: config.ServerConfig) -> Any:
        """The hub connector for ``server`` with every connection part on: what ``config.add_to`` and a reload take."""
        how: dict[str, Any] = {"tap": self.tap}
        if "reconnect" in self.parts:
            how["reconnect"] = lifecycle.Backoff()
        if any(self._asking.values()):
            from harness import elicit

            how.update(elicit.callbacks(server.name, **self._asking))
        if "eras" in self.parts:
            from harness import era
            from harness.errors import ConfigError, ServerError

            try:
                how["handshake"] = era.handshake(era.protocol(server))
            except ConfigError as exc:  # that server fails with the reason; the others go on
                said = str(exc)

                async def broken() -> Any:
                    raise ServerError(said)

                return broken
        authorizer = self._authorizers.get(server.name)
        if "cache" in self.parts:
            from harness import cache

            how[cache.OPTION] = cache.Settings(partition=cache.partition(authorizer))
        if self._options is not None:
            how.update(self._options(server))
        if authorizer is None:
            return config.connector(server, self.conns, self.environ, redactor=self.redact, **how)
        from harness import auth

        async def opener(**more: Any) -> Any:
            if "handshake" in how:  # the era's: each of its steps already stops the connect clock at a sign-in
                more.pop("handshake", None)
            return await config.connector(server, self.conns, self.environ, redactor=self.redact, **how, **more)()

        return auth.connector(authorizer, opener, self.hub)

    async def connect_all(self) -> None:
        """Connect every pending server at once (``Hub.connect_all``); the screen looks at each tool as it appears."""
        await self.hub.connect_all()
        if self.screen is not None:
            self.screen.check(self.hub.clients)

    def pool(self, base: str, builtins: Sequence[Tool], report: Callable[[str], None] | None = None) -> Callable[[], Awaitable[Turn]]:
        """The pool source (s22's ``pool.rebuilt``) with the parts that act on each turn, in this order: an edit of
        the watched file applied, queued server logs shown, new tools screened, denied tools left out."""
        if "resources" in self.parts:
            from harness import resources

            builtins = resources.WithResources(builtins, self.hub)
        rebuilt = pool.rebuilt(base, builtins, self.hub.clients, report=report, entries=self.hub.entries)  # needs-auth is not "connected"
        said: set[str] = set()

        async def turn() -> Turn:
            if self.reloader is not None:
                await self.reloader.settled()  # an edit made during the last turn is applied before this one
            if "resources" in self.parts:
                from harness import resources

                resources.show_logs(self.hub, self.transcript)  # what servers said between calls, before this turn
            if self.screen is not None:
                self.screen.check(self.hub.clients)
            offered = rebuilt()
            if self.permissions is None:
                return offered
            for name, rule in self.permissions.hidden(offered.tools).items():  # deny rules hide tools: say so once
                if name not in said and self.transcript is not None:
                    said.add(name)
                    self.transcript.note(f"{name} is not offered: deny rule {rule}")
            return Turn(offered.system, tuple(self.permissions.visible(offered.tools)))

        return turn

    @property
    def policy(self) -> Policy:
        """The composed policy: permissions' before-call, then output's after-result, render and show."""
        hooks: dict[str, Any] = {}
        if self.permissions is not None:
            hooks["before_call"] = self.permissions.before_call
        if self.output is not None:
            hooks.update(after_result=self.output.after_result, render=self.output.render, show=self.output.show)
        return Policy(**hooks)


def _nothing(text: str) -> None:
    pass
