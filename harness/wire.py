"""The wire tap: every JSON-RPC frame between the harness and a server, in both directions.

A transport hands the MCP session two streams: frames from the server (read) and frames
to it (write). ``WireTap.tap`` wraps that pair; each frame that passes is recorded as a
transcript event::

    {"kind": "frame", "server": "docs", "direction": "send", "message": {"id": 1, "method": "initialize", ...}}

so a lesson can print the conversation on the wire (``--wire``) or pin it in a snapshot
(``--frames FILE``, one key-sorted JSON object per line, written as each frame passes;
the file is opened before the run, so a path that cannot be written is a usage error
at once, not after the run). The tap sees JSON-RPC only:
HTTP statuses and headers (404, Mcp-Session-Id) are the transport's business, and
``harness.connection`` and the transports report those as notes. A tap made with
``events=True`` also hands each transport a ``trace`` (``Context.trace``) that prints what
the transport does as notes (s23's spawn, s24's GET, endpoint event and POSTs): a lesson
whose mechanism is the transport shows it in its default run, without ``--wire``.

Request ids are renumbered per server in order of first use (1, 2, 3, ...), across
re-initialized sessions too, so a snapshot never depends on how the SDK counts. Ids of
requests the *server* starts live in their own space and print as ``"s1"``, ``"s2"``.
The subscription id a 2026-07-28 server puts on what it sends for a ``subscriptions/listen``
stream (``_meta["io.modelcontextprotocol/subscriptionId"]``) is that request's id, renumbered
the same way. A line a server writes that is not JSON-RPC is recorded as ``{"invalid": <the line>}``.

The tap runs inside the SDK's streams, so it records with ``Transcript.post``: a reader
that left (``| head``) can never make it raise and stall the session.

Introduced by s23. Not handled here: HTTP-level events, binary payloads, frame sizes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, TextIO

from harness.errors import UsageError
from harness.jsonvalue import JSONObject
from harness.transcript import ENCODE, Transcript

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

    Frame = SessionMessage | Exception  # what a transport's read stream carries: a message, or what broke reading one

Sink = Callable[[str, str, JSONObject], None]  # (server, direction, message)
SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"  # in _meta: the listen request a 2026-07-28 notification belongs to


class InvalidFrame(ValueError):
    """A line from the server that is not a JSON-RPC message; passed along as a value."""

    def __init__(self, line: str) -> None:
        super().__init__(f"not a JSON-RPC message: {line[:200]!r}")
        self.line = line


class _Ids:
    """One server's renumbering: its client ids 1, 2, ...; its server ids "s1", "s2", ..."""

    def __init__(self) -> None:
        self.count = 0
        self.their_count = 0
        self.mine: dict[str | int, int] = {}  # a JSON-RPC id (a string or a number) -> ours
        self.theirs: dict[str | int, str] = {}

    def new_session(self) -> None:
        # A re-initialized session counts from the SDK's start again, so raw ids seen
        # before must not match the new requests; the printed numbers carry on.
        self.mine, self.theirs = {}, {}

    def client(self, raw: str | int, answered: bool = False) -> int:
        number = self.mine.get(raw)
        if number is None:
            self.count += 1
            number = self.mine[raw] = self.count
        if answered:  # the id is spent: forget it, so a long session's memory does not grow per call
            del self.mine[raw]
        return number

    def server(self, raw: str | int, answered: bool = False) -> str:
        number = self.theirs.get(raw)
        if number is None:
            self.their_count += 1
            number = self.theirs[raw] = f"s{self.their_count}"
        if answered:
            del self.theirs[raw]
        return number


