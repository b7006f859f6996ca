"""The enterprise policy: ``allowedMcpServers`` and ``deniedMcpServers`` (s27).

``<managed>/managed-settings.json`` lists rules by server name (``serverName``), exact
command line (``serverCommand``, for a local server) or URL wildcard (``serverUrl``, for
a remote one). Deny wins over allow. Once the allowlist names commands (URLs), a local
(remote) server must match one of those; otherwise its name must be listed, as in Claude
Code. The policy is applied before anything is spawned, and a server it refuses is listed
``blocked`` with the rule, never dropped.

Introduced by s27. Not handled here: where the other files are (``harness.config.scopes``),
policies for tools (``harness.permissions``, s31).
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import replace
from pathlib import Path

from harness.config.formats import ServerConfig, read_json
from harness.errors import ConfigError
from harness.jsonvalue import JSONMapping, JSONObject
from harness.spec import ServerSpec, State


def apply_policy(servers: list[ServerConfig], managed: Path) -> list[ServerConfig]:
    """``servers`` with each one the policy in the folder ``managed`` refuses marked ``blocked``, naming the rule."""
    settings = managed / "managed-settings.json"
    policy = read_json(settings, str(settings))
    allowed, denied = policy.get("allowedMcpServers"), policy.get("deniedMcpServers") or []
    for rules, key in ((allowed, "allowedMcpServers"), (denied, "deniedMcpServers")):
        if rules is not None and not (isinstance(rules, list) and all(isinstance(r, dict) for r in rules)):
            raise ConfigError(f"{settings}: field '{key}': expected a list of rules")
    result = []
    for server in servers:
        verdict = _verdict(server.spec, allowed, denied) if server.spec is not None else None
        if verdict is not None and server.state is not State.FAILED:
            server = replace(server, state=State.BLOCKED, reason=f"{verdict} ({settings.name})")
        result.append(server)
    return result


def _verdict(spec: ServerSpec, allowed: list[JSONObject] | None, denied: list[JSONObject]) -> str | None:
    """Why the policy refuses ``spec``, or None. Deny wins over allow."""
    for rule in denied:
        if _matches(rule, spec):
            return f"denied by {_show(rule)}"
    if allowed is None:
        return None
    key = "serverCommand" if spec.command is not None else "serverUrl"
    relevant = [r for r in allowed if key in r] or [r for r in allowed if "serverName" in r]
    if any(_matches(rule, spec) for rule in relevant):
        return None
    return "not in allowedMcpServers"


def _matches(rule: JSONMapping, spec: ServerSpec) -> bool:
    if "serverName" in rule:
        return rule["serverName"] == spec.name
    if "serverCommand" in rule:  # a local server: the command line it spawns
        return spec.command is not None and list(rule["serverCommand"]) == [spec.command, *spec.args]
    if "serverUrl" in rule:  # a remote one: the URL it is reached at
        return spec.url is not None and fnmatch.fnmatchcase(spec.url, str(rule["serverUrl"]))
    return False


def _show(rule: JSONMapping) -> str:
    key, value = next(iter(rule.items()))
    return f"{key} {json.dumps(value)}"
