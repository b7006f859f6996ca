"""``resources``, ``read``, ``prompts``, ``prompt``: what the servers offer besides tools (s30), by hand.

- ``resources`` lists every resource and template; ``prompts`` every prompt with its arguments;
- ``read URI`` asks the server that lists the URI, or whose template's fixed start it has
  (``lister``), or ``--server``;
- ``prompt NAME`` (or ``SERVER/NAME`` when two servers offer one name) is expanded with its
  arguments (strings) into the user message it would start a conversation with.

Text for a terminal, or the data with ``--json``. A server's failure to read or expand is
a ``HarnessError`` (exit 1); a name no server offers is a ``UsageError`` (exit 2).

Not handled here:
subscriptions and offers that change while it runs (chat's resource tools follow them).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any, TextIO

from harness import resources
from harness.client import Offers
from harness.errors import HarnessError, ToolError, UsageError
from harness.hub import Hub
from harness.jsonvalue import JSONObject


async def offers(hub: Hub, args: argparse.Namespace, arguments: JSONObject, out: TextIO, saver: Any = None) -> int:
    """``resources``, ``prompts``, ``read`` or ``prompt`` (``args.command``) on the connected servers. ``saver``: the
    stack's ``harness.output.Output``, which saves a binary resource's bytes to a file (None: only named)."""

    def show(value: Any, text: str) -> int:
        out.write((json.dumps(value, indent=1, ensure_ascii=False) if args.json else text) + "\n")
        return 0

    if args.command == "resources":
        rows = resources.resource_rows(hub)
        return show(rows, "\n".join(f"{r['server']}  {r['uri']}{'  (template)' if r['template'] else ''}  {r['description']}"
                                     for r in rows) or "no resources")
    if args.command == "prompts":
        rows = resources.prompt_rows(hub)
        return show(rows, "\n".join(f"{r['server']}/{r['name']}({', '.join(a['name'] for a in r['arguments'])})  {r['description']}"
                                     for r in rows) or "no prompts")
    offering = {n: c for n, c in hub.clients.items() if isinstance(c, Offers)}
    if args.command == "read":
        server = args.server or lister(offering, args.uri)
        if server not in offering:
            raise UsageError(f"--server: no connected server '{server}'" + (" that offers resources" if server in hub.clients else ""))
        try:
            contents = await offering[server].read_resource(args.uri)
        except ToolError as exc:
            raise HarnessError(str(exc)) from None
        text = "\n".join(c["text"] if "text" in c else saver.save(str(c.get("blob", "")), str(c.get("mimeType", "")), server, "read",
                                                                  f"resource {c.get('uri', args.uri)}")
                         if saver is not None else f"[binary {c.get('mimeType', 'data')}]" for c in contents)
        return show({"server": server, "uri": args.uri, "contents": contents}, text)
    server, _, name = args.name.rpartition("/")
    found = [r for r in resources.prompt_rows(hub) if r["name"] == name and server in ("", r["server"])]
    if len(found) != 1:
        known = ", ".join(f"{r['server']}/{r['name']}" for r in resources.prompt_rows(hub)) or "none"
        reason = "is offered by several servers: name it as SERVER/NAME" if found else "is not offered"
        raise UsageError(f"prompt '{args.name}' {reason} (prompts: {known})")
    if not all(isinstance(v, str) for v in arguments.values()):
        raise UsageError("JSON_ARGS: a prompt's arguments are strings")
    client = offering[found[0]["server"]]  # prompt_rows lists only servers that offer
    try:
        expanded = await client.get_prompt(name, arguments)
        text = resources.as_text(expanded)  # one prompts/get: a server that asks for input is asked once
    except ToolError as exc:
        raise HarnessError(str(exc)) from None
    return show({"server": found[0]["server"], "name": name, **expanded, "text": text}, text)


def lister(offering: Mapping[str, Offers], uri: str) -> str:
    """The server that lists ``uri``, or whose template's fixed start it has; a usage error if none or several."""
    listed = sorted({n for n, c in offering.items() for r in c.resources if r["uri"] == uri})
    if not listed:
        listed = sorted({n for n, c in offering.items() for t in c.resource_templates if uri.startswith(t["uriTemplate"].split("{", 1)[0])})
    if len(listed) != 1:
        raise UsageError(f"no single server lists {uri}" + (f" ({', '.join(listed)}): give --server" if listed else ": give --server"))
    return listed[0]
