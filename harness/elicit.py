"""What a server may ask the client for (s33): the user (elicitation), the model (sampling), the roots.

A session advertises a capability only for what the harness really answers: ``callbacks``
returns the ``ClientSession`` options for the parts it is given, and the SDK declares
``elicitation``, ``sampling`` and ``roots`` exactly for those.

**Elicitation** asks the user. Form mode shows the server's message and each field with its
type and default; the user accepts (fields filled, the schema's defaults applied to what
they left out, as SEP-1034 says), declines or cancels. URL mode shows a page to visit and
waits until the user says they are done (in both eras it may also come as error -32042 on
a call; ``InputRounds`` then calls again). In lessons the
answers are the scenario's; on a terminal the user types them; with neither, the answer is
decline.

**Sampling** asks the model: the harness's own (scripted offline, the real API with
``--live``). The user is asked first and may refuse; each server gets at most
``max_requests`` samples per run and ``max_tokens`` per sample, whatever it asks for.

**Roots** are the workspace. ``Roots.move`` changes them and tells every server.

Sampling, roots and logging are deprecated as of protocol 2026-07-28 (SEP-2577) and still
widely served. In that era a server cannot send requests of its own; it answers a call
with an input-required result instead, and ``InputRounds`` answers it with these same
callbacks and calls again.

**The rounds** are ``rounds``, a pure loop in the manner of the SDK's own
(``mcp/client/_input_required.py``): send, and while the server answers input-required,
answer its requests and send again with its request state; an error -32042 sends the user
to its pages first. ``InputRounds`` is the mechanism that runs it on the connection's
``around_send`` hook, with the callbacks it also gives the session (``session_options``). Unlike the SDK's, it answers one request at a time (the
transcript's order is the user's), and each round starts the call timeout again: the time
was the user's, not the server's.
Each round is named in the transcript (``input-required round 1: ... the server asks for
elicitation 'team'``), or it would look like any form the server asked for.

Introduced by s33. Not handled here: sampling with tools (the server's ``tools`` in a
sampling request are refused), elicitation inside tasks.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

import mcp_types as types
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from harness import echo, form, pages
from harness.ask import Answer, Ask, Script, as_form  # Script: named here too, as s33 and the CLI use it
from harness.client import Host, Rooted
from harness.hooks import Call, Mechanism, Send
from harness.errors import ToolError
from harness.guard import printable
from harness.jsonvalue import JSON, JSONMapping, JSONObject
from harness.transcript import Transcript

if TYPE_CHECKING:
    from harness.hooks import Sent, SessionCallback
    from harness.model import Model

R = TypeVar("R")  # what a request brings back once the server stops asking

DECISIONS = ("accept", "decline", "cancel")
INPUT_ROUNDS = 5  # input-required rounds (2026-07-28) in one call before giving up
URL_RETRIES = 3  # calls made again after the user visited a page (-32042), as Claude Code
CALLBACKS = ("elicitation_callback", "sampling_callback", "list_roots_callback")


async def rounds(send: Callable[[types.InputResponses | None, str | None], Awaitable[R | types.InputRequiredResult]], *,
                 answer: Callable[[types.InputRequests], Awaitable[types.InputResponses]],
                 visit: Callable[[MCPError], Awaitable[bool]] | None, restart: Callable[[], None], where: str,
                 told: Callable[[int, types.InputRequests], None] | None = None) -> R:
    """``send(responses, request_state)`` until the server stops asking: its result, or ``ToolError``.

    ``answer`` answers an input-required result's requests; ``visit`` shows the pages of a
    -32042 error to the user (None: nobody to show them to, the error stands); ``restart``
    starts the call timeout again after each round; ``told(round, requests)`` hears of each
    input-required result before it is answered.
    """
    responses: types.InputResponses | None = None
    state: str | None = None
    visits = 0
    for number in range(1, INPUT_ROUNDS + 1):
        try:
            result = await send(responses, state)
        except MCPError as exc:
            if exc.code != types.URL_ELICITATION_REQUIRED or visit is None or visits >= URL_RETRIES:
                raise
            visits += 1
            if not await visit(exc):
                raise ToolError(f"{where}: needs a step in the browser first ({printable(exc.message, 120)}); it was not done") from None
            restart()
            continue
        if not isinstance(result, types.InputRequiredResult):
            return result
        if told is not None:
            told(number, result.input_requests or {})
        responses, state = await answer(result.input_requests or {}), result.request_state
        restart()
    raise ToolError(f"{where}: still asking for input after {INPUT_ROUNDS} rounds; stopped")


class InputRounds(Mechanism):
    """``rounds`` on every tools/call, answered by the session's own callbacks (those given)."""

    order = 40

    def __init__(self, callbacks: Mapping[str, SessionCallback]) -> None:
        self._callbacks = dict(callbacks)
        self._say: Callable[[str, str], None] = lambda kind, text: None
        self._name = ""

    def bind(self, host: Host) -> None:
        self._say, self._name = host.say, host.name

    def session_options(self) -> dict[str, SessionCallback]:
        return dict(self._callbacks)  # the SDK declares a capability exactly for each callback given

    async def around_send(self, call: Call, proceed: Send) -> Sent:
        # The first request as rounds() would send it. A result that asks for nothing (nearly
        # every call) is the call's at once: no round is built for it, since this runs per call.
        first: Sent | MCPError | None
        try:
            first = await proceed(call, input_responses=None, request_state=None, allow_input_required=True)
        except MCPError as exc:
            if exc.code != types.URL_ELICITATION_REQUIRED:
                raise
            first = exc
        else:
            if not isinstance(first, types.InputRequiredResult):
                return first

        async def again(responses: types.InputResponses | None, state: str | None) -> Sent:
            nonlocal first
            if first is not None:  # round 1 was sent above: its outcome, as if sent now
                outcome, first = first, None
                if isinstance(outcome, MCPError):
                    raise outcome
                return outcome
            return await proceed(call, input_responses=responses, request_state=state, allow_input_required=True)

        def told(number: int, requests: types.InputRequests) -> None:  # the 2026-07-28 round, named: it looks like any form otherwise
            asked = ", ".join(f"{_KINDS.get(type(r), 'input')} '{key}'" for key, r in requests.items()) or "nothing"
            self._say("note", f"{self._name}: {call.tool}: input-required round {number}: no result yet, the server asks for {asked}; "
                              "the harness answers, then makes the call again with the answers")

        visit = (lambda exc: self._visit(call, exc)) if "elicitation_callback" in self._callbacks else None
        return await rounds(again, answer=lambda requests: self._answer(call, requests), visit=visit,
                            restart=call.restart, where=call.where, told=told)

    async def _visit(self, call: Call, exc: MCPError) -> bool:
        """Hand each page of a -32042 error to the elicitation callback (URL mode); True if the user did them all."""
        data = exc.data if isinstance(exc.data, dict) else {}
        pages = [e for e in data.get("elicitations") or [] if isinstance(e, dict) and e.get("mode") == "url"]
        if not pages:
            return False
        for page in pages:
            params = types.ElicitRequestURLParams(message=str(page.get("message", "")), url=str(page.get("url", "")),
                                                  elicitation_id=str(page.get("elicitationId", "")))
            answer = await self._callbacks["elicitation_callback"](ClientRequestContext(session=call.session, request_id="url"), params)
            if not (isinstance(answer, types.ElicitResult) and answer.action == "accept"):
                return False
        return True

    async def _answer(self, call: Call, requests: types.InputRequests) -> types.InputResponses:
        """The answers to an input-required result, from the same callbacks that serve the server's own requests."""
        answers: types.InputResponses = {}
        for key, request in requests.items():
            context = ClientRequestContext(session=call.session, request_id=key)
            method = getattr(request, "method", "input")  # a request of a kind this client does not know may lack one
            callback = {types.ElicitRequest: "elicitation_callback", types.CreateMessageRequest: "sampling_callback",
                        types.ListRootsRequest: "list_roots_callback"}.get(type(request))
            if callback is None or callback not in self._callbacks:
                raise ToolError(f"{call.where}: the server needs {method}, which this client does not offer")
            args = (context,) if callback == "list_roots_callback" else (context, request.params)
            answer = await self._callbacks[callback](*args)
            if isinstance(answer, types.ErrorData):
                raise ToolError(f"{call.where}: {method}: {printable(answer.message, 200)}")
            answers[key] = answer
        return answers


