"""A page a server asks the user to open (URL-mode elicitation): which may be offered, and how it is shown.

The spec's guidance for URL mode: a client shows the user the page before anything opens
it, makes the host plain to see, and never offers a URL that is not a web page. So:

- only ``https``, or ``http`` to this machine (``localhost``, ``127.0.0.0/8``, ``::1``), is
  offered. ``javascript:``, ``data:``, ``file:`` and every other scheme, a URL with
  userinfo (``https://bank.example@evil.example/``: the host is the part after the ``@``),
  one with a control character or a space in it, and one with no host are refused, each
  with the reason, and the user is never asked;
- the host is shown apart from the rest, in its ASCII (punycode) form, which is what the
  browser will reach, beside the letters it reads as (``xn--pple-43d.com``, read as
  ``аpple.com``), and a label that mixes scripts (a Cyrillic ``а`` among Latin letters) is
  named as a likely imitation of another host.

Introduced by s33 (``harness.elicit``'s ``Asker.visit``). Not handled here: whole-script
confusables (a host all in Cyrillic letters that look Latin: it is shown in both forms
and named non-ASCII, not judged), redirects the page makes once opened.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from harness import echo


class Refused(ValueError):
    """A URL that is not offered to the user; the message says why."""


@dataclass(frozen=True)
class Page:
    url: str  # as it will be opened: the host in its ASCII form
    host: str  # ASCII (punycode) form
    reads_as: str  # the host's letters as a person reads them ("" when it is plain ASCII)
    warning: str  # why the host deserves a second look ("" when it does not)

    def shown(self) -> str:
        """``https://host/path (host host)``, with how it reads and the warning when the host is not plain ASCII."""
        about = f"host {self.host}"
        if self.reads_as:
            about += f", read as {echo.line(self.reads_as, 120)}"
        if self.warning:
            about += f": {self.warning}"
        return f"{echo.line(self.url, 500)} ({about})"


def check(url: str) -> Page:
    """The page ``url`` leads to, or ``Refused`` with the reason."""
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in url):
        raise Refused("it holds a space or a control character")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise Refused(f"{echo.name(scheme + ':') if scheme else 'no scheme'} is not a web page (only https, or http on this machine, is offered)")
    if "@" in parts.netloc:
        raise Refused("it has userinfo before an @, which hides the host it leads to")
    try:
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        raise Refused("its host or port cannot be read") from None
    if not host:
        raise Refused("it names no host")
    if scheme == "http" and not _loopback(host):
        raise Refused("http is offered only for this machine (localhost, 127.0.0.1, ::1); anything else must be https")
    ascii_host, reads_as = _forms(host)
    netloc = (f"[{ascii_host}]" if ":" in ascii_host else ascii_host) + (f":{port}" if port is not None else "")
    shown = urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    return Page(shown, ascii_host, reads_as if reads_as != ascii_host else "", _warning(reads_as) if reads_as != ascii_host else "")


def _forms(host: str) -> tuple[str, str]:
    """(ASCII form, the form a person reads) of a host name; IPv6 and IPv4 hosts are their own both."""
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise Refused(f"its host {echo.name(host)} is not a valid international name") from None
    try:
        reads_as = ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        reads_as = host
    return ascii_host.lower(), reads_as


def _warning(reads_as: str) -> str:
    for label in reads_as.split("."):
        scripts = sorted({_script(c) for c in label if c.isalpha()})
        if len(scripts) > 1:
            return f"its label {echo.name(label)} mixes {' and '.join(s.title() for s in scripts)} letters, and may imitate another host"
    return "it is not plain ASCII: check it is the host you expect"


def _script(c: str) -> str:
    """The script of a letter, from its Unicode name's first word (LATIN, CYRILLIC, GREEK, ...)."""
    return unicodedata.name(c, "UNKNOWN").split(" ")[0]


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
