"""Secrets out of every output: tokens, client secrets, codes, verifiers, session ids.

A ``Redactor`` is told each secret the moment it exists (``add(secret, "<access_token_1>")``)
and replaces it wherever it would be printed, recorded or written: the transcript's text,
its events, the frames file, error messages. It is always on, in lessons, in the user CLI
and in tests alike. It is not snapshot normalization (ports, temp paths): that belongs to
a lesson's deterministic transcript only (``harness.transcript.Normalizer``).

``Authorization`` header values are caught by shape too (``Bearer ...``, ``Basic ...``),
so a header nobody registered still never shows.

Introduced by the hub spine (s24's SSE session id is the first secret registered). Not
handled here: secrets in server stderr that the harness never saw being issued.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_AUTH_HEADER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}")


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