_KINDS = {types.ElicitRequest: "elicitation", types.CreateMessageRequest: "sampling", types.ListRootsRequest: "roots"}


class Asker:
    """The user's side. ``answers``: a ``Script`` (lessons), or None for a terminal (``ask_in``) or, failing that, nobody."""

    def __init__(self, script: Script | None = None, transcript: Transcript | None = None, *,
                 ask_in: TextIO | None = None, ask_out: TextIO | None = None, ask: Ask | None = None) -> None:
        self._ask = ask or Ask(script, ask_in=ask_in, ask_out=ask_out)  # the one way a person is asked (harness.ask)
        self.script, self.transcript, self.who = self._ask.script, transcript, self._ask.who

    async def form(self, server: str, message: str, schema: JSONMapping) -> tuple[str, JSONObject | None]:
        """The user's answer to a form: accept with its content, decline or cancel. A person at the terminal is asked
        what to type, and after ``accept`` each field in turn (``harness.form``); a decline the client made says why."""
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        fields = "; ".join(form.field(n, p, n in required) for n, p in props.items())
        if self._ask.at_terminal:
            given = await self._answer(form.opening(f"{server} asks: {echo.line(message, 300)}", fields))
        else:
            given = await self._answer(f"{message} [{fields}] accept, decline or cancel")
        action, values = _form_answer(given)
        content, why, told = None, "", "" if action != "decline" or values is not None else _no_form(given, self._ask)
        if action == "accept" and values is None and self._ask.at_terminal:  # ``accept`` typed at the terminal: each field asked in turn
            values, why = await form.fill(schema, self._ask.line)
            action = "accept" if values is not None else "decline"
        if action == "accept":
            content = {n: p["default"] for n, p in props.items() if isinstance(p, dict) and "default" in p}  # SEP-1034
            content.update({k: _typed(v, props.get(k, {})) for k, v in (values or {}).items() if k in props})
            missing = sorted(required - set(content))
            if missing:
                action, content, why = "decline", None, f"missing required {', '.join(missing)}"  # cannot accept without it
        self._say(server, f"form: {message}", fields, f"decline ({why})" if why else
                  action + (f" {json.dumps(content, sort_keys=True)}" if content else ""))
        if (why or told) and self.transcript is None:  # the CLI: no transcript to read it in, so the person is told
            self._ask.tell(f"form from {server} declined: {why or told}")
        return action, content

    async def visit(self, server: str, message: str, url: str) -> bool:
        """Offer the page (``harness.pages``: https, or http on this machine; the host shown apart); True once done.
        A URL that may not be offered is declined without asking, and the transcript says why."""
        try:
            page = pages.check(url)
        except pages.Refused as refused:
            self._say(server, f"url: {message}", f"not offered: {echo.line(url, 200)}: {refused}", "declined")
            return False
        given = await self._answer(f"{message} Open {page.shown()} and answer done when finished (or no)")
        done = isinstance(given, str) and given.strip().lower() in ("done", "yes", "accept")
        self._say(server, f"url: {message}", f"open {page.shown()}", "done" if done else "not done")
        return done

    async def consent(self, server: str, what: str) -> bool:
        if self.script is not None and self.script.only_samples_left():  # a sample given with no word for it consents
            self._say(server, "sampling: " + what, "", "yes (a sample was given)")
            return True
        given = await self._answer(f"allow {server} to {what}? yes or no")
        yes = isinstance(given, str) and given.strip().lower() in ("yes", "y", "always")
        self._say(server, "sampling: " + what, "", "yes" if yes else "no")
        return yes

    async def _answer(self, question: str) -> Answer:
        return None if self._ask.yes else await self._ask.question(question + ": ")  # --yes answers permissions only

    def _say(self, server: str, asked: str, detail: str, answer: str) -> None:
        if self.transcript is not None:
            self.transcript.post("elicit", server=server, asked=asked, detail=detail, answer=answer, by=self.who)


