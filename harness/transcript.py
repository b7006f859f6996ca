"""One transcript: events as data for tests, the same events as text for the terminal.

Every lesson reports what happens through a ``Transcript``: the user prompt, what the
model says, each tool call and its result, changes to the tool pool, warnings, errors,
and from s23 on the JSON-RPC frames on the wire. ``emit`` records an event and writes its
text line(s) at once, so a person watching sees the run as it goes.

Every string of every event passes, value by value, through two steps before it is
recorded or printed, so the text, the events and the frames file always agree:

1. redaction (``harness.redact``), always: secrets become placeholders;
2. normalization, only for a lesson's deterministic transcript (``--deterministic``,
   which the snapshot tests pass): the workspace path, the interpreter and loopback ports
   become placeholders. A real run prints real paths and ports.

Output can fail (``code.py | head -3``: the reader left). ``emit`` is called by the
agent's own flow, so it raises ``BrokenPipeError`` and the run ends. ``post`` is for code
that runs inside SDK callbacks and stream wrappers (frames, transport notes): it records
and prints too, but a failed write only marks the transcript broken, because an
exception there would stall the SDK's session instead of ending the run.

Work that runs concurrently (several ``connect_mcp`` calls in one turn) would interleave
its output by timing. Inside ``holding()``, output made by a task tagged with
``grouped(key)`` (and by the tasks it starts) is held per key; ``release(key)`` prints and
records it, so the transcript reads in call order, the same bytes every run.

A subagent's work (s38) prints through the same transcript: inside ``labelled(label)``, each
line a task (and the tasks it starts) prints begins with ``label``, so a reader sees whose
call, question or note it is; ``label()`` is that text, for a question asked elsewhere. What a
server says from its own task while a labelled call is in flight on it (a form it asks for, a
log line, a frame) carries that label too, inside ``on_behalf(server, label)``.

JSON is printed with sorted keys, and ``\\r`` never appears: every line goes out through
``echo.terminal``, so no control or bidi character of a server's reaches the terminal raw
(the events keep the text as it came, but a bare carriage return). The snapshot tests pin the
text exactly as a user sees it.

Introduced by s19. Not handled here: colour, paging, very long outputs (s32).
"""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

from harness import echo
from harness.jsonvalue import JSON, JSONObject
from harness.redact import Literals, Redactor, clean

