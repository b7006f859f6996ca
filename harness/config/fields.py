"""The fields later mechanisms read from an entry as written, checked when the file is read.

    field            checked by                       lesson
    autoApprove      harness.permissions.auto_approve   s31
    maxOutputTokens  harness.output.caps                s32
    protocol         harness.era.check                  s34
    toolSearch       harness.config.search_policy.check s36

Config never says what these fields mean: each mechanism reads its own from
``ServerConfig.raw`` where it is used. But a value the mechanism would refuse is found here,
when the file is read, in the mechanism's own words, and fails that server alone, as a
broken entry does. So ``servers``, ``doctor`` and a reload (s29) show it before anything
starts, and the other servers load; a stack never meets a bad value halfway through
building itself.

A checker takes a list of ``ServerConfig`` and raises ``ConfigError`` naming the server and
the field; its module is imported only when an entry has its field (reading a config
stays fast). ``register(field, checker)`` adds one.

Not handled here: the fields config reads itself
(``command``, ``timeouts``, ...: ``harness.config.formats``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from harness.errors import ConfigError
from harness.spec import State

if TYPE_CHECKING:
    from harness.config.formats import ServerConfig

Checker = Callable[[list["ServerConfig"]], object]


# Each imports its mechanism's module when called: reading a config must not load them all.
def _auto_approve(servers: list[ServerConfig]) -> object:
    from harness.permissions import auto_approve  # only a config with autoApprove

    return auto_approve(servers)


def _caps(servers: list[ServerConfig]) -> object:
    from harness.output import caps  # only a config with maxOutputTokens

    return caps(servers)


def _protocol(servers: list[ServerConfig]) -> object:
    from harness.era import check  # only a config with protocol

    return check(servers)


def _tool_search(servers: list[ServerConfig]) -> object:
    from harness.config.search_policy import check  # only a config with toolSearch

    return check(servers)


CHECKERS: dict[str, Checker] = {"autoApprove": _auto_approve, "maxOutputTokens": _caps, "protocol": _protocol,
                                "toolSearch": _tool_search}


def register(field: str, checker: Checker) -> None:
    CHECKERS[field] = checker


def checked(server: ServerConfig) -> ServerConfig:
    """``server``, or it ``failed`` with the first checker's refusal (a server not pending is left as it is)."""
    if server.state is not State.PENDING:
        return server
    for field, checker in CHECKERS.items():
        if field not in server.raw:
            continue
        try:
            checker([server])
        except ConfigError as exc:
            return replace(server, spec=None, state=State.FAILED, reason=str(exc))
    return server
