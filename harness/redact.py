"""Secrets out of every output: tokens, client secrets, codes, verifiers, session ids.

A ``Redactor`` is told each secret the moment it exists (``add(secret, "<access_token_1>")``)
and replaces it wherever it would be printed, recorded or written: the transcript's text,
its events, the frames file, error messages. It is always on, in lessons, in the user CLI
and in tests alike. It is not snapshot normalization (ports, temp paths): that belongs to
a lesson's deterministic transcript only (``harness.transcript.Normalizer``).

``Authorization`` header values are caught by shape too (``Bearer ...``, ``Basic ...``),
so a header nobody registered still never shows.

``url`` shows a URL without its userinfo and query values, and ``argument`` every URL
inside one word of a command line the same way (``ServerSpec.where`` uses both: a
connection string's password in a server's args is never shown). A server entry's variables expanded into a URL, a header, or (when the variable's name
says it is secret: ``SECRET_NAME``) into env or args are handed to a transcript's redactor
when the server is started (``harness.config.wiring``), and messages show the entry as
written (``${TOKEN}``), not the value.

A secret of any size costs time linear in the text it is looked for in (``Literals``):
registering a 10 MB one takes milliseconds, as does a scan that finds nothing.

The user CLI prints on its own streams, not through a transcript: each of its writes
passes the stack's redactor all the same (``harness.terminal.Writer``).

Not handled here: secrets in server stderr that the harness never
saw being issued (a password inside a connection string a server prints: the command
line shown is redacted, the server's own words are not); userinfo written without a
scheme (``admin:pw@host``).
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

_AUTH_HEADER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")  # to the last @: a password may hold an unescaped one
_URL_IN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]*")
_QUERY_VALUE = re.compile(r"([?&][^=&#]*=)[^&#]*")
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|PASS\b|KEY|AUTH|CREDENTIAL|COOKIE|SESSION", re.IGNORECASE)


def url(text: str) -> str:
    """A URL as messages print it: userinfo and every query value replaced, the rest kept.

    ``http://admin:pw@host/mcp?api_key=t`` -> ``http://<redacted>@host/mcp?api_key=<redacted>``:
    whatever a user put there to get in is never shown, whether typed or from a variable.
    """
    text = _USERINFO.sub(r"\1<redacted>@", text)
    return _QUERY_VALUE.sub(r"\1<redacted>", text)


def argument(text: str) -> str:
    """One word of a command line as messages print it: every URL in it as ``url`` shows one.

    ``postgresql://admin:pw@db/app`` -> ``postgresql://<redacted>@db/app``, and
    ``--db=mysql://u:pw@h`` -> ``--db=mysql://<redacted>@h``: a connection string's password
    is never shown, whether it was written in the args or came from a variable.
    """
    return _URL_IN_WORD.sub(lambda m: url(m.group(0)), text) if "://" in text else text


PREFIX_CHARS = 32  # of each literal, in the one pattern that finds candidates: its size never grows with a literal's


class Literals:
    """Literal strings and their placeholders, replaced in time linear in the text, whatever their size.

    A regex alternation of the literals themselves costs its compile time per character
    of every literal, on every ``add`` (about 10 s per MB of secret). Here one pattern of
    the literals' first ``PREFIX_CHARS`` characters finds whether any may be present (one
    C-level scan, the common case being "none"); only then is each literal looked for with
    ``str.find``, which is linear in the text for a needle of any length. The result is
    the alternation's: leftmost first, and the longest of those starting at one place.
    """

    def __init__(self) -> None:
        self._placeholders: dict[str, str] = {}
        self._forms: set[str] = set()  # each literal as is and as JSON escapes it (quotes, backslashes)
        self._candidates: re.Pattern[str] | None = None
        self._probe: re.Pattern[str] | None = None

    def add(self, literal: str, placeholder: str) -> None:
        self._placeholders[literal] = placeholder
        self._forms |= {literal, json.dumps(literal, ensure_ascii=False)[1:-1]}
        self._candidates = _prefixes(self._placeholders)
        self._probe = _prefixes(self._forms)

    def __bool__(self) -> bool:
        return bool(self._placeholders)

    def seen_in(self, json_text: str) -> bool:
        """Could any literal be in this JSON text, as is or as JSON escapes it? (False: certainly not.)"""
        return self._probe is not None and self._probe.search(json_text) is not None

    def __call__(self, text: str) -> str:
        if self._candidates is None or self._candidates.search(text) is None:
            return text
        # The next place each literal is found at or after the cursor; the smallest wins.
        pending = [(at, -len(s), s) for s in self._placeholders if (at := text.find(s)) >= 0]
        heapq.heapify(pending)
        parts: list[str] = []
        cursor = 0
        while pending:
            at, _, literal = heapq.heappop(pending)
            if at >= cursor:
                parts += (text[cursor:at], self._placeholders[literal])
                cursor = at + len(literal)
            again = text.find(literal, cursor)  # this one, or one that overlapped what was replaced: on from here
            if again >= 0:
                heapq.heappush(pending, (again, -len(literal), literal))
        return "".join(parts) + text[cursor:] if parts else text


def _prefixes(literals: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(sorted({re.escape(s[:PREFIX_CHARS]) for s in literals})))


class Redactor:
    """Replaces registered secrets (and credential-shaped header values) with placeholders."""

    def __init__(self) -> None:
        self._secrets = Literals()

    def add(self, secret: str | None, placeholder: str) -> None:
        if secret:
            self._secrets.add(secret, placeholder)

    def seen_in(self, json_text: str) -> bool:
        """Could anything in this JSON text need redacting? (False: certainly not.)"""
        return self._secrets.seen_in(json_text) or "Bearer" in json_text or "Basic" in json_text

    def __call__(self, text: str) -> str:
        # Every string of every frame passes here: one C-level scan when nothing matches.
        text = self._secrets(text)
        if "Bearer" in text or "Basic" in text:
            text = _AUTH_HEADER.sub(r"\1 <redacted>", text)
        return text


def clean(value: Any, text: Callable[[str], str]) -> Any:
    """``value`` with every string in it (keys too) passed through ``text``."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {text(k) if isinstance(k, str) else k: clean(v, text) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, text) for v in value]
    return value