class WireTap:
    """Records frames per server, with ids renumbered; to a transcript or to a callback.

    ``WireTap(transcript, show=True)`` prints frame events inline (``    >> docs {...}``);
    ``file`` gets each one as a JSON line, as it passes. Frames are streamed, never kept:
    memory does not grow with the number of calls. ``WireTap(callback)`` calls
    ``callback(server, direction, message)`` instead.
    """

    def __init__(self, sink: Transcript | Sink, *, show: bool = True, file: TextIO | None = None, events: bool = False,
                 headers: Collection[str] = ()) -> None:
        self._sink = sink
        self._show = show
        self._file = file
        self._events = events
        self._headers = frozenset(headers)  # s34: servers over HTTP whose requests' own headers are shown (MCP-Protocol-Version...)
        self._ids: dict[str, _Ids] = {}
        self._quoted: dict[str, str] = {}  # each server's name as JSON

    def trace(self, server: str) -> Callable[[str], None] | None:
        """The transport's events for ``server`` as notes (``docs: GET /sse: 200 OK``), or None if not asked for."""
        sink = self._sink
        if not self._events or not isinstance(sink, Transcript):
            return None
        return lambda text: sink.post("note", text=f"{server}: {text}")  # post: called inside the transport's tasks

    def new_session(self, server: str) -> None:
        """Called by the transport before each (re)initialize of ``server``."""
        self._ids.setdefault(server, _Ids()).new_session()

    def tap(self, server: str, read: Receives, write: Sends) -> tuple[Receives, Sends]:
        """Wrap a transport's (read, write) stream pair; frames are recorded as they pass.

        A tap that neither shows nor writes frames (``events`` only) leaves the pair as it
        is: nobody would see a frame, so none is dumped.
        """
        self._ids.setdefault(server, _Ids())
        if isinstance(self._sink, Transcript) and not self._show and self._file is None:
            return read, write
        return _TapRead(read, lambda item: self._record(server, "recv", item)), _TapWrite(write, lambda item: self._record(server, "send", item))

    def _record(self, server: str, direction: str, item: Frame) -> None:
        message = self._renumber(server, direction, _as_dict(item))
        sink = self._sink
        if not isinstance(sink, Transcript):
            sink(server, direction, message)
            return
        headers = getattr(getattr(item, "metadata", None), "headers", None) if server in self._headers else None
        # The message is encoded once: the file line is that text inside the event's
        # other (key-sorted) fields, and --wire prints the same text. Only a frame with
        # something to redact or normalize in it, or with its headers shown, is cleaned and
        # encoded again. Not kept in transcript.events: a long session would hold every frame forever.
        event: JSONObject = {"kind": "frame", "server": server, "direction": direction, "message": message}
        text: str | None = None
        if headers:
            event, line = sink.clean_json({**event, "headers": dict(headers)})
        else:
            text = ENCODE(message)
            if (quoted := self._quoted.get(server)) is None:  # the end of every line of this server's frames: encoded once
                quoted = self._quoted[server] = ENCODE(server)
            line = f'{{"direction": "{direction}", "kind": "frame", "message": {text}, "server": {quoted}}}'
            if sink.dirty(line):
                event, line = sink.clean_json(event)
                text = None
        if self._show:
            sink.show(event, None if text is None else f"    {'>>' if direction == 'send' else '<<'} {server} {text}")
        if self._file is not None:
            file = self._file
            sink.output(lambda: file.write(line + "\n"))  # held with the transcript's lines, when it holds

    def _renumber(self, server: str, direction: str, message: JSONObject) -> JSONObject:
        ids = self._ids.get(server) or self._ids.setdefault(server, _Ids())  # not setdefault alone: it would build an _Ids per frame
        if "id" in message and message["id"] is not None:
            answer = "method" not in message
            ours = answer != (direction == "send")  # our request, or the answer to one
            message["id"] = ids.client(message["id"], answer) if ours else ids.server(message["id"], answer)
        params = message.get("params")
        if message.get("method") == "notifications/cancelled" and isinstance(params, dict) and "requestId" in params:
            # Either side cancels only requests it sent itself.
            raw = params["requestId"]
            params["requestId"] = ids.client(raw) if direction == "send" else ids.server(raw)
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and SUBSCRIPTION in meta and direction == "recv":
            # The id of our subscriptions/listen request, which the SDK counts process-wide ("listen-N"):
            # with two servers listening, N depends on which connected first, so it is renumbered as that request was.
            meta[SUBSCRIPTION] = ids.client(meta[SUBSCRIPTION])
        return message


