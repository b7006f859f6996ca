"""The model seam: a scripted model for offline runs, a live one on the Anthropic API.

Both answer one question, ``await model.reply(system, messages, tools)``, with a
``Reply``: the text the model says and the tool calls it makes. The agent loop cannot
tell them apart; only the object differs between offline runs and ``--live``.

The scripted model replays ``scenario.yaml``::

    prompt: Find the docs on hooks.
    turns:
      - text: I'll search the docs.          # what the model says (optional)
        tool_calls:                          # the calls it makes (optional)
          - name: mcp__docs__search
            input: {query: hooks}
      - text: Hooks are covered in ...       # a turn with no calls ends the run

It refuses a call to a tool that is not in the pool it was handed that turn, so a
transcript proves what the model could see. A malformed file raises ``ScenarioError``
naming the file and the key path (``scenario.yaml: turns[1].tool_calls[0].name: required``).

A scenario is a short script, and a hostile one gets one line, not a traceback or a
stalled machine: the file is at most ``MAX_SCENARIO_BYTES``; it must be UTF-8; YAML
aliases (``*name``, and ``<<: *name`` merges) are refused, because a few hundred bytes of
nested aliases expand to gigabytes once a tool input is printed or sent; nesting deeper
than ``MAX_DEPTH`` is refused; and a tool input must be plain JSON data (no dates, sets or
binary that YAML can also express).

The live model imports ``anthropic`` only when it is built, so offline runs never pay
for that import.

Introduced by s19. Not handled here: streaming, prompt caching (s22 explains why the
harness rebuilds the pool instead), images in replies.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.errors import ModelError, ScenarioError, ToolNotInPool, UsageError
from harness.files import read_regular
from harness.jsonvalue import JSON, JSONObject
from harness.tools import Tool

DEFAULT_LIVE_MODEL = "claude-sonnet-4-5"
MAX_SCENARIO_BYTES = 1 << 20  # the lessons' scenarios are about 2 KB; a megabyte of script is a mistake
MAX_DEPTH = 50  # nested lists and mappings; PyYAML recurses per level, and the lessons use 4


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: JSONObject


@dataclass(frozen=True)
class Reply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    # The API's content blocks as it sent them, when they hold blocks the harness does not make (a server tool's
    # server_tool_use and its result): the next request must carry those back verbatim. None: made from the rest.
    content: tuple[JSONObject, ...] | None = None

    def as_message(self) -> JSONObject:
        """The assistant message to append to the conversation."""
        if self.content is not None:
            return {"role": "assistant", "content": [dict(b) for b in self.content]}
        blocks: list[JSONObject] = [{"type": "text", "text": self.text}] if self.text else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in self.tool_calls]
        return {"role": "assistant", "content": blocks}


class Model(Protocol):
    async def reply(self, system: str, messages: list[JSONObject], tools: Sequence[Tool]) -> Reply: ...


# --- scripted ----------------------------------------------------------------------


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    input: JSONObject
    where: str  # key path, for error messages


@dataclass(frozen=True)
class ScriptedTurn:
    text: str
    calls: tuple[ScriptedCall, ...]


@dataclass(frozen=True)
class Scenario:
    source: str  # how the file is named in messages
    prompt: str
    turns: tuple[ScriptedTurn, ...]
    # What the user answers when the harness asks (s31 permissions, s33 elicitation), in
    # order: "yes", "no", "always", or a mapping of form fields. Offline only.
    answers: tuple[JSON, ...] = ()

    @classmethod
    def load(cls, path: Path, display: str | None = None) -> Scenario:
        source = display or path.name
        try:
            raw = read_regular(path, MAX_SCENARIO_BYTES)  # a FIFO or a device is refused, never waited on
        except OSError as exc:
            raise ScenarioError(f"{source}: cannot read: {exc.strerror or exc}") from None
        if len(raw) > MAX_SCENARIO_BYTES:
            raise ScenarioError(f"{source}: too large (over {MAX_SCENARIO_BYTES} bytes; a scenario is a short script)")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise ScenarioError(f"{source}: not UTF-8 (byte 0x{raw[exc.start]:02x} on line {line})") from None
        return cls.parse(_yaml(text, source), source)

    @classmethod
    def parse(cls, data: object, source: str) -> Scenario:
        def fail(where: str, problem: str) -> ScenarioError:
            return ScenarioError(f"{source}: {where}: {problem}")

        def mapping(value: object, where: str, allowed: set[str]) -> JSONObject:
            if not isinstance(value, dict):
                raise fail(where, "expected a mapping")
            unknown = sorted(set(value) - allowed, key=str)
            if unknown:
                raise fail(f"{where}.{unknown[0]}" if where else str(unknown[0]), f"unknown key (allowed: {', '.join(sorted(allowed))})")
            return value

        def text(value: object, where: str, required: bool) -> str:
            if value is None and not required:
                return ""
            if not isinstance(value, str) or (required and not value.strip()):
                raise fail(where, "required" if value is None else "expected a non-empty string")
            return value

        top = mapping(data, "", {"prompt", "turns", "answers"})
        prompt = text(top.get("prompt"), "prompt", required=True)
        raw_turns = top.get("turns")
        if not isinstance(raw_turns, list) or not raw_turns:
            raise fail("turns", "required" if raw_turns is None else "expected a non-empty list")
        turns = []
        for i, raw in enumerate(raw_turns):
            where = f"turns[{i}]"
            turn = mapping(raw, where, {"text", "tool_calls"})
            raw_calls = turn.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise fail(f"{where}.tool_calls", "expected a list")
            calls = []
            for j, raw_call in enumerate(raw_calls):
                at = f"{where}.tool_calls[{j}]"
                call = mapping(raw_call, at, {"name", "input"})
                arguments = call.get("input") or {}
                if not isinstance(arguments, dict):
                    raise fail(f"{at}.input", "expected a mapping")
                where_not_json = _not_json(arguments, f"{at}.input")
                if where_not_json:
                    raise fail(*where_not_json)
                calls.append(ScriptedCall(text(call.get("name"), f"{at}.name", required=True), arguments, at))
            turns.append(ScriptedTurn(text(turn.get("text"), f"{where}.text", required=False), tuple(calls)))
        if turns[-1].calls:
            raise fail(f"turns[{len(turns) - 1}]", "the last turn must make no tool calls (it ends the run)")
        answers = top.get("answers") or []
        if not isinstance(answers, list):
            raise fail("answers", "expected a list")
        for i, answer in enumerate(answers):
            if not isinstance(answer, (str, dict)) or _not_json(answer, f"answers[{i}]"):
                raise fail(f"answers[{i}]", "expected a word (yes, no, always) or a mapping of fields")
        return cls(source, prompt, tuple(turns), tuple(answers))


def _yaml(text: str, source: str) -> object:
    """``yaml.safe_load``, refusing aliases and deep nesting; every failure is one ``ScenarioError`` line."""
    import yaml  # only scripted runs need it

    class Refused(yaml.YAMLError):
        def __init__(self, problem: str, mark: yaml.Mark) -> None:
            super().__init__(problem)
            self.problem, self.problem_mark = problem, mark

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise Refused(f"YAML aliases are not allowed (*{event.anchor}): write the value out", event.start_mark)
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise Refused(f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    loader = Loader(text)
    try:
        return loader.get_single_data()
    except Refused as exc:
        raise ScenarioError(f"{source}: line {exc.problem_mark.line + 1}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark else ""
        raise ScenarioError(f"{source}: not valid YAML{at}") from None
    finally:
        loader.dispose()


def _not_json(value: object, where: str) -> tuple[str, str] | None:
    """(key path, problem) of the first value in ``value`` that JSON cannot carry; None if it is all JSON."""
    stack = [(value, where)]  # a stack, not recursion: depth is bounded by the loader, this stays flat anyway
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    return at, f"keys must be strings, not {type(key).__name__} ({key!r:.40})"
            stack.extend(reversed([(inner, f"{at}.{key}") for key, inner in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(inner, f"{at}[{i}]") for i, inner in enumerate(item)]))
        elif isinstance(item, float) and not math.isfinite(item):
            return at, f"not a JSON number ({item})"
        elif not isinstance(item, (str, int, float, bool)) and item is not None:
            return at, f"not JSON data (YAML read it as a {type(item).__name__}; quote it to make it a string)"
    return None


class ScriptedModel:
    """Replays a scenario turn by turn; refuses tools it was not handed."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self._next = 0
        self._ids = 0

    async def reply(self, system: str, messages: list[JSONObject], tools: Sequence[Tool]) -> Reply:
        if self._next >= len(self.scenario.turns):
            raise ScenarioError(f"{self.scenario.source}: turns: the run asked for turn {self._next + 1} but the script has {len(self.scenario.turns)}")
        turn = self.scenario.turns[self._next]
        self._next += 1
        pool = [t.name for t in tools]
        calls = []
        for call in turn.calls:
            if call.name not in pool:
                raise ToolNotInPool(f"{self.scenario.source}: {call.where}.name: '{call.name}' is not in this turn's pool ({', '.join(pool)})")
            self._ids += 1
            calls.append(ToolCall(f"toolu_{self._ids:02d}", call.name, dict(call.input)))
        return Reply(turn.text, tuple(calls))


