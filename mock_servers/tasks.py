"""Tasks (SEP-2663, ``io.modelcontextprotocol/tasks``) for the catalog servers: a long tool answered with a task handle.

    python -m mock_servers.media --transport stdio --tasks [--task-end done|fail|never|ask]
                                 [--task-dir DIR] [--crash-on-poll N] [--task-steps N] [--task-poll-ms MS]

With ``--tasks``, a 2026-07-28 ``tools/call`` of a long tool (``LONG``: media's
``render_video``, deploy's ``trigger``) from a client that declares the extension in that
request's capabilities is answered with a ``CreateTaskResult`` (``resultType: "task"``)
instead of the result, and the server serves ``tasks/get``, ``tasks/update`` and
``tasks/cancel``. A client that does not declare it is told -32021 for ``render_video``
(it runs only as a task) and gets ``trigger``'s plain result, as without the switch.

The work moves on by one step per ``tasks/get``, never by the clock, so every run polls the
same number of times and says the same status messages; ``pollIntervalMs`` is short
(``POLL_MS``). How a task ends, for the lessons and tests about tasks that go wrong:

    --task-end done     (the default) completed after ``--task-steps`` polls (default 3), with the result;
                        the status says scene 1, 2 and 3 of 3 on the first three, and nothing new after
    --task-end fail     failed at the last step, with a JSON-RPC error (-32603) as the task's error
    --task-end never    working for ever; only ``tasks/cancel`` ends it
    --task-end ask      input_required at the first poll: an elicitation form (which resolution),
                        answered by ``tasks/update``; the task then works on with the answer
    --task-dir DIR      keep each task in DIR (one JSON file per task), so a task outlives a
                        restart of the server: a client that polls again after a reconnect finds it
    --task-poll-ms MS   the ``pollIntervalMs`` every task says (default ``POLL_MS``)
    --crash-on-poll N   the Nth ``tasks/get`` of this DIR's life ends the process (exit code 3),
                        once per DIR (a marker file), so a restarted server serves the task on

Task ids count up per store (``render_video-1``): predictable, which the SEP forbids (an
id may be a bearer token for the task), and chosen so a transcript is the same every run.
``createdAt`` and ``lastUpdatedAt`` are one fixed instant for the same reason.

Not handled: ``notifications/tasks`` on a listen stream (the client polls), a TTL (tasks are
kept for the server's life, or the folder's), tasks over the handshake era (SEP-1686).
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TASKS = "io.modelcontextprotocol/tasks"
LONG = ("render_video", "trigger")  # the tools that run as tasks with --tasks
POLL_MS = 20
AT = "2026-07-28T00:00:00Z"  # every task's createdAt and lastUpdatedAt: no clock in anything a server sends
ENDS = ("done", "fail", "never", "ask")
CRASH_EXIT_CODE = 3


@dataclass(frozen=True)
class Settings:
    end: str = "done"
    steps: int = 3
    folder: Path | None = None
    crash_on_poll: int | None = None
    poll_ms: int = 20


def options(parser: argparse.ArgumentParser) -> None:
    """The switches above, on a server's command line."""
    parser.add_argument("--tasks", action="store_true", help="2026-07-28: long tools answer with a task handle (SEP-2663)")
    parser.add_argument("--task-end", choices=ENDS, default="done", help="how each task ends (default: done)")
    parser.add_argument("--task-steps", type=int, default=3, metavar="N", help="polls until a task ends (default: 3)")
    parser.add_argument("--task-dir", type=Path, metavar="DIR", help="keep tasks in DIR, across restarts")
    parser.add_argument("--crash-on-poll", type=int, metavar="N", help="exit (code 3) at the Nth tasks/get, once per --task-dir")
    parser.add_argument("--task-poll-ms", type=int, default=POLL_MS, metavar="MS", help=f"pollIntervalMs (default: {POLL_MS})")


def settings(ns: argparse.Namespace) -> Settings | None:
    """The parsed switches as one value (None without ``--tasks``), taken off ``ns``."""
    given = {k: vars(ns).pop(k) for k in ("tasks", "task_end", "task_steps", "task_dir", "crash_on_poll", "task_poll_ms")}
    if not given["tasks"]:
        return None
    return Settings(given["task_end"], max(1, given["task_steps"]), given["task_dir"], given["crash_on_poll"],
                    max(1, given["task_poll_ms"]))


class Store:
    """The tasks of one server: in memory, or one JSON file each in ``folder``."""

    def __init__(self, folder: Path | None) -> None:
        self._folder = folder
        self._kept: dict[str, dict[str, Any]] = {}
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def ids(self) -> list[str]:
        if self._folder is None:
            return list(self._kept)
        return [p.stem for p in self._folder.glob("*.json")]

    def get(self, task_id: str) -> dict[str, Any] | None:
        if self._folder is None:
            return self._kept.get(task_id)
        path = self._folder / f"{task_id}.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() and "/" not in task_id else None

    def put(self, task: dict[str, Any]) -> None:
        if self._folder is None:
            self._kept[task["taskId"]] = task
        else:
            (self._folder / f"{task['taskId']}.json").write_text(json.dumps(task), encoding="utf-8")

    def crash_once(self, poll: int, at: int | None) -> bool:
        """Whether this poll is the one to crash at: once per folder (a marker), once per process without one."""
        if at is None or poll != at:
            return False
        if self._folder is None:
            return True
        marker = self._folder / "crashed"
        if marker.exists():
            return False
        marker.write_text("", encoding="utf-8")
        return True


