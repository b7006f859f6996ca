"""The wire tap's renumbering, for what s35 is the first run to show: two 2026-07-28 servers listening at once.

The SDK counts its ``subscriptions/listen`` request ids process-wide (``listen-1``,
``listen-2``, ...), so which server gets which depends on which connected first. The tap
renumbers the request per server, and the subscription id the server puts on each
notification of that stream is renumbered the same way, so pinned frames never depend on
the order of two concurrent connects.
"""

from __future__ import annotations

from types import SimpleNamespace

from harness.wire import SUBSCRIPTION, WireTap


def _item(message: dict) -> SimpleNamespace:
    """What the tap sees pass: a session message whose ``message`` dumps to the JSON-RPC dict."""
    return SimpleNamespace(message=SimpleNamespace(model_dump=lambda **options: message))


def _frames(order: list[str]) -> list[tuple[str, str, dict]]:
    seen: list[tuple[str, str, dict]] = []
    tap = WireTap(lambda server, direction, message: seen.append((server, direction, message)))
    for number, server in enumerate(order, 1):  # the SDK's process-wide count: whoever listens first gets listen-1
        raw = f"listen-{number}"
        tap._record(server, "send", _item({"jsonrpc": "2.0", "id": raw, "method": "subscriptions/listen", "params": {}}))
        tap._record(server, "recv", _item({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                                           "params": {"_meta": {SUBSCRIPTION: raw}}}))
    return sorted(seen, key=lambda frame: frame[0])


def test_the_subscription_id_is_renumbered_as_its_listen_request_was():
    assert _frames(["handbook", "wiki"]) == _frames(["wiki", "handbook"])
    (_, _, request), (_, _, notification) = _frames(["handbook", "wiki"])[:2]
    assert request["id"] == 1 and notification["params"]["_meta"][SUBSCRIPTION] == 1, (request, notification)
