"""What a client is: small runtime-checkable protocols, composed.

Every module that holds a client (the hub, the pool, resources, the CLI) asks
``isinstance(client, Offers)`` and the like, never ``getattr`` or ``hasattr``: a member
that is used is a member declared here. A client is whatever meets them; the hub cannot
tell a mock server in process from a real connection::

    Client      name, tools, call_tool              every client (s19's MockClient too)
    Lists       list_tools                          ask the server again
    Renews      renewable, reconnect                a connection that can open a new session (s28)
    Observed    observe                             tells the hub of every state change
    Closes      aclose                              holds a process or a session to stop
    Retimed     retime                              takes new timeouts for its next requests (s29)
    Offers      capabilities, resources, resource_templates, prompts,
                list_resources, read_resource, get_prompt, drain_logs       (s30)
    Rooted      roots_changed                       tells its server the roots moved (s33)
    Stderr      stderr_tail                         the last lines its server wrote (stdio)
    Speaks      protocol                            the protocol version its session speaks (s34)

``MCPConnection`` (``harness.connection``) meets them all; ``MockClient`` meets ``Client``
and ``Lists``; s26's needs-auth stand-in meets ``Client`` alone.

Two more protocols face the other way, toward the mechanisms plugged into a connection
(``harness.hooks``):

    Host        what a mechanism may read and ask of the connection it is bound to
    Offering    a mechanism that answers a connection's resources and prompts (s30's)

Not handled here: what each member does (the modules that implement them say).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeGuard, TypeVar, runtime_checkable

from harness.jsonvalue import JSON, JSONObject

if TYPE_CHECKING:
    from collections.abc import Awaitable

    import mcp_types
    from mcp.client.session import ClientSession

    from harness.errors import ServerError
    from harness.hooks import Request
    from harness.results import ToolResult
    from harness.spec import Limits, ServerSpec, State, Timeouts
    from harness.transports.context import Context

T = TypeVar("T")
Observer = Callable[["State", str], None]  # (the new state, why in a few words)


@runtime_checkable
class Client(Protocol):
    """What the rest of the harness needs from any MCP client, mock or real."""

    name: str
    tools: list[JSONObject]  # as tools/list returned them: name, description, inputSchema, annotations

    async def call_tool(self, tool: str, arguments: JSONObject) -> ToolResult: ...


@runtime_checkable
class Lists(Protocol):
    async def list_tools(self) -> list[JSONObject]: ...


@runtime_checkable
class Renews(Protocol):
    @property
    def renewable(self) -> bool: ...  # whether reconnect() can open a new session now

    async def reconnect(self) -> bool: ...  # connected afterwards?


@runtime_checkable
class Observed(Protocol):
    def observe(self, observer: Observer) -> None: ...


@runtime_checkable
class Closes(Protocol):
    async def aclose(self) -> None: ...


@runtime_checkable
class Retimed(Protocol):
    def retime(self, timeouts: Timeouts) -> None: ...


@runtime_checkable
class Offering(Protocol):
    """A mechanism that answers a connection's resources and prompts (``Offers`` less the capabilities)."""

    resources: list[JSONObject]
    resource_templates: list[JSONObject]
    prompts: list[JSONObject]

    async def list_resources(self) -> list[JSONObject]: ...

    async def read_resource(self, uri: str) -> list[JSONObject]: ...

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> JSONObject: ...

    def drain_logs(self) -> list[JSONObject]: ...


@runtime_checkable
class Offers(Offering, Protocol):
    capabilities: JSONObject  # as the server declared them at initialize


@runtime_checkable
class Speaks(Protocol):
    protocol: str | None  # the protocol version its current session speaks


@runtime_checkable
class Rooted(Protocol):
    async def roots_changed(self) -> None: ...


@runtime_checkable
class Stderr(Protocol):
    def stderr_tail(self, lines: int = ...) -> list[str]: ...


def has_resources(client: object) -> TypeGuard[Offers]:
    """Whether ``client`` offers resources: it has the members, and its server declared the capability."""
    return isinstance(client, Offers) and "resources" in client.capabilities


@runtime_checkable
class Host(Protocol):
    """The connection a mechanism is bound to (``Mechanism.bind``): what it may read, and what it may ask.

    Reading: who the server is, its state and why, what it declared, the current session's
    transport context. Asking: say something, name the step the opening is at, move the
    state (a supervisor only), open a new session, send a bounded request.
    """

    name: str
    spec: ServerSpec
    tools: list[JSONObject]

    @property
    def state(self) -> State: ...

    @property
    def error(self) -> ServerError | None: ...

    @property
    def reason(self) -> str: ...

    @property
    def generation(self) -> int: ...  # sessions established so far

    @property
    def capabilities(self) -> JSONObject: ...  # as the server declared them

    @property
    def context(self) -> Context | None: ...  # the current session's transport context

    @property
    def timeouts(self) -> Timeouts: ...

    @property
    def limits(self) -> Limits: ...

    def say(self, kind: str, text: str) -> None: ...  # a transcript line ("note", "warning"); warnings also to the UI

    def post(self, kind: str, **fields: JSON) -> None: ...  # a transcript event

    def begin(self, phase: str) -> None: ...  # the opening's current step, which a failure then names

    def live(self, tool: str | None) -> ClientSession: ...  # the current session, or ToolError saying why none

    def set_state(self, state: State, reason: str) -> None: ...

    async def reconnect(self) -> bool: ...

    async def renew(self, generation: int) -> bool: ...  # replace that session, once however many ask

    async def relist_tools(self, session: ClientSession) -> list[JSONObject]: ...

    async def request(self, what: str, request: Awaitable[T], limit: float, name: str) -> T: ...

    async def send(self, method: str, target: str, arguments: dict[str, JSON], what: str) -> mcp_types.Result: ...  # rounds too

    async def fetched(self, session: ClientSession, method: str, key: str, request: Request) -> mcp_types.Result: ...

    def hear_via(self, session: ClientSession, source: str) -> None: ...  # notifications come on ``source``, not the session

    def heard_via(self, session: ClientSession) -> str | None: ...
