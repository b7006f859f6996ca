"""Prompts as commands: ``/server:prompt arg=value ...`` typed as the user's prompt becomes that prompt, expanded.

Claude Code offers each server's prompts as slash commands (``/mcp__server__prompt``). s30
expands a prompt the lesson picks (``resources.expand``); this part (``Commands``, s37) lets
the user type one, in chat or a lesson, as the whole prompt::

    /handbook:summarize title=style              the prompt summarize of server handbook
    /handbook:summarize title="the style guide"  a value with spaces, quoted as a shell quotes it

The server's name is as configured; the prompt's arguments are checked against its listing
first (an unknown one, or a required one left out, is a ``UsageError`` naming the prompt and
its arguments). The expansion (every message's text, as ``resources.expand`` joins them) is
the user's turn, and a note says which prompt it came from. A prompt that does not start
with ``/`` and a known server's name followed by ``:`` is left as it is: ``/tmp is full`` is
a sentence. Introduced by s37.

Not handled here: completing argument values (``completion/complete``), several commands in one prompt.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import ClassVar

from harness import echo
from harness.client import Offers
from harness.errors import UsageError
from harness.parts import Built, Part
from harness.resources import as_text

_COMMAND = re.compile(r"/([^\s:/]+):(\S+)(?:\s+(.*))?", re.DOTALL)


def parse(prompt: str, servers: set[str]) -> tuple[str, str, dict[str, str]] | None:
    """``(server, prompt, arguments)`` of a typed command, or None for a prompt that is not one."""
    found = _COMMAND.fullmatch(prompt.strip())
    if found is None or found.group(1) not in servers:
        return None
    server, name, rest = found.group(1), found.group(2), found.group(3) or ""
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise UsageError(f"/{server}:{name}: {exc} (arguments are name=value, a value with spaces in quotes)") from None
    arguments = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise UsageError(f"/{server}:{name}: {echo.line(word, 80)!r} is not name=value")
        arguments[key] = value
    return server, name, arguments


@dataclass
class Commands(Part):
    """A typed ``/server:prompt`` as the user's prompt, expanded through that server's ``prompts/get``."""

    lesson: ClassVar[str] = "s37"

    async def prompted(self, prompt: str, built: Built) -> str:
        command = parse(prompt, set(built.hub.entries))
        if command is None:
            return prompt
        server, name, arguments = command
        where = f"/{server}:{echo.line(name, 80)}"
        client = built.hub.clients.get(server)
        if not isinstance(client, Offers):
            state = built.hub.entries[server].state.value
            raise UsageError(f"{where}: server '{server}' is {state}, so its prompts cannot be expanded")
        listed = {p.get("name"): p for p in client.prompts} if "prompts" in client.capabilities else {}
        if name not in listed:
            raise UsageError(f"{where}: server '{server}' has no prompt {name!r} (its prompts: {', '.join(sorted(map(str, listed))) or 'none'})")
        declared = {a.get("name"): bool(a.get("required")) for a in listed[name].get("arguments") or []}
        unknown = sorted(set(arguments) - set(declared))
        missing = sorted(a for a, required in declared.items() if required and a not in arguments)
        if unknown or missing:
            said = "; ".join(p for p in (f"unknown {', '.join(unknown)}" if unknown else "",
                                          f"missing {', '.join(missing)}" if missing else "") if p)
            raise UsageError(f"{where}: {said} (its arguments: {', '.join(sorted(map(str, declared))) or 'none'})")
        text = as_text(await client.get_prompt(name, arguments))
        if built.transcript is not None:
            built.transcript.note(f"{where}: the prompt {name} of server '{server}', expanded into the user's turn")
        return text