class Sampler:
    """Answers ``sampling/createMessage`` with the harness's model, within per-server limits and with consent."""

    def __init__(self, model: Model, asker: Asker, script: Script | None = None, *, max_requests: int = 3, max_tokens: int = 1000) -> None:
        self.model, self.asker, self.script = model, asker, script
        self.max_requests, self.max_tokens = max_requests, max_tokens
        self.used: dict[str, int] = {}

    async def sample(self, server: str, messages: list[JSONObject], system: str | None, max_tokens: int,
                     tools: list[types.Tool] | None = None) -> str:
        """The model's text; ``PermissionError`` (refused or over a limit) says why."""
        if tools:
            raise PermissionError("sampling with tools is not offered by this client")
        if self.used.get(server, 0) >= self.max_requests:
            raise PermissionError(f"server '{server}' has used its {self.max_requests} sampling requests for this run")
        first = next((m["content"] for m in messages if isinstance(m.get("content"), str)), "")
        if not await self.asker.consent(server, f"ask the model ({min(max_tokens, self.max_tokens)} tokens at most): {first[:120]}"):
            raise PermissionError("the user refused the sampling request")
        self.used[server] = self.used.get(server, 0) + 1
        if self.script is not None:  # offline: the scenario says what the model answers
            said = self.script.next_sample()
            if said is None:
                raise PermissionError("the scenario has no sample left to answer with")
            return said
        reply = await self.model.reply(system or "", messages, [])
        return reply.text


