"""harness.sdk_compat: every private SDK member the harness uses is still where it was read from."""

from __future__ import annotations

import ast
from importlib import metadata
from pathlib import Path

from harness import sdk_compat

ROOT = Path(__file__).resolve().parent.parent


def test_every_private_member_is_still_in_the_installed_sdk():
    gone = sdk_compat.missing()
    assert not gone, (f"mcp {metadata.version('mcp')} no longer has {', '.join(gone)}, which harness/sdk_compat.py uses "
                      f"(read from mcp {sdk_compat.READ_FROM}): adapt sdk_compat.py, then move the pin in pyproject.toml")


def test_a_member_that_moved_is_named():
    moved = sdk_compat.Member("mcp.client.session:ClientSession", "_no_such_member", "a test")
    saved = sdk_compat.MEMBERS
    sdk_compat.MEMBERS = (*saved, moved)
    try:
        assert sdk_compat.missing() == ["mcp.client.session:ClientSession._no_such_member"]
    finally:
        sdk_compat.MEMBERS = saved


def _private_uses(path: Path) -> list[str]:
    """``x._name`` attribute uses in ``path`` where ``x`` is not ``self``/``cls`` (and not a dunder)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls", "os", "sys"):
                continue
            if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
                continue  # self._x._y: our own members
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    return found


def test_no_module_but_sdk_compat_reaches_a_session_or_dispatcher_private_member():
    # The SDK's objects are named session, result, listing... in our code: any of them with a private member
    # read is a use outside sdk_compat.
    suspects = ("session", "listing", "dispatcher", "provider")
    uses = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        if path.name == "sdk_compat.py":
            continue
        for use in _private_uses(path):
            text = path.read_text(encoding="utf-8").splitlines()[int(use.split(":")[1]) - 1]
            if any(f"{name}._" in text for name in suspects):
                uses.append(use)
    assert uses == [], f"expected private SDK members only in harness/sdk_compat.py, found {uses}"