def _as_dict(item: Frame) -> JSONObject:
    if isinstance(item, InvalidFrame):
        return {"invalid": item.line}
    if isinstance(item, Exception):
        return {"invalid": f"{type(item).__name__}: {item}"}
    return item.message.model_dump(by_alias=True, mode="json", exclude_none=True)


class Closes(Protocol):
    async def aclose(self) -> None: ...


class Receives(Closes, Protocol):
    """A transport's read stream, as the SDK's session reads it (an anyio memory stream, or one of ours around it)."""

    async def receive(self) -> Frame: ...


class Sends(Closes, Protocol):
    """A transport's write stream, as the SDK's session writes to it."""

    async def send(self, item: SessionMessage) -> None: ...


class StreamWrapper:
    """A stream the harness wraps (the tap here, ``harness.guard``'s checks): closing goes to the wrapped one."""

    def __init__(self, inner: Closes) -> None:
        self._inner = inner

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> StreamWrapper:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()


class ReadWrapper(StreamWrapper):
    """A wrapped server -> session stream: iterable, and keeps ``last_context`` (the SDK reads it). Subclasses define ``receive``."""

    @property
    def last_context(self) -> object:  # the SDK's, passed along as it is
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Frame:
        raise NotImplementedError

    def __aiter__(self) -> ReadWrapper:
        return self

    async def __anext__(self) -> Frame:
        import anyio  # the SDK's async library: the tap's module is loaded at start-up

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _TapRead(ReadWrapper):
    """Server -> harness: each message recorded as it arrives."""

    def __init__(self, inner: Receives, record: Callable[[Frame], None]) -> None:
        super().__init__(inner)
        self._inner: Receives = inner
        self._record = record

    async def receive(self) -> Frame:
        item = await self._inner.receive()
        self._record(item)
        return item


class _TapWrite(StreamWrapper):
    """Harness -> server: each message recorded as it leaves."""

    def __init__(self, inner: Sends, record: Callable[[Frame], None]) -> None:
        super().__init__(inner)
        self._inner: Sends = inner
        self._record = record

    async def send(self, item: SessionMessage) -> None:
        self._record(item)
        await self._inner.send(item)


# --- the lessons' command line ---------------------------------------------------------


def options(parser: argparse.ArgumentParser) -> None:
    """``--wire`` and ``--frames FILE``, for every lesson from s23 on."""
    parser.add_argument("--wire", action="store_true", help="print every JSON-RPC frame inline (>> sent, << received)")
    parser.add_argument("--frames", type=Path, metavar="FILE", help="write the frames as JSON lines to FILE")


@contextmanager
def recording(transcript: Transcript, args: argparse.Namespace, events: bool = False,
              headers: Collection[str] = ()) -> Iterator[WireTap | None]:
    """A tap for this run, streaming to ``--frames`` if given (opened now: a bad path fails before the run).

    ``events``: the transport's own events are printed too, with or without ``--wire``.
    ``headers``: the servers (over HTTP) whose requests are shown with the headers the session gives each (s34).
    None when neither ``--wire``, ``--frames`` nor ``events`` asks for anything: nobody would see it.
    """
    if args.frames is None:
        yield WireTap(transcript, show=args.wire, events=events, headers=headers) if args.wire or events else None
        return
    try:
        file = open(args.frames, "w", encoding="utf-8")  # noqa: SIM115  (closed below, errors included)
    except OSError as exc:
        raise UsageError(f"--frames: cannot write {args.frames}: {exc.strerror}") from None
    with file:
        yield WireTap(transcript, show=args.wire, file=file, events=events, headers=headers)
