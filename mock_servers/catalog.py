"""The mock servers, defined once as data: tools, schemas, annotations and handlers.

Each factory returns a fresh ``ServerDef`` with its own state (the deploy server counts
deployments), so two runs never share anything. Everything a handler returns is
deterministic. A handler that rejects its input raises ``ValueError``; the server side
turns that into an MCP error result (``isError``), never a crash.

Servers:
    docs        search, get_version          read-only, from the s19 chapter
    deploy      trigger, status              trigger is destructive
    acme.wiki   page.get, find pages, ...    names that need normalizing (s21)
    acme wiki   page.get                     normalizes onto acme.wiki's names (s21)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Handler = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class ToolDef:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Handler = field(compare=False, repr=False)
    annotations: Mapping[str, Any] = field(default_factory=dict)

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` describes it on the wire."""
        entry: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": dict(self.input_schema)}
        if self.annotations:
            entry["annotations"] = dict(self.annotations)
        return entry


@dataclass(frozen=True)
class ServerDef:
    name: str
    version: str
    tools: tuple[ToolDef, ...]

    def tool(self, name: str) -> ToolDef | None:
        return next((t for t in self.tools if t.name == name), None)


def _object(required: list[str] | None = None, **props: Mapping[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {k: dict(v) for k, v in props.items()}}
    if required:
        schema["required"] = required
    return schema


def _string(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"'{name}' must be a non-empty string")
    return value


# --- docs --------------------------------------------------------------------------

_PAGES = {
    "hooks": "Hooks run shell commands before or after a tool call; configure them in settings.json.",
    "mcp": "MCP servers add tools over a standard protocol; their tools are named mcp__server__tool.",
    "permissions": "Permission rules allow or deny tools by name, for example mcp__docs__search.",
    "deploy": "The deploy service promotes a build to staging, then to production after checks.",
}


def docs() -> ServerDef:
    def search(args: dict[str, Any]) -> str:
        query = _string(args.get("query"), "query").lower()
        hits = [f"{title}: {text}" for title, text in sorted(_PAGES.items()) if query in title or query in text.lower()]
        return "\n".join(hits) if hits else f"no pages match '{query}'"

    def get_version(args: dict[str, Any]) -> str:
        return "docs 1.4.2 (4 pages)"

    read_only = {"readOnlyHint": True, "openWorldHint": False}
    return ServerDef("docs", "1.4.2", (
        ToolDef("search", "Search the team documentation by keyword.", _object(["query"], query={"type": "string", "description": "a keyword"}), search, read_only),
        ToolDef("get_version", "Return the documentation version.", _object(), get_version, read_only),
    ))


# --- deploy ------------------------------------------------------------------------


def deploy() -> ServerDef:
    deployments: dict[str, tuple[str, str]] = {}

    def trigger(args: dict[str, Any]) -> str:
        service = _string(args.get("service"), "service")
        env = args.get("environment", "staging")
        if env not in ("staging", "production"):
            raise ValueError("'environment' must be 'staging' or 'production'")
        deployment = f"dep-{len(deployments) + 1:04d}"
        deployments[deployment] = (service, env)
        return f"{deployment}: deploying {service} to {env}"

    def status(args: dict[str, Any]) -> str:
        deployment = _string(args.get("deployment_id"), "deployment_id")
        if deployment not in deployments:
            raise ValueError(f"unknown deployment '{deployment}'")
        service, env = deployments[deployment]
        return f"{deployment}: {service} is live on {env}"

    env_schema = {"type": "string", "enum": ["staging", "production"], "default": "staging"}
    return ServerDef("deploy", "0.9.0", (
        ToolDef("trigger", "Deploy a service to an environment.", _object(["service"], service={"type": "string"}, environment=env_schema), trigger, {"destructiveHint": True, "openWorldHint": True}),
        ToolDef("status", "Report a deployment's status.", _object(["deployment_id"], deployment_id={"type": "string"}), status, {"readOnlyHint": True}),
    ))


# --- acme wiki: names that need normalizing ------------------------------------------

_LONG = "export_page_history_with_all_revisions_and_attachments_as_archive"


def _wiki(server_name: str, tool_names: tuple[str, ...]) -> ServerDef:
    def page(args: dict[str, Any]) -> str:
        return f"[{server_name}] page '{_string(args.get('title'), 'title')}': Welcome to the wiki."

    def find(args: dict[str, Any]) -> str:
        return f"[{server_name}] 2 pages match '{_string(args.get('text'), 'text')}': Home, Onboarding"

    def lookup(args: dict[str, Any]) -> str:
        return f"[{server_name}] résumé of '{_string(args.get('name'), 'name')}': engineer since 2019"

    def export(args: dict[str, Any]) -> str:
        return f"[{server_name}] exported '{_string(args.get('title'), 'title')}' with 12 revisions"

    title = _object(["title"], title={"type": "string"})
    every = {
        "page.get": ToolDef("page.get", "Read a wiki page by title.", title, page, {"readOnlyHint": True}),
        "find pages": ToolDef("find pages", "Full-text search over the wiki.", _object(["text"], text={"type": "string"}), find, {"readOnlyHint": True}),
        "résumé": ToolDef("résumé", "Look up a colleague's résumé.", _object(["name"], name={"type": "string"}), lookup, {"readOnlyHint": True}),
        _LONG: ToolDef(_LONG, "Export a page with its whole history.", title, export),
    }
    return ServerDef(server_name, "2.0.0", tuple(every[n] for n in tool_names))


def acme_wiki() -> ServerDef:
    return _wiki("acme.wiki", ("page.get", "find pages", "résumé", _LONG))


def acme_wiki_mirror() -> ServerDef:
    return _wiki("acme wiki", ("page.get",))


SERVERS: Mapping[str, Callable[[], ServerDef]] = {
    "docs": docs,
    "deploy": deploy,
    "acme.wiki": acme_wiki,
    "acme wiki": acme_wiki_mirror,
}
