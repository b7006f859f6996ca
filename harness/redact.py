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

import re
from typing import Any

_AUTH_HEADER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}")


class Redactor:
    """Replaces registered secrets (and credential-shaped header values) with placeholders."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}

    def add(self, secret: str | None, placeholder: str) -> None:
        if secret:
            self._secrets[secret] = placeholder

    def __call__(self, text: str) -> str:
        # Longest first, so a secret is replaced before any shorter secret inside it.
        for secret in sorted(self._secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, self._secrets[secret])
        return _AUTH_HEADER.sub(r"\1 <redacted>", text)


def clean(value: Any, *passes: Any) -> Any:
    """``value`` with every string in it (keys too) passed through each of ``passes``, in order."""
    if isinstance(value, str):
        for apply in passes:
            value = apply(value)
        return value
    if isinstance(value, dict):
        return {clean(k, *passes): clean(v, *passes) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v, *passes) for v in value]
    return value
