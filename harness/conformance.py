"""The harness as a client for the official MCP conformance suite's client scenarios.

    python -m harness.conformance URL      (the suite appends URL; MCP_CONFORMANCE_SCENARIO names the scenario)
    .ci/conformance/run.sh .venv/bin/python -m harness.conformance

Everything goes through ``harness.connection`` (Streamable HTTP), exactly as the lessons
connect: the era negotiated as the user CLI does (s34: ``server/discover``, falling back to
``initialize``), tools/list, then the calls the scenario asks for (``plan``): the ones
``MCP_CONFORMANCE_CONTEXT`` names under ``toolCalls`` when it does; in
``json-schema-2020-12-preservation``, the echo tool given each other tool's input schema as
the harness holds it (the suite checks that nothing was stripped); otherwise each tool
once, with arguments made from its input schema. The only other thing added for the suite
is an elicitation callback that accepts with the schema's default values (SEP-1034).
Skills (SEP-2640, ``harness.skills``): every connection lists them, and nothing more unless
a skill is chosen (``skill_plan``: in ``sep-2640-client-no-prefetch`` none is, the suite
checks that listing reads nothing; in the others each listed skill is loaded, as a model
would load it, and then each of its files read, as the skill's text would send the model
to them; a file that fails verification stops that skill). The SSE stream reconnect of ``sse-retry``
(honouring ``retry:`` and sending ``Last-Event-ID``) is the SDK transport's own behaviour.

The ``auth/*`` scenarios connect through ``harness.auth`` exactly as s26 does: the SDK's
OAuth provider, a token store (in a temporary folder here), the loopback callback and the
automatic browser. What the suite adds, from ``MCP_CONFORMANCE_CONTEXT``: pre-registered
client credentials go into the store before the first request (no registration), and the
two ``client-credentials`` scenarios use the SDK's client-credentials providers (secret or
``private_key_jwt``) instead of a browser. ``CIMD_URL`` is offered as a client metadata
document URL; the SDK uses it only where the authorization server says it supports that.

Not handled: stdio and legacy SSE (the suite's client scenarios are all Streamable HTTP).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp.client.auth.extensions.client_credentials import (ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider,
                                                          SignedJWTParameters)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import extract_resource_metadata_from_www_auth
from mcp.shared.auth import OAuthClientInformationFull

from harness import nesting
from harness import era, skills, stack
from harness.auth import Authorizer, TokenStore
from harness.errors import HarnessError, ToolError
from harness.jsonvalue import JSONObject
from harness.transcript import Transcript
from harness.connection import connect
from harness.spec import ServerSpec

if TYPE_CHECKING:
    from mcp.client.auth import TokenStorage
    from mcp.client.session import ClientRequestContext

CIMD_URL = "https://conformance-test.local/client-metadata.json"  # the document the suite's CIMD scenario expects
EXAMPLES = {"string": "test", "number": 1, "integer": 1, "boolean": True}


async def accept_defaults(ctx: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    """Accept a form elicitation with every default its schema gives; decline anything else."""
    schema = getattr(params, "requested_schema", None)
    if not isinstance(schema, dict):
        return types.ElicitResult(action="decline")
    properties = schema.get("properties") or {}
    return types.ElicitResult(action="accept", content={k: p["default"] for k, p in properties.items() if "default" in p})


def example_arguments(schema: JSONObject) -> JSONObject:
    """One value per property: its default, or a plain example of its type."""
    return {k: p.get("default", EXAMPLES.get(p.get("type"), "test")) for k, p in (schema.get("properties") or {}).items()}


@asynccontextmanager
async def scenario_auth(url: str, scenario: str, context: JSONObject, out: TextIO) -> AsyncIterator[httpx2.Auth | None]:
    """The ``httpx2.Auth`` for an ``auth/*`` scenario (None for the others)."""
    if not scenario.startswith("auth/"):
        yield None
        return

    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as folder:
        store = TokenStore(Path(folder), "conformance", url)
        if scenario.startswith("auth/client-credentials"):
            yield _client_credentials(url, context, store)
            return
        if "idp_id_token" in context:
            yield await _cross_app_access(url, context, store)
            return
        async with Authorizer("conformance", url, Path(folder), Transcript(out), client_metadata_url=CIMD_URL) as authz:
            authz.interactive = True  # the automatic browser consents at once
            if context.get("client_id"):  # pre-registration: the credentials the suite handed us
                authz.redact(context.get("client_secret"), "client_secret")
                await authz.store.set_client_info(OAuthClientInformationFull(
                    client_id=context["client_id"], client_secret=context.get("client_secret"),
                    redirect_uris=[authz.callback.redirect_uri], token_endpoint_auth_method="client_secret_basic"))
            yield authz.auth


def _client_credentials(url: str, context: JSONObject, store: TokenStorage) -> httpx2.Auth:
    """Machine-to-machine: no user, no browser; a client secret or a signed JWT (RFC 7523)."""
    if "private_key_pem" in context:
        signer = SignedJWTParameters(issuer=context["client_id"], subject=context["client_id"], signing_key=context["private_key_pem"],
                                     signing_algorithm=context.get("signing_algorithm", "RS256"))
        return PrivateKeyJWTOAuthProvider(url, store, context["client_id"], signer.create_assertion_provider())
    return ClientCredentialsOAuthProvider(url, store, context["client_id"], context["client_secret"])


async def _cross_app_access(url: str, context: JSONObject, store: TokenStorage) -> httpx2.Auth:
    """SEP-990: trade the enterprise IdP's ID token for an ID-JAG (RFC 8693), then the ID-JAG for an access token (RFC 7523)."""
    async with httpx2.AsyncClient(timeout=30) as http:
        # The provider takes the authorization server as configuration; the suite only tells
        # us the MCP URL, so ask the resource once, as the default flow would (RFC 9728).
        challenge = await http.post(url, json={"jsonrpc": "2.0", "id": 0, "method": "ping"})
        prm = (await http.get(extract_resource_metadata_from_www_auth(challenge) or url)).json()
    issuer = prm["authorization_servers"][0]

    async def id_jag(audience: str, resource: str) -> str:
        async with httpx2.AsyncClient(timeout=30) as http:
            answer = await http.post(context["idp_token_endpoint"], data={
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "subject_token": context["idp_id_token"],
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "audience": audience, "resource": resource, "client_id": context["idp_client_id"]})
        answer.raise_for_status()
        return answer.json()["access_token"]

    return IdentityAssertionOAuthProvider(url, store, context["client_id"], context["client_secret"], issuer, id_jag,
                                          token_endpoint_auth_method="client_secret_basic")


async def run(url: str, scenario: str, out: TextIO, context: JSONObject | None = None) -> int:
    async with scenario_auth(url, scenario, context or {}, out) as auth:
        return await _exercise(url, scenario, out, auth, context or {})


SCHEMA_ECHO = "json_schema_echo"  # json-schema-2020-12-preservation's tool that takes a schema back


def plan(scenario: str, tools: list[JSONObject], context: JSONObject) -> list[tuple[str, JSONObject]]:
    """The calls to make: (tool name, arguments), in order."""
    if scenario == "initialize":
        return []
    if isinstance(calls := context.get("toolCalls"), list):
        return [(str(c.get("name")), dict(c.get("arguments") or {})) for c in calls if isinstance(c, dict)]
    if any(tool["name"] == SCHEMA_ECHO for tool in tools):
        return [(SCHEMA_ECHO, {"schema": tool.get("inputSchema") or {}}) for tool in tools if tool["name"] != SCHEMA_ECHO]
    return [(tool["name"], example_arguments(tool.get("inputSchema") or {})) for tool in tools]


def skill_plan(scenario: str) -> bool:
    """Whether the listed skills are loaded (each ``SKILL.md``, then its files): not where the suite checks no prefetch."""
    return scenario != "sep-2640-client-no-prefetch"


async def load_skills(listing: skills.Listing, out: TextIO) -> None:
    """Each listed skill's ``SKILL.md``, verified, then each of its other files; a refusal stops that skill."""
    for skill in listing.skills:
        try:
            for uri in [skill.uri, *(f.uri for f in skill.files or () if f.uri != skill.uri)]:
                data = await listing.read(skill, uri)
                print(f"skill {skill.name}: {skill.relative(uri)}: {len(data)} bytes, verified", file=out)
        except ToolError as exc:  # a tampered file: refused, and nothing after it is read
            print(f"skill {skill.name}: {exc}", file=out)


async def _exercise(url: str, scenario: str, out: TextIO, auth: httpx2.Auth | None, context: JSONObject) -> int:
    listing = skills.Listing()
    conn = await connect(ServerSpec("conformance", "http", url=url), auth=auth, handshake=era.handshake(era.AUTO),
                         mechanisms=sorted([*stack.mechanisms({"elicitation_callback": accept_defaults}, eras=True), listing],
                                           key=lambda m: m.order))
    try:
        print(f"{scenario or 'scenario?'}: connected, {len(conn.tools)} tool(s), {len(listing.skills)} skill(s)", file=out)
        if skill_plan(scenario):
            await load_skills(listing, out)
        for name, arguments in plan(scenario, conn.tools, context):
            try:
                print(f"{name}: {(await conn.call_tool(name, arguments)).text()}", file=out)
            except ToolError as exc:  # graded on the wire, not by us: report and go on
                print(f"{name}: error: {exc}", file=out)
    finally:
        await conn.aclose()
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m harness.conformance URL", file=sys.stderr)
        return 2
    try:
        context = nesting.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")  # from outside: nesting bounded
        return anyio.run(run, argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", ""), sys.stdout, context)
    except (HarnessError, Exception) as exc:  # one line, never a traceback: the suite grades the wire
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        shown = str(exc) if isinstance(exc, HarnessError) else f"{type(exc).__name__}: {exc}"
        print(f"error: {' '.join(shown.split())[:500]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
