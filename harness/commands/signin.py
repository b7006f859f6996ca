"""``login SERVER`` and ``logout SERVER``: s26's sign-in, from the command line, its tokens kept for later runs.

``login`` connects that one server on the CLI's stack. With tokens the store already
holds (and a refresh, if they are near expiry) it is connected: nothing to do. If the
server answers 401 it is ``needs-auth``, and ``login`` calls its ``authenticate`` tool:
s26's whole flow (discovery, registration, PKCE, the loopback callback on 127.0.0.1, the
token exchange). The authorization URL opens in the desktop's browser, and is printed on
stderr for a terminal without one (``--sign-in auto`` consents at once: the course's mock
authorization server only). The tokens land in the token store (``--token-store``,
default ``$XDG_STATE_HOME/mcp-course/tokens``, never the workspace): one 0600 file per
server, whose name alone is ever printed, never its content.

Every later command connects with what the store holds; the provider refreshes a token
before it expires (``harness.auth.provider``). ``servers`` lists a server without tokens
as ``needs-auth``, with the command that signs in (``hint``).

``logout`` deletes that server's store file (tokens and client registration); nothing
is started, and the authorization server is not told (no revocation, RFC 7009).

Built on s26's ``harness.auth``. Not handled here: revoking tokens, a
server added by a reload (it gets no sign-in, ``harness.stack``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from harness import auth, config, echo
from harness.errors import HarnessError, ToolError, UsageError
from harness.spec import State


def hint(prog: str, name: str) -> str:
    """What a ``needs-auth`` server's row and error line say to do."""
    return f"needs authorization: sign in with '{prog} login {name}'"


def remote(servers: Sequence[config.ServerConfig], name: str) -> config.ServerConfig:
    """The configured server ``name``, which must be one with a URL (only those sign in); a ``UsageError`` otherwise."""
    found = next((s for s in servers if s.name == name), None)
    if found is None:
        known = ", ".join(s.name for s in servers) or "none configured"
        raise UsageError(f"no server '{name}' in the config (servers: {known})")
    if found.spec is None:
        raise UsageError(f"server '{name}' cannot be used: {found.reason}")
    if found.spec.url is None:
        raise UsageError(f"server '{name}' runs a command ({found.spec.transport}): only a server with a URL signs in")
    return found


async def login(stack: Any, name: str, out: TextIO) -> int:
    """Sign ``name`` in on ``stack`` (which holds that server alone): 0 once it is connected with stored tokens."""
    await stack.connect_all()
    entry = stack.hub.entries[name]
    if entry.state is State.CONNECTED:
        out.write(f"{name}: signed in already (the token store's tokens work; '{name}' has {echo.count(len(entry.tools), 'tool')})\n")
        return 0
    if entry.state is not State.NEEDS_AUTH:
        raise HarnessError(str(entry.error) if entry.error else f"server '{name}': {entry.state.value}")
    try:
        await stack.hub.clients[name].call_tool(auth.AUTHENTICATE, {})
    except ToolError as exc:
        raise HarnessError(str(exc)) from None
    entry = stack.hub.entries[name]
    out.write(f"{name}: signed in; {echo.count(len(entry.tools), 'tool')}: {echo.names([t['name'] for t in entry.tools])}\n")
    return 0


def logout(server: config.ServerConfig, store: Path, out: TextIO, environ: Mapping[str, str] = os.environ) -> int:
    """Delete ``server``'s token store file; 0 whether or not there was one."""
    url = config.expand(server.spec, environ).url  # type: ignore[arg-type]  (remote() checked the spec)
    kept = auth.TokenStore(store, server.name, url or "")
    try:
        kept.path.unlink()
    except FileNotFoundError:
        out.write(f"{server.name}: not signed in (no {kept.shown})\n")
        return 0
    out.write(f"{server.name}: signed out (deleted {kept.shown})\n")
    return 0


def shown_url(url: str, err: TextIO) -> None:
    """The authorization URL for a person to open, on stderr: where a desktop has no browser, this is the way."""
    err.write(f"sign in: open this address in your browser (the answer comes back to 127.0.0.1):\n  {url}\n")
    err.flush()


def has_desktop(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether a graphical browser can open: a display on Linux, always elsewhere.

    Without one, Python's ``webbrowser`` falls back to a text browser (lynx, w3m) in this
    very terminal; the printed URL is the better way then.
    """
    return not sys.platform.startswith("linux") or bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))
