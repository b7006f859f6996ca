"""The one check that a secret reached no output: ``assert_no_secret(secrets, stdout=..., stderr=..., frames=...)``.

Each keyword names an output (stdout, stderr, a transcript, a frames file, a folder's
files), and the failure says which output held which secret, and where, never the whole
secret: the first four characters only, so a failing run does not print what it checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def assert_no_secret(secrets: Iterable[str], **outputs: str | Path) -> None:
    """Fail if any secret (a non-empty string) is in any output; a Path is read (a folder: every file under it)."""
    found = []
    for where, output in outputs.items():
        for name, text in _texts(where, output):
            for secret in filter(None, secrets):
                if (at := text.find(secret)) >= 0:
                    found.append(f"{name}: a secret beginning {secret[:4]!r}... at offset {at}")
    assert not found, "expected no secret in any output, found:\n  " + "\n  ".join(found)


def _texts(where: str, output: str | Path) -> Iterable[tuple[str, str]]:
    if isinstance(output, str):
        yield where, output
    elif output.is_dir():
        for path in sorted(p for p in output.rglob("*") if p.is_file()):
            yield f"{where}/{path.relative_to(output)}", path.read_text(errors="replace")
    elif output.exists():
        yield where, output.read_text(errors="replace")
