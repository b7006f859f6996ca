"""Model-facing tool names: ``mcp__{server}__{tool}``, always safe, never ambiguous.

Server and tool names come from strangers: dots, spaces, accents, any length. The model
API accepts tool names matching ``^[A-Za-z0-9_-]{1,64}$``. Four rules get us there:

1. normalize: every character outside ``[A-Za-z0-9_-]`` becomes ``_``;
2. prefix: ``mcp__{server}__{tool}``, so two servers' ``search`` tools stay apart;
3. shorten: a name over 64 characters keeps its first 55 and gets ``_`` plus 8 hex
   characters of a hash of the *original* (server, tool), stable across runs;
4. refuse: if two different (server, tool) pairs still end up with one name, that is a
   ``NameCollision`` naming both, never a silent overwrite.

``assign`` applies them to a whole pool and returns a ``NameMap`` that also maps back
from a model-facing name to (server, tool), by lookup, not by splitting on ``__`` (a
server whose own name holds ``__`` would split wrongly).

Introduced by s21. Not handled here: which tools a server may expose (s31 policy).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from harness import echo
from harness.errors import NameCollision
from harness.mcp_client import Client, Pair

MAX_NAME = 64
_DISALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 8


def normalize(name: str) -> str:
    """Replace every character the model API does not accept with ``_``."""
    return _DISALLOWED.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    """The model-facing name of one tool, at most 64 characters."""
    name = f"mcp__{normalize(server)}__{normalize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    # Hash the original strings: two long names that normalize alike still differ here.
    digest = hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:_HASH_CHARS]
    return f"{name[:MAX_NAME - _HASH_CHARS - 1]}_{digest}"


class NameMap(Mapping[Pair, str]):
    """(server, tool) to model-facing name, and back."""

    def __init__(self, forward: dict[Pair, str]) -> None:
        self._forward = forward
        self._reverse = {name: pair for pair, name in forward.items()}

    def __getitem__(self, pair: Pair) -> str:
        return self._forward[pair]

    def __iter__(self) -> Iterator[Pair]:
        return iter(self._forward)

    def __len__(self) -> int:
        return len(self._forward)

    def resolve(self, name: str) -> Pair:
        """The (server, tool) behind a model-facing name; ``KeyError`` if none."""
        return self._reverse[name]

    def shortened(self) -> dict[Pair, str]:
        """The pairs whose names had to be cut to fit 64 characters."""
        return {pair: name for pair, name in self._forward.items() if name != f"mcp__{normalize(pair[0])}__{normalize(pair[1])}"}


def assign(pairs: Iterable[Pair]) -> NameMap:
    """Name every (server, tool); raise ``NameCollision`` if two pairs share a name."""
    forward: dict[Pair, str] = {}
    owner: dict[str, Pair] = {}
    for pair in pairs:
        if pair in forward:
            raise NameCollision(f"server {echo.name(pair[0])} lists tool {echo.name(pair[1])} twice")
        name = tool_name(*pair)
        if name in owner:
            (s1, t1), (s2, t2) = owner[name], pair
            raise NameCollision(f"'{name}' would name both server {echo.name(s1)} tool {echo.name(t1)} and server {echo.name(s2)} tool {echo.name(t2)}")
        forward[pair], owner[name] = name, pair
    return NameMap(forward)


def pairs(clients: Iterable[Client]) -> list[Pair]:
    return [(c.name, t["name"]) for c in clients for t in c.tools]


def checker(warn: Callable[[str], None], note: Callable[[str], None]) -> Callable[[Mapping[str, Client]], None]:
    """An ``accept`` hook for ``connect_tool``: refuse collisions, report each new name once."""
    reported: set[Pair] = set()

    def accept(clients: Mapping[str, Client]) -> None:
        names = assign(pairs(clients.values()))  # raises NameCollision: the server is refused
        cut = names.shortened()
        for pair in names:
            if pair in reported:
                continue
            reported.add(pair)
            if pair in cut:
                full = len(f"mcp__{normalize(pair[0])}__{normalize(pair[1])}")
                warn(f"{echo.name(pair[0])} tool {echo.name(pair[1])}: name is {full} characters, over {MAX_NAME}; using '{cut[pair]}'")
            if names[pair] != f"mcp__{pair[0]}__{pair[1]}":
                note(f"{names[pair]} -> server {echo.name(pair[0])} tool {echo.name(pair[1])}")

    return accept
