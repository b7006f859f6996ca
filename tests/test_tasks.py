"""harness.tasks (s39): a 2026-07-28 call answered with a SEP-2663 task, followed to its end by a real stack.

Each test runs media as a real SDK server over stdio with ``--tasks`` (mock_servers.tasks) and
a ``--task-dir`` in the test's folder, so what the server did with a task (completed,
cancelled) is read from the file it keeps, not from the client's word. The CLI test drives
``mcp-course call`` as a child process and sends it SIGINT mid-task.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from limits import RUN, STEP, STOP, TIMEOUTS

from harness import config, stack
from harness.ask import Script
from harness.elicit import Asker
from harness.errors import ToolError
from harness.tasks import Tasks
from harness.transcript import Transcript

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_process_left")]


def media(tmp_path: Path, *switches: str, fields: dict | None = None, call: float | None = None) -> list[config.ServerConfig]:
    timeouts = {"connect": TIMEOUTS.connect, "list": TIMEOUTS.list, "call": call or TIMEOUTS.call}
    entry = {"command": sys.executable, "cwd": str(ROOT), "protocol": "2026-07-28", "timeouts": timeouts,
             "args": ["-m", "mock_servers.media", "--transport", "stdio", "--tasks", "--task-dir", str(tmp_path / "tasks"), *switches],
             **(fields or {})}
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"media": entry}}), encoding="utf-8")
    return config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path / "none"), [path])


def kept(tmp_path: Path, task_id: str = "render_video-1") -> dict:
    """The task as the server keeps it in its folder."""
    return json.loads((tmp_path / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))


def render(servers, part: Tasks | None = None) -> tuple[str | Exception, Transcript]:
    transcript = Transcript()
    parts = stack.upto(given=[part or Tasks()], without=(stack.Permissions,))

    async def main():
        async with stack.Stack(servers, transcript, parts) as built:
            await built.connect_all()
            with anyio.fail_after(STEP * 2):
                try:
                    return (await built.hub.clients["media"].call_tool("render_video", {})).text()
                except ToolError as exc:
                    return exc

    return anyio.run(main), transcript


def notes(transcript: Transcript) -> list[str]:
    return [e["text"] for e in transcript.events if e.get("kind") == "note" and "render_video" in e.get("text", "")]


def test_a_task_only_tool_runs_as_a_task_polled_to_its_result_with_each_status_a_note(tmp_path):
    answer, transcript = render(media(tmp_path))
    assert answer == "rendered deploy.mp4 (720p, 3 scenes)", f"expected the task's result as the call's, got {answer!r}"
    assert notes(transcript) == [
        "media: render_video: task 'render_video-1' started (working: queued)",
        "media: render_video: task 'render_video-1' working: rendering scene 1 of 3",
        "media: render_video: task 'render_video-1' working: rendering scene 2 of 3",
        "media: render_video: task 'render_video-1' completed: done"], "expected one note per status, in order"
    assert kept(tmp_path)["status"] == "completed"


def test_a_failed_task_is_an_error_naming_the_task_and_its_json_rpc_error(tmp_path):
    answer, _ = render(media(tmp_path, "--task-end", "fail"))
    assert str(answer) == "server 'media': tool 'render_video': task 'render_video-1' failed: error -32603: out of disk space at scene 3"


def test_a_task_that_never_ends_is_cancelled_on_the_server_when_the_call_timeout_runs_out(tmp_path):
    # A short call timeout against a task whose status stops changing: only the timeout can end the call.
    answer, transcript = render(media(tmp_path, "--task-end", "never", call=1))
    assert isinstance(answer, ToolError) and "no answer within 1 s (call timeout" in str(answer), f"expected the call timeout, got {answer!r}"
    assert "media: task 'render_video-1' cancelled (tasks/cancel sent)" in [e.get("text") for e in transcript.events]
    assert kept(tmp_path)["status"] == "cancelled", "expected the server to have been sent tasks/cancel"


def test_a_tool_the_config_marks_long_has_no_call_timeout_while_the_server_answers_its_polls(tmp_path):
    # The same 1 s timeout, a task of 150 polls of 20 ms and more whose status says nothing new after the third: it finishes.
    servers = media(tmp_path, "--task-steps", "150", call=1, fields={"tasks": ["render_video"]})
    answer, transcript = render(servers)
    assert answer == "rendered deploy.mp4 (720p, 3 scenes)", f"expected the long tool's task to finish, got {answer!r}"
    assert notes(transcript)[0].endswith("(working: queued); a long tool: no call timeout while it is polled")


def test_a_task_is_polled_again_after_its_server_restarts(tmp_path):
    answer, transcript = render(media(tmp_path, "--crash-on-poll", "2"))
    assert answer == "rendered deploy.mp4 (720p, 3 scenes)", f"expected the same task's result after the restart, got {answer!r}"
    said = notes(transcript)
    assert any("the connection was lost while task 'render_video-1' runs" in n for n in said), said
    assert said[-1] == "media: render_video: task 'render_video-1' completed: done", said
    assert not (tmp_path / "tasks" / "render_video-2.json").exists(), "expected no second task: the first one was picked up"


def test_a_task_that_asks_for_input_gets_the_users_answer_through_tasks_update(tmp_path):
    asker = Asker(Script([{"resolution": "1080p"}]))
    answer, transcript = render(media(tmp_path, "--task-end", "ask"), Tasks(asker))
    assert answer == "rendered deploy.mp4 (1080p, 3 scenes)", f"expected the answered resolution in the result, got {answer!r}"
    assert "media: render_video: the task asks for input 'resolution'" in notes(transcript)


def test_tasks_off_in_the_config_leaves_the_task_only_tool_out_as_before(tmp_path):
    answer, _ = render(media(tmp_path, fields={"tasks": "off"}))
    assert isinstance(answer, ToolError) and "it can only run as a task" in str(answer), f"expected s34's refusal, got {answer!r}"
    assert not (tmp_path / "tasks").exists() or not list((tmp_path / "tasks").glob("*.json")), "expected no task made"


def test_a_bad_tasks_field_is_a_warning_naming_the_server_and_the_field_and_tasks_stay_on(tmp_path):
    answer, transcript = render(media(tmp_path, fields={"tasks": "sometimes"}))
    assert answer == "rendered deploy.mp4 (720p, 3 scenes)"
    warnings = [e["text"] for e in transcript.events if e.get("kind") == "warning"]
    assert "server 'media': field 'tasks': expected \"on\", \"off\" or a list of tool names (the long ones), not 'sometimes'; " \
           "tasks stay \"on\"" in warnings, warnings


def test_ctrl_c_during_a_task_sends_tasks_cancel_and_exits_130_with_no_process_left(tmp_path):
    servers_file = tmp_path / ".mcp.json"
    media(tmp_path, "--task-end", "never")  # writes the config file
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONUTF8": "1"}
    argv = [sys.executable, "-m", "harness", "--home", str(tmp_path), "--managed", str(tmp_path / "none"),
            "--config", str(servers_file), "call", "media.render_video"]
    cli = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, text=True, start_new_session=True)
    try:
        said = []
        hung = threading.Timer(RUN, cli.kill)  # the bound on reading stderr: a CLI that hangs is killed, and fails below
        hung.start()
        try:
            for line in cli.stderr:
                said.append(line)
                if "working: rendering scene 2 of 3" in line:
                    cli.send_signal(signal.SIGINT)
                    break
            rest = cli.stderr.read()
        finally:
            hung.cancel()
        assert cli.wait(STOP) == 130, f"expected exit 130 (interrupted), stderr: {''.join(said)}{rest}"
        assert "task: media: task 'render_video-1' cancelled (tasks/cancel sent)\n" in rest, f"expected the cancel line: {rest!r}"
        assert rest.endswith("error: interrupted\n"), rest
        assert said[0] == "task: media/render_video: task 'render_video-1' started (working: queued)\n", said
        assert cli.stdout.read() == "", "expected no result on stdout"
        assert kept(tmp_path)["status"] == "cancelled", "expected the server to have been sent tasks/cancel"
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
        cli.stdout.close()
        cli.stderr.close()


def test_a_tasks_get_answer_that_is_no_task_ends_the_call_with_an_error_naming_the_field(tmp_path, monkeypatch):
    from harness import tasks

    class Broken(tasks.Detailed):  # what a server that leaves out the status would be read as
        status: int  # type: ignore[assignment]

    monkeypatch.setattr(tasks, "Detailed", Broken)
    answer, _ = render(media(tmp_path))
    assert str(answer) == ("server 'media': tool 'render_video': task 'render_video-1': tasks/get answered with no valid task "
                           "(status: Input should be a valid integer, unable to parse string as an integer)"), answer
    assert kept(tmp_path)["status"] == "cancelled", "expected the task cancelled when its answers cannot be read"
