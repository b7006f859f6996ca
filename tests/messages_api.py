"""A local stand-in for the Anthropic Messages API: ``POST /v1/messages`` on 127.0.0.1.

It lets a ``--live`` run go through the real ``anthropic`` SDK and the real HTTP path with
no internet and no key: point ``ANTHROPIC_BASE_URL`` at it and set ``ANTHROPIC_API_KEY`` to
anything. What the model says comes from a scenario file (the scripted model's format):
turn N of the script answers the request whose conversation holds N assistant messages,
and a tool call is named as the script names it, so a live run replays the lesson.

It refuses what the real API is publicly reported to refuse in the tools it is handed, with
the status (400, ``invalid_request_error``) and the wording users have quoted from it:

    tools.3.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level
    tools.3.custom.input_schema.type: Field required
    tools.3.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (...)
    tools.3.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'
    messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: ...

The combinator check comes before the ``type`` check: a zod union's schema has no ``type``
at its root, and users report the combinator message for it. Two refusals are inferred, not
quoted: a ``type`` other than ``"object"`` (``Input should be 'object'``, the API's
validation wording for a fixed value), and duplicate tool names. No key at all is
a 401 (the SDK sends its key as ``x-api-key`` or as ``Authorization: Bearer``; either is
taken, and any value), a missing ``anthropic-version`` a 400, as the real API answers.

What the script asks for that the request does not allow (a tool that is not in the
request's tools, a turn past the script's end) is a 400 whose message starts with
``stand-in:``: the test, not the API, is wrong.

Every request and its answer are kept in ``exchanges`` for tests to read.

    python tests/messages_api.py --scenario FILE [--port N]

serves until Ctrl-C, SIGTERM or the end of its standard input, after printing
``READY http://127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: the harness's scenario parser must import
    sys.path.insert(0, str(ROOT))

from harness.model import Scenario  # noqa: E402  (after the path fix above)

HOST = "127.0.0.1"
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
INVALID_SCHEMA = ("JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). "
                  "Learn more about tool use at https://docs.claude.com/en/docs/tool-use.")


class Refused(Exception):
    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


@dataclass
class Exchange:
    request: dict[str, Any]
    status: int
    response: dict[str, Any]


@dataclass
class MessagesAPI:
    """The stand-in. ``with MessagesAPI(scenario) as api: ... api.url ...``"""

    scenario: Scenario
    exchanges: list[Exchange] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_file(cls, path: Path) -> MessagesAPI:
        return cls(Scenario.load(path, path.name))

    @property
    def url(self) -> str:
        assert self._server is not None, "the stand-in is not running"
        return f"http://{HOST}:{self._server.server_address[1]}"

    def start(self, port: int = 0) -> MessagesAPI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                status, answer, request = api.answer(self.path, dict(self.headers.items()), body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", answer.get("request_id") or answer.get("id", ""))
                self.send_header("x-should-retry", "false")
                self.end_headers()
                self.wfile.write(data)
                with api._lock:
                    api.exchanges.append(Exchange(request, status, answer))

            def log_message(self, format: str, *args: Any) -> None:
                pass  # tests read ``exchanges``; nothing goes to stderr

        self._server = ThreadingHTTPServer((HOST, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="messages-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            assert self._thread is not None
            self._thread.join(timeout=5)
            self._server = None

    def __enter__(self) -> MessagesAPI:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    @property
    def refusals(self) -> list[str]:
        return [e.response["error"]["message"] for e in self.exchanges if e.status >= 400]

    # -- one request ---------------------------------------------------------------------

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any], dict[str, Any]]:
        with self._lock:
            number = len(self.exchanges) + 1
        request: dict[str, Any] = {}
        try:
            if path.split("?")[0] != "/v1/messages":
                raise Refused(404, "not_found_error", "Not Found")
            lower = {k.lower(): v for k, v in headers.items()}
            if not lower.get("x-api-key") and not lower.get("authorization", "").startswith("Bearer "):
                raise Refused(401, "authentication_error", "x-api-key header is required")
            if not lower.get("anthropic-version"):
                raise Refused(400, "invalid_request_error", "anthropic-version: header is required")
            try:
                request = json.loads(body)
            except ValueError:
                raise Refused(400, "invalid_request_error", "The request body is not valid JSON") from None
            if not isinstance(request, dict):
                raise Refused(400, "invalid_request_error", "Input should be a valid dictionary")
            for key in ("model", "max_tokens", "messages"):
                if key not in request:
                    raise Refused(400, "invalid_request_error", f"{key}: Field required")
            names = _check_tools(request.get("tools") or [])
            _check_pairs(request["messages"])
            _check_results(request["messages"])
            return 200, self._reply(request, names, number), request
        except Refused as refused:
            return refused.status, {"type": "error", "error": {"type": refused.kind, "message": refused.message},
                                    "request_id": f"req_standin_{number:04d}"}, request

    def _reply(self, request: dict[str, Any], names: list[str], number: int) -> dict[str, Any]:
        history = [m for m in request["messages"] if m.get("role") == "assistant"]
        turn = len(history)
        if turn >= len(self.scenario.turns):
            raise Refused(400, "invalid_request_error", f"stand-in: request for turn {turn + 1}, but the script has {len(self.scenario.turns)}")
        script = self.scenario.turns[turn]
        used = sum(1 for m in history for b in _blocks(m) if b.get("type") == "tool_use")
        content: list[dict[str, Any]] = [{"type": "text", "text": script.text}] if script.text else []
        for i, call in enumerate(script.calls, 1):
            if call.name not in names:
                raise Refused(400, "invalid_request_error", f"stand-in: {call.where}.name: '{call.name}' is not in the request's tools ({', '.join(names)})")
            content.append({"type": "tool_use", "id": f"toolu_{used + i:02d}", "name": call.name, "input": call.input})
        return {"id": f"msg_standin_{number:04d}", "type": "message", "role": "assistant", "model": request["model"],
                "content": content, "stop_reason": "tool_use" if script.calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _check_tools(tools: Any) -> list[str]:
    """The tool names, or ``Refused`` with the first problem, worded as the API words it."""
    if not isinstance(tools, list):
        raise Refused(400, "invalid_request_error", "tools: Input should be a valid list")
    names = []
    for i, tool in enumerate(tools):
        where = f"tools.{i}.custom"
        if not isinstance(tool, dict):
            raise Refused(400, "invalid_request_error", f"tools.{i}: Input should be a valid dictionary")
        name = tool.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            raise Refused(400, "invalid_request_error", f"{where}.name: String should match pattern '{NAME.pattern}'")
        schema = tool.get("input_schema")
        if schema is None:
            raise Refused(400, "invalid_request_error", f"{where}.input_schema: Field required")
        if not isinstance(schema, dict):
            raise Refused(400, "invalid_request_error", f"{where}.input_schema: Input should be a valid dictionary")
        if any(k in schema for k in ("oneOf", "allOf", "anyOf")):
            raise Refused(400, "invalid_request_error", f"{where}.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level")
        if "type" not in schema:
            raise Refused(400, "invalid_request_error", f"{where}.input_schema.type: Field required")
        if schema["type"] != "object":
            raise Refused(400, "invalid_request_error", f"{where}.input_schema.type: Input should be 'object'")
        if not _valid_2020_12(schema):
            raise Refused(400, "invalid_request_error", f"{where}.input_schema: {INVALID_SCHEMA}")
        names.append(name)
    if len(set(names)) != len(names):
        raise Refused(400, "invalid_request_error", "tools: Tool names must be unique.")
    return names


def _valid_2020_12(schema: dict[str, Any]) -> bool:
    from jsonschema import Draft202012Validator, SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


def _check_pairs(messages: Any) -> None:
    """Every ``tool_use`` is answered by a ``tool_result`` in the next message, and no result answers nothing."""
    if not isinstance(messages, list) or not messages:
        raise Refused(400, "invalid_request_error", "messages: at least one message is required")
    for k, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise Refused(400, "invalid_request_error", f"messages.{k}.role: Input should be 'user' or 'assistant'")
        asked = [b["id"] for b in _blocks(message) if b.get("type") == "tool_use"] if message["role"] == "assistant" else []
        following = messages[k + 1] if k + 1 < len(messages) else None
        answered = {b.get("tool_use_id") for b in _blocks(following)} if isinstance(following, dict) else set()
        missing = [i for i in asked if i not in answered]
        if asked and missing:
            raise Refused(400, "invalid_request_error",
                          f"messages.{k + 1 if following else k}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                          f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
        if message["role"] == "user" and k > 0:
            before = {b.get("id") for b in _blocks(messages[k - 1]) if b.get("type") == "tool_use"}
            for j, block in enumerate(_blocks(message)):
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in before:
                    raise Refused(400, "invalid_request_error",
                                  f"messages.{k}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {block.get('tool_use_id')}. "
                                  "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")


IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def _check_results(messages: list[Any]) -> None:
    """A ``tool_result``'s content is a string, or a list of text and image blocks of the API's shape."""
    for k, message in enumerate(messages):
        for j, block in enumerate(_blocks(message)):
            if block.get("type") != "tool_result" or isinstance(block.get("content", ""), str):
                continue
            content = block.get("content")
            if not isinstance(content, list):
                raise Refused(400, "invalid_request_error", f"messages.{k}.content.{j}.content: Input should be a valid list")
            for n, part in enumerate(content):
                where = f"messages.{k}.content.{j}.content.{n}"
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text" and isinstance(part.get("text"), str) and part["text"]:
                    continue
                if kind == "text":
                    raise Refused(400, "invalid_request_error", f"{where}.text: text content blocks must be non-empty")
                if kind != "image":
                    raise Refused(400, "invalid_request_error", f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags: 'text', 'image'")
                source = part.get("source") or {}
                if source.get("type") != "base64" or not isinstance(source.get("data"), str):
                    raise Refused(400, "invalid_request_error", f"{where}.source: expected a base64 source")
                if source.get("media_type") not in IMAGE_TYPES:
                    raise Refused(400, "invalid_request_error", f"{where}.source.base64.media_type: Input should be {', '.join(repr(t) for t in IMAGE_TYPES)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local stand-in for the Anthropic Messages API.")
    parser.add_argument("--scenario", type=Path, required=True, help="the script whose turns the model's replies come from")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: one the OS picks)")
    args = parser.parse_args(argv)
    try:
        api = MessagesAPI.from_file(args.scenario).start(args.port)
    except Exception as exc:  # a bad scenario, a port in use: one line
        print(f"error: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    if not sys.stdin.isatty():  # started by a parent through a pipe: leave when it does
        threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    print(f"READY {api.url}", flush=True)
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    api.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