# --- live --------------------------------------------------------------------------


# The beta header each server tool type needs (the API refuses the tool without it); sent only when such a tool
# is in the request, so a request without one is the plain API's.
BETAS = {"tool_search_tool_bm25_20251119": "advanced-tool-use-2025-11-20",
         "tool_search_tool_regex_20251119": "advanced-tool-use-2025-11-20"}
MADE_HERE = ("text", "tool_use")  # the reply blocks ``Reply.as_message`` makes again from text and calls


def betas(specs: Sequence[JSONObject]) -> list[str]:
    """The beta headers the tool definitions ``specs`` need, sorted, each once."""
    return sorted({BETAS[kind] for spec in specs if isinstance(kind := spec.get("type"), str) and kind in BETAS})


class AnthropicModel:
    """The real model, through the ``anthropic`` SDK's async client.

    A server tool in ``tools`` (its ``spec()`` has a ``type``, as ``tool_search_tool_bm25_20251119``) adds the
    beta header it needs (``BETAS``); the blocks it answers with (``server_tool_use``, ``tool_search_tool_result``)
    are kept in ``Reply.content`` as the API sent them, so the next request carries them back unchanged.
    """

    def __init__(self, model: str, max_tokens: int = 4096) -> None:
        import anthropic  # imported here so offline runs never load it

        self._anthropic = anthropic
        self._client = anthropic.AsyncAnthropic()
        self.model = model
        self.max_tokens = max_tokens

    async def reply(self, system: str, messages: list[JSONObject], tools: Sequence[Tool]) -> Reply:
        specs = [t.spec() for t in tools]
        needed = betas(specs)
        try:
            response = await self._client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                system=system,
                messages=messages,
                tools=specs,
                extra_headers={"anthropic-beta": ",".join(needed)} if needed else None,
            )
        except self._anthropic.APIError as exc:
            # The SDK's message never holds the key; the type tells auth from rate limits.
            raise ModelError(f"Anthropic API: {type(exc).__name__}: {getattr(exc, 'message', exc)}") from None
        text = "\n".join(b.text for b in response.content if b.type == "text")
        calls = tuple(ToolCall(b.id, b.name, dict(b.input)) for b in response.content if b.type == "tool_use")
        if all(b.type in MADE_HERE for b in response.content):
            return Reply(text, calls)
        # to_dict leaves out what the API did not send (exclude_unset), so each block is the API's own
        return Reply(text, calls, tuple(b.to_dict(mode="json") for b in response.content))


def live_model(name: str | None) -> AnthropicModel:
    """The live model, or a ``UsageError`` that says what is missing."""
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise UsageError("--live needs ANTHROPIC_API_KEY in the environment (offline runs need nothing)")
    return AnthropicModel(name or os.environ.get("ANTHROPIC_MODEL") or DEFAULT_LIVE_MODEL)