def _declared(ctx: Any) -> bool:
    """Whether this request's capabilities (2026-07-28 ``_meta``) declare the tasks extension."""
    from mcp_types import CLIENT_CAPABILITIES_META_KEY

    meta = ctx.meta if isinstance(ctx.meta, dict) else {}
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY)
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and TASKS in extensions


def _result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


FINISHED = {  # what each long tool's task comes to
    "render_video": lambda args, answer: f"rendered deploy.mp4 ({answer or '720p'}, 3 scenes)",
    "trigger": lambda args, answer: f"deployed {args.get('service', '?')} to {args.get('environment', 'staging')}",
}
WORKING = {"render_video": "rendering scene {step} of 3", "trigger": "deploying: step {step} of 3"}  # then unchanged to the end


class Runner:
    """The long tools as tasks: ``start`` answers a call, and the three methods serve what follows."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.folder)
        self.polls = 0

    def takes(self, ctx: Any, tool: str) -> bool:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        return tool in LONG and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and _declared(ctx)

    def start(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        number = len([i for i in self.store.ids() if i.startswith(f"{tool}-")]) + 1
        task = {"taskId": f"{tool}-{number}", "status": "working", "statusMessage": "queued", "createdAt": AT,
                "lastUpdatedAt": AT, "ttlMs": None, "pollIntervalMs": self.settings.poll_ms,
                "_tool": tool, "_arguments": arguments, "_step": 0, "_answer": None}
        self.store.put(task)
        return {"resultType": "task", **_public(task)}

    def plug(self, server: Any) -> None:
        """Serve tasks/get, tasks/update and tasks/cancel on ``server`` (low-level SDK), and declare the extension."""
        import mcp_types as types

        class TaskParams(types.RequestParams):
            task_id: str

        class UpdateParams(TaskParams):
            input_responses: dict[str, Any] = {}

        server.extensions[TASKS] = {}
        server.add_request_handler("tasks/get", TaskParams, lambda ctx, p: self._get(p.task_id))
        server.add_request_handler("tasks/update", UpdateParams, lambda ctx, p: self._update(p.task_id, p.input_responses))
        server.add_request_handler("tasks/cancel", TaskParams, lambda ctx, p: self._cancel(p.task_id))

    def _known(self, task_id: str) -> dict[str, Any]:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        task = self.store.get(task_id)
        if task is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Failed to retrieve task: Task not found ({task_id[:40]})")
        return task

    async def _get(self, task_id: str) -> dict[str, Any]:
        self.polls += 1
        if self.store.crash_once(self.polls, self.settings.crash_on_poll):
            os._exit(CRASH_EXIT_CODE)  # abrupt on purpose, like a real crash: the task is in the folder
        task = self._known(task_id)
        if task["status"] in ("working",):
            self._advance(task)
            self.store.put(task)
        return _public(task)

    def _advance(self, task: dict[str, Any]) -> None:
        end, steps = self.settings.end, self.settings.steps
        if end == "ask" and task["_answer"] is None:
            task.update(status="input_required", statusMessage="waiting for a resolution")
            return
        task["_step"] += 1
        step = task["_step"]
        if end == "never" or step < steps:
            task["statusMessage"] = WORKING[task["_tool"]].format(step=min(step, 3))
        elif end == "fail":
            task.update(status="failed", statusMessage="the renderer ran out of disk space",
                        _error={"code": -32603, "message": "out of disk space at scene 3"})
        else:
            task.update(status="completed", statusMessage="done", _result=_result(FINISHED[task["_tool"]](task["_arguments"], task["_answer"])))

    async def _update(self, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
        task = self._known(task_id)
        answer = responses.get("resolution")
        if task["status"] == "input_required" and isinstance(answer, dict):
            content = answer.get("content") if answer.get("action") == "accept" else None
            task.update(status="working", statusMessage="resolution chosen",
                        _answer=str((content or {}).get("resolution") or "720p"))
            self.store.put(task)
        return {}

    async def _cancel(self, task_id: str) -> dict[str, Any]:
        task = self._known(task_id)
        if task["status"] in ("working", "input_required"):
            task.update(status="cancelled", statusMessage="cancelled by the client")
            self.store.put(task)
        return {}


RESOLUTION_FORM = {"type": "object", "properties": {"resolution": {"type": "string", "enum": ["720p", "1080p"],
                                                                   "description": "the video's resolution"}},
                   "required": ["resolution"]}


def _public(task: dict[str, Any]) -> dict[str, Any]:
    """The task as the wire has it: its fields, and the result, error or input requests its status carries."""
    shown = {k: v for k, v in task.items() if not k.startswith("_")}
    if task["status"] == "completed":
        shown["result"] = task["_result"]
    elif task["status"] == "failed":
        shown["error"] = task["_error"]
    elif task["status"] == "input_required":
        shown["inputRequests"] = {"resolution": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Which resolution should the video have?", "requestedSchema": RESOLUTION_FORM}}}
    return shown
