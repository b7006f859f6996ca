"""The fields later mechanisms read from an entry as written, checked when the file is read.

    field            checked by                     lesson
    autoApprove      harness.permissions:auto_approve   s31
    maxOutputTokens  harness.output:caps                s32
    protocol         harness.era:check                  s34

Config never says what these fields mean: each mechanism reads its own from
``ServerConfig.raw`` where it is used. But a value the mechanism would refuse is found here,
when the file is read, in the mechanism's own words, and fails that server alone, as a
broken entry does. So ``servers``, ``doctor`` and a reload (s29) show it before anything
starts, and the other servers load; a stack never meets a bad value halfway through
building itself.

A checker is ``"module:function"``, imported only when an entry has its field; the function
takes a list of ``ServerConfig`` and raises ``ConfigError`` naming the server and the field.
``register(field, checker)`` adds one.

Introduced by issue 21 (the doctor). Not handled here: the fields config reads itself
(``command``, ``timeouts``, ...: ``harness.config.formats``).
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any

from harness.errors import ConfigError
from harness.spec import State

CHECKERS: dict[str, str] = {
    "autoApprove": "harness.permissions:auto_approve",
    "maxOutputTokens": "harness.output:caps",
    "protocol": "harness.era:check",
}


def register(field: str, checker: str) -> None:
    CHECKERS[field] = checker


def checked(server: Any) -> Any:
    """``server``, or it ``failed`` with the first checker's refusal (a server not pending is left as it is)."""
    if server.state is not State.PENDING:
        return server
    for field, checker in CHECKERS.items():
        if field not in server.raw:
            continue
        module, _, function = checker.partition(":")
        try:
            getattr(importlib.import_module(module), function)([server])
        except ConfigError as exc:
            return replace(server, spec=None, state=State.FAILED, reason=str(exc))
    return server