class Roots:
    """The workspace as the servers' one root; ``move`` changes it and tells every connected server."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def listing(self) -> list[dict[str, str]]:
        return [{"uri": self.root.as_uri(), "name": "workspace"}]

    async def move(self, root: Path, clients: Iterable[object]) -> None:
        self.root = root.resolve()
        for client in clients:
            if isinstance(client, Rooted):
                await client.roots_changed()


def callbacks(server: str, *, asker: Asker | None = None, sampler: Sampler | None = None, roots: Roots | None = None) -> dict[str, SessionCallback]:
    """``ClientSession`` options for one server: a callback (and so a capability) only for each part given."""
    options: dict[str, SessionCallback] = {}
    if asker is not None:
        async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
            if getattr(params, "mode", "form") == "url":
                done = await asker.visit(server, params.message, params.url)
                return types.ElicitResult(action="accept" if done else "decline")
            action, content = await asker.form(server, params.message, params.requested_schema or {})
            return types.ElicitResult(action=action, content=content)

        options["elicitation_callback"] = elicit
    if sampler is not None:
        async def sample(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> types.CreateMessageResult | types.ErrorData:
            messages = [{"role": m.role, "content": m.content.text if getattr(m.content, "type", "") == "text" else "[non-text content]"}
                        for m in params.messages]
            try:
                text = await sampler.sample(server, messages, params.system_prompt, params.max_tokens, params.tools)
            except PermissionError as exc:
                return types.ErrorData(code=-1, message=str(exc))
            return types.CreateMessageResult(role="assistant", content=types.TextContent(text=text),
                                             model="harness", stop_reason="endTurn")

        options["sampling_callback"] = sample
    if roots is not None:
        async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[types.Root(uri=r["uri"], name=r["name"]) for r in roots.listing()])

        options["list_roots_callback"] = list_roots
    return options


def _form_answer(given: Answer) -> tuple[str, JSONObject | None]:
    """(action, the fields given): ``accept`` with None fields is ``accept`` typed at the terminal, fields to ask."""
    given = as_form(given)
    if isinstance(given, dict) and isinstance(given.get("form"), dict):
        return "accept", given["form"]
    if isinstance(given, str) and given.strip().lower() in DECISIONS:
        return given.strip().lower(), None
    return "decline", None  # nobody answered, or an answer that is no form: the safe choice


def _no_form(given: Answer, ask: Ask) -> str:
    """Why an answer declined the form ("" when the user chose decline)."""
    if isinstance(given, str) and given.strip().lower() == "decline":
        return ""
    if given is None:
        return "nobody to answer it (give it with --answer '{\"field\": value}', or run on a terminal)" if ask.script is None \
            else "no answer left for it"
    return f"{echo.line(str(given), 80)!r} is not a form's answer (accept, decline, cancel or the fields as JSON)"


def _typed(value: JSON, prop: JSON) -> JSON:
    """A typed answer for a field (a terminal gives strings): booleans and numbers as the schema says."""
    kind = prop.get("type") if isinstance(prop, dict) else None
    if isinstance(value, str) and kind == "boolean":
        return value.strip().lower() in ("true", "yes", "y", "1")
    if isinstance(value, str) and kind in ("number", "integer"):
        try:
            return int(value) if kind == "integer" else float(value)
        except ValueError:
            return value
    return value
