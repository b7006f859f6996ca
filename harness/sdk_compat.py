"""Every private member of the ``mcp`` SDK the harness uses, in one place, each with why and where it was read.

The SDK's public API does not reach these; each is used through a function here, and
nowhere else. ``MEMBERS`` lists them with the SDK version each was read from; ``missing()``
says which of them a given SDK no longer has (``tests/test_sdk_compat.py`` fails on any,
naming it and this module), so an SDK upgrade that moves one is caught before a user meets
it. The pin in ``pyproject.toml`` is the minor that test passed on.

    ClientSession._build_capabilities(version)   the capabilities it would declare at a version
    ClientSession._client_info                   the client info it declares
    ClientSession._dispatcher.send_raw_request   a request with no timeout of the SDK's own
    ClientSession._log_level                     the log level stamped on 2026-07-28 requests
    ClientSession._absorb_tool_listing           rebuild per-tool state from a listing served from cache
    OAuthClientProvider._initialize              overridden: the expiry of tokens loaded from storage

Not handled here: the SDK's public API, which the modules use as they need.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.jsonvalue import JSONObject

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientSession
    from mcp.shared.dispatcher import CallOptions

READ_FROM = "2.3.0"  # the mcp version every member below was read from


@dataclass(frozen=True)
class Member:
    owner: str  # "module:Class"
    name: str
    why: str


MEMBERS = (
    Member("mcp.client.session:ClientSession", "_build_capabilities", "server/discover at a version of our choosing"),
    Member("mcp.client.session:ClientSession", "_client_info", "server/discover's _meta"),
    Member("mcp.client.session:ClientSession", "_dispatcher", "server/discover bounded by our connect clock, not the SDK's 10 s"),
    Member("mcp.client.session:ClientSession", "_log_level", "ask a 2026-07-28 server for log messages once it declares logging"),
    Member("mcp.client.session:ClientSession", "_absorb_tool_listing", "a tools/list served from the response cache"),
    Member("mcp.client.auth:OAuthClientProvider", "_initialize", "tokens loaded from the store keep their expiry"),
)


def missing() -> list[str]:
    """The members of ``MEMBERS`` that the installed SDK lacks, each as ``module:Class.name``."""
    gone = []
    for member in MEMBERS:
        module, _, cls = member.owner.partition(":")
        owner = getattr(importlib.import_module(module), cls)
        # An attribute set in __init__ is not on the class: those are found on a session made for the check.
        if not hasattr(owner, member.name) and member.name not in _instance_members(owner):
            gone.append(f"{member.owner}.{member.name}")
    return gone


def _instance_members(owner: type) -> set[str]:
    import ast  # only the SDK check (tests/test_sdk_compat.py) reads source
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(owner.__init__)))  # type: ignore[misc]
    except (OSError, TypeError):
        return set()
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "self"}


def capabilities_at(session: ClientSession, version: str) -> JSONObject:
    """The capabilities ``session`` would declare at protocol ``version``, as JSON."""
    return session._build_capabilities(version).model_dump(by_alias=True, mode="json", exclude_none=True)


def client_info(session: ClientSession) -> JSONObject:
    """The client info ``session`` declares, as JSON."""
    return session._client_info.model_dump(by_alias=True, mode="json", exclude_none=True)


async def send_raw(session: ClientSession, method: str, params: JSONObject | None, options: CallOptions) -> JSONObject:
    """One request through the session's dispatcher, with ``options`` (headers, no cancel) and no SDK timeout."""
    return await session._dispatcher.send_raw_request(method, params, options)  # type: ignore[arg-type]


def ask_for_logs(session: ClientSession, level: str) -> None:
    """From now on, every request of ``session`` asks for log messages at ``level`` and above (2026-07-28).

    The SDK takes the level only when the session is made, before anyone knows whether the
    server logs: set it, then stamp the requests again (``adopt``) with it.
    """
    session._log_level = level  # type: ignore[assignment]
    if session.discover_result is not None:
        session.adopt(session.discover_result)


def absorb_tool_listing(session: ClientSession, listing: mcp_types.ListToolsResult) -> mcp_types.ListToolsResult:
    """``listing`` (a ``ListToolsResult`` served without a request) taken in by ``session``, as ``mcp.Client`` does on
    a cache hit: the session rebuilds its per-tool state (output schemas, x-mcp-header maps) from it."""
    return session._absorb_tool_listing(listing, complete=listing.next_cursor is None)
