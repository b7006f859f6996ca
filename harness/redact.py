"""Secrets out of every output: tokens, client secrets, codes, verifiers, session ids.

A ``Redactor`` is told each secret the moment it exists (``add(secret, "<access_token_1>")``)
and replaces it wherever it would be printed, recorded or written: the transcript's text,
its events, the frames file, error messages. It is always on, in lessons, in the user CLI
and in tests alike. It is not snapshot normalization (ports, temp paths): that belongs to
a lesson's deterministic transcript only (``harness.transcript.Normalizer``).

``Authorization`` header values are caught by shape too (``Bearer ...``, ``Basic ...``),
so a header nobody registered still never shows.

``url`` shows a URL without its userinfo and query values (``ServerSpec.where`` uses
it). A server entry's variables expanded into a URL, a header, or (when the variable's name
says it is secret: ``SECRET_NAME``) into env or args are handed to a transcript's redactor
when the server is started (``harness.config.wiring``), and messages show the entry as
written (``${TOKEN}``), not the value.

Introduced by the hub spine (s24's SSE session id is the first secret registered); URLs and
variables by issue 18. Not handled here: secrets in server stderr that the harness never
saw being issued; the user CLI's own output outside a transcript sees only the as-written
forms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_AUTH_HEADER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@")
_QUERY_VALUE = re.compile(r"([?&][^=&#]*=)[^&#]*")
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|PASS\b|KEY|AUTH|CREDENTIAL|COOKIE|SESSION", re.IGNORECASE)


def url(text: str) -> str:
    """A URL as messages print it: userinfo and every query value replaced, the rest kept.

    ``http://admin:pw@host/mcp?api_key=t`` -> ``http://<redacted>@host/mcp?api_key=<redacted>``:
    whatever a user put there to get in is never shown, whether typed or from a variable.
    """
    text = _USERINFO.sub(r"\1<redacted>@", text)
    return _QUERY_VALUE.sub(r"\1<redacted>", text)


class Redactor:
    """Replaces registered secrets (and credential-shaped header values) with placeholders."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        self._probe: re.Pattern[str] | None = None

    def add(self, secret: str | None, placeholder: str) -> None:
        if secret:
            self._secrets[secret] = placeholder
            self._pattern = alternation(self._secrets)
            self._probe = probe(self._secrets)

    def seen_in(self, json_text: str) -> bool:
        """Could anything in this JSON text need redacting? (False: certainly not.)"""
        return bool(self._probe is not None and self._probe.search(json_text)) or "Bearer" in json_text or "Basic" in json_text

    def __call__(self, text: str) -> str:
        # Every string of every frame passes here: one C-level scan when nothing matches.
        if self._pattern is not None:
            text = self._pattern.sub(lambda m: self._secrets[m.group(0)], text)
        if "Bearer" in text or "Basic" in text:
            text = _AUTH_HEADER.sub(r"\1 <redacted>", text)
        return text


def alternation(literals: dict[str, str]) -> re.Pattern[str]:
    """One pattern matching any of ``literals``, longest first (a secret inside a longer one loses)."""
    return re.compile("|".join(re.escape(s) for s in sorted(literals, key=len, reverse=True)))


def probe(literals: dict[str, str]) -> re.Pattern[str]:
    """A pattern that finds any of ``literals`` in JSON text, as is or as JSON escapes it (quotes, backslashes)."""
    forms = set(literals) | {json.dumps(s, ensure_ascii=False)[1:-1] for s in literals}
    return re.compile("|".join(re.escape(s) for s in forms))


def clean(value: Any, text: Callable[[str], str]) -> Any:
    """``value`` with every string in it (keys too) passed through ``text``."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {text(k) if isinstance(k, str) else k: clean(v, text) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, text) for v in value]
    return value