_GROUP: ContextVar[str | None] = ContextVar("transcript_group", default=None)
_LABEL: ContextVar[str] = ContextVar("transcript_label", default="")
_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def compiled(encoder: json.JSONEncoder) -> Callable[[JSON], str]:
    """``encoder.encode``, with the C encoder it builds on every call built once instead.

    The same text: ``JSONEncoder.encode`` makes this very C encoder for each value (its
    one-shot path). Without the C module (another Python), it is ``encoder.encode`` itself.
    No circular check: a cycle ends in RecursionError instead of ValueError (our values
    come from JSON and pydantic dumps, which have none).
    """
    make = json.encoder.c_make_encoder
    if make is None:
        return encoder.encode
    strings = json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring
    made = make(None, encoder.default, strings, encoder.indent, encoder.key_separator, encoder.item_separator,
                encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    return lambda value: "".join(made(value, 0))


# Made once (json.dumps(**options) builds one per call). Its separators are dumps's: the
# wire tap builds a frame's line around a message encoded by it, and --wire prints that text.
ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
ENCODE = compiled(ENCODER)  # every frame is encoded with it at least once: the C encoder is built here, not per frame
_PORT = re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+")


def dumps(value: JSON) -> str:
    """Compact, key-sorted JSON: the one way the transcript prints structured data."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


class Normalizer:
    """Replaces volatile strings with stable placeholders."""

    def __init__(self) -> None:
        self._literals = Literals()  # longest first where several start at one place: a path before any path inside it

    def add(self, literal: str, placeholder: str) -> None:
        """Print ``placeholder`` wherever ``literal`` (a path, a token, ...) would appear."""
        if literal:
            self._literals.add(literal, placeholder)

    def seen_in(self, json_text: str) -> bool:
        """Could anything in this JSON text need a placeholder? (False: certainly not.)"""
        return self._literals.seen_in(json_text) or any(h in json_text for h in _HOSTS)

    def __call__(self, text: str) -> str:
        text = self._literals(text)
        return _PORT.sub(r"\1:<port>", text) if any(h in text for h in _HOSTS) else text


def _no_cr(text: str) -> str:
    # A bare carriage return would overwrite the line it is in (or, read as a line break,
    # start a line of its own that looks like the harness's): it is shown as its escape.
    return text.replace("\r\n", "\n").replace("\r", "\\r") if "\r" in text else text


class Transcript:
    """Collects events and prints each one as it arrives."""

    def __init__(self, out: TextIO | None = None, normalizer: Normalizer | None = None, redactor: Redactor | None = None) -> None:
        self.out = out
        self.redact = redactor or Redactor()
        self.normalize = normalizer  # None: a real run, real ports and paths
        self.events: list[JSONObject] = []
        self.broken = False  # a write failed: the reader is gone
        self._held: dict[str, list[Callable[[], None]]] | None = None
        self._behalf: dict[str, str] = {}  # server -> the label of the call in flight on it (``on_behalf``)

    def clean(self, value: JSONObject) -> JSONObject:
        """``value`` as every output shows it: secrets redacted; normalized in a deterministic run."""
        return self.clean_json(value)[0]

    def clean_json(self, value: JSONObject) -> tuple[JSONObject, str]:
        """``clean(value)`` and its key-sorted JSON line.

        Every frame passes here, so first one look at the whole event as JSON: when nothing
        in it could change (the usual case), it is returned as it is, without visiting
        each string, and the same JSON is the line.
        """
        text = ENCODE(value)
        if not self.dirty(text):
            return value, text
        value = clean(value, self._text)
        return value, ENCODE(value)

    def dirty(self, json_text: str) -> bool:
        """Could cleaning change anything in this JSON text? (False: certainly not.)"""
        return "\\r" in json_text or self.redact.seen_in(json_text) or (self.normalize is not None and self.normalize.seen_in(json_text))

    def show(self, event: JSONObject, text: str | None = None) -> None:
        """Print an already clean event from inside a callback (never raises on output).

        ``text``: the event's ``render`` already made by the caller (the wire tap has the
        frame's JSON at hand), so it is not rendered again.
        """
        label = self._label(event)
        self.output(lambda: self._write(event, text, label))

    def _text(self, text: str) -> str:
        text = self.redact(text)
        if self.normalize is not None:
            text = self.normalize(text)
        return _no_cr(text)

    def emit(self, kind: str, **fields: JSON) -> JSONObject:
        """Record an event and print it. Raises ``BrokenPipeError`` once the output is gone."""
        event = self.record(kind, **fields)
        if self.broken:
            raise BrokenPipeError("the transcript's reader has gone")
        label = self._label(event)  # read now: a held line is printed later, by another task
        self.output(lambda: self._write(event, label=label))
        if self.broken:
            raise BrokenPipeError("the transcript's reader has gone")
        return event

    def post(self, kind: str, show: bool = True, keep: bool = True, **fields: JSON) -> JSONObject:
        """Record (and print, if ``show``) from inside a callback: never raises on output."""
        event = self.record(kind, keep, **fields)
        if show:
            label = self._label(event)
            self.output(lambda: self._write(event, label=label))
        return event

    def record(self, kind: str, keep: bool = True, **fields: JSON) -> JSONObject:
        """An event as every output shows it, kept in ``events`` (unless ``keep`` is False), not printed."""
        event = self.clean({"kind": kind, **fields})
        if keep:
            self.output(lambda: self.events.append(event))
        return event

    def output(self, action: Callable[[], None]) -> None:
        """Do ``action`` (print, record, write a frame) now, or hold it for this task's group."""
        group = _GROUP.get()
        if self._held is not None and group is not None:
            self._held.setdefault(group, []).append(action)
        else:
            action()

    def _label(self, event: JSONObject) -> str:
        return _LABEL.get() or (self._behalf.get(event["server"], "") if self._behalf and isinstance(event.get("server"), str) else "")

    @contextmanager
    def on_behalf(self, server: str, label: str) -> Iterator[None]:
        """In the block, lines about ``server`` made outside any label (in its session's own task) carry ``label``."""
        before = self._behalf.get(server)
        self._behalf[server] = label
        try:
            yield
        finally:
            if before is None:
                self._behalf.pop(server, None)
            else:
                self._behalf[server] = before

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Hold the output of grouped tasks until ``release``; anything not released comes out at the end."""
        if self._held is not None:  # already holding: the outer holder releases
            yield
            return
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for actions in held.values():
                for action in actions:
                    action()

    def release(self, group: str) -> None:
        """Print and record what ``group`` made while held, in the order it was made."""
        for action in (self._held or {}).pop(group, []):
            action()

    def _write(self, event: JSONObject, text: str | None = None, label: str = "") -> None:
        if self.out is None or self.broken:
            return
        try:
            # Whatever an event holds (a tool's result, a server's log or name), the terminal gets it escaped.
            shown = echo.terminal(render(event) if text is None else text)
            if label:
                shown = "\n".join(label + line for line in shown.split("\n"))
            self.out.write(shown + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream was closed under us
            self.broken = True

    # Small named helpers keep call sites readable.
    def user(self, text: str) -> None:
        self.emit("user", text=text)

    def assistant(self, text: str) -> None:
        self.emit("assistant", text=text)

    def note(self, text: str) -> None:
        self.emit("note", text=text)

    def warning(self, text: str) -> None:
        self.emit("warning", text=text)

    def error(self, text: str) -> None:
        self.emit("error", text=text)


def _indent(text: str, prefix: str) -> str:
    lines = text.split("\n") if text else [""]
    return "\n".join(prefix + line if line else prefix.rstrip() for line in lines)


def render(event: JSONObject) -> str:
    """The terminal text of one event."""
    kind = event["kind"]
    if kind == "user":
        return _indent(event["text"], "user> ").replace("\nuser> ", "\n      ")
    if kind == "assistant":
        return "assistant> " + event["text"].replace("\n", "\n           ")
    if kind == "tools":
        return f"tools ({len(event['names'])}): " + ", ".join(event["names"])
    if kind == "pool":
        changes = [f"+{n}" for n in event["added"]] + [f"-{n}" for n in event["removed"]]
        return "pool: " + ", ".join(changes)
    if kind == "system":
        return _indent(event["text"], "system| ")
    if kind == "tool_call":
        # What the model asked for is its own text, and may hold anything: escaped and cut like any echo.
        return f"  -> {echo.line(event['name'], echo.NAME_CHARS)} {echo.line(dumps(event['input']))}"
    if kind == "tool_result":
        marker = "  <! " if event["is_error"] else "  <- "
        first, _, rest = event["content"].partition("\n")
        return marker + first + ("\n" + _indent(rest, "     ") if rest else "")
    if kind == "allow":
        return f"  ok {event['name']}: allowed ({event['reason']})"
    if kind == "ask":
        if event["asked"]:
            return f"  ?? {event['name']}: {event['reason']}: asked, {event['by']} answered {event['answer']}"
        return f"  !! {event['name']}: {event['reason']}: denied"
    if kind == "elicit":
        detail = f"\n     {event['detail']}" if event["detail"] else ""
        return f"  ?? {event['server']} asks: {event['asked']}{detail}\n     {event['by']} answered: {event['answer']}"
    if kind == "log":
        return f"log: {event['server']} ({event['level']}): " + event["text"].replace("\n", "\n    ")
    if kind == "state":
        return f"state: {event['server']}: {event['old'] or 'new'} -> {event['new']}: " + event["reason"].replace("\n", "\n    ")
    if kind == "frame":
        arrow = ">>" if event["direction"] == "send" else "<<"
        sent = "".join(f"\n       {name}: {value}" for name, value in event.get("headers", {}).items())  # s34's header view
        return f"    {arrow} {event['server']} {dumps(event['message'])}{sent}"
    return f"{kind}: " + event["text"].replace("\n", "\n    ")


def label() -> str:
    """The label this task's lines begin with ("" outside ``labelled``)."""
    return _LABEL.get()


@contextmanager
def labelled(text: str) -> Iterator[None]:
    """Begin every line this task (and the tasks it starts) prints with ``text``; nested labels add up."""
    token = _LABEL.set(_LABEL.get() + text)
    try:
        yield
    finally:
        _LABEL.reset(token)


@contextmanager
def grouped(group: str) -> Iterator[None]:
    """Tag this task (and the tasks it starts) so a holding transcript keeps its output apart."""
    token = _GROUP.set(group)
    try:
        yield
    finally:
        _GROUP.reset(token)
