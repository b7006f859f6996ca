"""What a part of the stack is: the hooks the composition root (``harness.stack``) calls each part at.

A lesson's mechanism reaches a whole stack as a ``Part``: a small object, usually a frozen
dataclass holding what only the caller has (a file to watch, a prompter, a folder), whose
hooks the stack calls in the order the parts are given. Leaving a part out is not passing
it; there are no names to spell::

    hook                                  when                                      e.g.
    enter(built)                          once, before anything connects            OAuth's authorizers, the output folder
    accept(transcript) / on_change(...)   the hub's name checker and state printer  s21, s28
    handshake(server)                     each server's opening (an era)            s34
    mechanisms(server, built)             each connection's mechanisms, made anew   s28 reconnect, s34 cache
    callbacks(server)                     ClientSession callbacks for input rounds  s33 (elicitation, sampling, roots)
    started(built)                        once the hub knows every server           s29's watcher
    connector(server, opener, built)      wraps a server's hub connector            s26 needs-auth
    connected(built)                      after every server connected at once      s31's screen
    builtins(tools, built)                the built-in tools the pool starts from   s30's resource tools
    prompted(prompt, built)               the user's prompt, once, before turn one  s37 a /server:prompt command expanded
    before_turn(built)                    at the start of each turn                 s29 edits applied, s30 logs shown
    offered(turn, built)                  the turn the model is handed              s31 denied tools left out
    policy(policy, built)                 the loop's before-call / after-result     s31 permissions, s32 output

``Built`` is what a part sees of the stack: the transcript, the servers as configured, the
environment, the exit stack that closes what a part opens, and from ``started`` on (and in
every hook called after it) the hub and the connections.

Not handled here: the parts themselves (``harness.stack`` and each lesson's module).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar


if TYPE_CHECKING:
    from harness.client import Client
    from harness.config.formats import ServerConfig
    from harness.connection import Connections
    from harness.hooks import Mechanism, SessionCallback
    from harness.hub import Accept, Change, Hub
    from harness.loop import Policy, Turn
    from harness.opening import Handshake
    from harness.redact import Redactor
    from harness.tools import Tool
    from harness.transcript import Transcript

Connector = Callable[[], Awaitable["Client"]]  # what the hub calls to connect one server: a client, or ServerError
Opener = Callable[..., Awaitable["Client"]]  # a connector taking the connection's auth= and handshake= (harness.auth)


@dataclass
class Built:
    """The stack as a part sees it once entered."""

    transcript: Transcript | None
    redact: Redactor  # where every secret of the stack is registered (the transcript's, when there is one)
    servers: list[ServerConfig]
    environ: Mapping[str, str]
    exits: AsyncExitStack
    connector: Callable[[ServerConfig], Connector]  # the stack's connector for one server, every part applied
    found: dict[str, object] = field(default_factory=dict)  # what a part leaves for another (s26's authorizers, s31's prompter)
    hub: Hub = field(init=False)  # from started() on
    conns: Connections = field(init=False)


class Part:
    """One mechanism of the course, as the stack plugs it in. Every hook does nothing here."""

    lesson: ClassVar[str] = ""  # the lesson that introduced it: ``harness.stack.upto`` keeps those up to a lesson

    async def enter(self, built: Built) -> None:
        """Once, before any server connects: open what this part needs, entered on ``built.exits``."""

    def accept(self, transcript: Transcript | None) -> Accept | None:
        """The hub's checker of a server's tools (s21's names), or None."""
        return None

    def on_change(self, transcript: Transcript | None) -> Callable[[Change], None] | None:
        """The hub's callback for each state change, or None."""
        return None

    def handshake(self, server: ServerConfig) -> Handshake | None:
        """How ``server``'s sessions open, or None for ``initialize``; a ``ConfigError`` fails that server alone."""
        return None

    def mechanisms(self, server: ServerConfig, built: Built) -> Sequence[Mechanism]:
        """The mechanisms of one connection to ``server``: new objects each time (a reconnect keeps its connection)."""
        return ()

    def callbacks(self, server: ServerConfig) -> Mapping[str, SessionCallback]:
        """``ClientSession`` callbacks for ``server`` (and so capabilities), answered in input rounds too."""
        return {}

    async def started(self, built: Built) -> None:
        """Once the hub knows every configured server, before any connects."""

    def connector(self, server: ServerConfig, opener: Opener, built: Built) -> Connector | None:
        """A connector for ``server`` around ``opener`` (which takes ``auth=`` and ``handshake=``), or None to leave it."""
        return None

    async def connected(self, built: Built) -> None:
        """After ``connect_all``: every pending server has connected or failed."""

    def builtins(self, tools: Sequence[Tool], built: Built) -> Sequence[Tool]:
        """The built-in tools the pool starts from each turn."""
        return tools

    async def prompted(self, prompt: str, built: Built) -> str:
        """The user's prompt as the first turn gets it (``Stack.prompted``): unchanged here."""
        return prompt

    async def before_turn(self, built: Built) -> None:
        """At the start of each turn, before the pool is assembled."""

    def offered(self, turn: Turn, built: Built) -> Turn:
        """The turn the model is handed."""
        return turn

    def policy(self, policy: Policy, built: Built) -> Policy:
        """The loop's policy with this part's hooks in it."""
        return policy
