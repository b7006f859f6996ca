"""s29, hot reload: the diff, the debounced watcher, the guard against the harness's own writes, the reloader."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from limits import STEP

from harness import config, reload
from harness.config import ServerConfig
from harness.hub import Hub
from harness.reload import Reloader, Watcher, diff, fingerprint
from harness.results import ToolResult, text_block
from harness.spec import State
from harness.transcript import Transcript


def servers(entries: dict, fmt: str = "cline", scope: str = "file") -> list[ServerConfig]:
    return config.parse_servers(entries, scope, "cline_mcp_settings.json", fmt)


DOCS = {"command": "python", "args": ["-m", "docs"]}
DEPLOY = {"command": "python", "args": ["-m", "deploy"], "env": {"TOKEN": "${TOKEN}"}}


# --- diff ---------------------------------------------------------------------------------


def test_diff_sorts_every_server_into_add_remove_restart_or_unchanged():
    old = servers({"docs": DOCS, "deploy": DEPLOY, "mirror": DOCS})
    new = servers({"docs": {**DOCS, "timeout": 120, "autoApprove": ["search"]},
                   "deploy": {**DEPLOY, "args": ["-m", "deploy", "--verbose"]},
                   "wiki": {"url": "http://127.0.0.1:9/mcp", "type": "streamableHttp"}})
    plan = diff(old, new)
    assert [s.name for s in plan.add] == ["wiki"]
    assert plan.remove == ("mirror",)
    assert [s.name for s in plan.restart] == ["deploy"]
    assert [s.name for s in plan.unchanged] == ["docs"]
    assert plan.patched == {"docs": "autoApprove, call timeout 60 s -> 120 s"}
    assert plan.summary() == "add wiki; remove mirror; restart deploy; patch docs (autoApprove, call timeout 60 s -> 120 s)"


@pytest.mark.parametrize("change", [
    {"env": {"TOKEN": "${OTHER}"}},  # the variable as written, not its value, is what counts
    {"command": "python3"},
    {"cwd": "/srv"},
    {"disabled": True},
    {"args": "not a list"},  # now broken: it restarts into failed, naming the field
])
def test_a_connection_relevant_change_restarts(change):
    plan = diff(servers({"deploy": DEPLOY}), servers({"deploy": {**DEPLOY, **change}}))
    assert [s.name for s in plan.restart] == ["deploy"] and not plan.unchanged


def test_moving_a_server_to_another_scope_or_file_is_not_a_change():
    # Claude Code's config hash leaves the scope out for the same reason.
    a = servers({"docs": DOCS}, fmt="claude-code", scope="user")
    b = config.parse_servers({"docs": DOCS}, "project", "/elsewhere/.mcp.json", "claude-code")
    assert fingerprint(a[0]) == fingerprint(b[0])
    assert not diff(a, b)


def test_the_fingerprint_holds_no_secret_values_and_ignores_approvals_and_timeouts():
    [a] = servers({"deploy": DEPLOY})
    [b] = servers({"deploy": {**DEPLOY, "autoApprove": ["trigger"], "timeout": 5}})
    assert fingerprint(a) == fingerprint(b) and len(fingerprint(a)) == 16


# --- the watcher --------------------------------------------------------------------------


class Burst:
    """A sleep that lets the test change the file while the watcher waits (debounce), then returns at once."""

    def __init__(self, path: Path, writes: list[str]) -> None:
        self.path, self.writes, self.calls = path, list(writes), 0

    async def sleep(self, seconds: float) -> None:
        self.calls += 1
        if self.writes:
            self.path.write_text(self.writes.pop(0), encoding="utf-8")
        await anyio.lowlevel.checkpoint()


def test_a_burst_of_saves_is_read_once_after_it_settles(tmp_path):
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text("{}", encoding="utf-8")
    seen = []

    async def changed(text):
        seen.append(text)

    burst = Burst(path, ['{"mcpServers": {', '{"mcpServers": {"a"', '{"mcpServers": {"a": {}}}'])

    async def main():
        watcher = Watcher(path, changed, sleep=burst.sleep)
        path.write_text("{ ", encoding="utf-8")  # a partial save starts it
        await watcher.check()

    anyio.run(main)
    assert seen == ['{"mcpServers": {"a": {}}}']  # never a partial one


def test_the_harness_own_write_is_skipped_and_an_edit_right_after_it_is_not_lost(tmp_path):
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text("{}", encoding="utf-8")
    seen, skipped = [], []

    async def changed(text):
        seen.append(text)

    async def main():
        watcher = Watcher(path, changed, on_skip=skipped.append, stable=0)
        watcher.write('{"mcpServers": {}, "x": 1}')
        await watcher.check()
        assert seen == [] and len(skipped) == 1
        watcher.write('{"mcpServers": {}, "x": 2}')
        path.write_text('{"mcpServers": {}, "x": 3}', encoding="utf-8")  # the user saves within any time window
        await watcher.check()
        assert seen == ['{"mcpServers": {}, "x": 3}']

    anyio.run(main)
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic write left no temp file


def test_the_watcher_runs_in_the_background_and_notices_a_deleted_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{}", encoding="utf-8")
    seen = []

    async def changed(text):
        seen.append(text)

    async def main():
        watcher = Watcher(path, changed, poll=0.01, stable=0.01)
        async with anyio.create_task_group() as tg:
            tg.start_soon(watcher.run)
            path.write_text('{"a": 1}', encoding="utf-8")
            with anyio.fail_after(STEP):
                while not seen:
                    await anyio.sleep(0.01)
            path.unlink()
            with anyio.fail_after(STEP):
                while len(seen) < 2:
                    await anyio.sleep(0.01)
            tg.cancel_scope.cancel()

    anyio.run(main)
    assert seen == ['{"a": 1}', None]


# --- the reloader, on a hub with servers in process -----------------------------------------


class Fake:
    def __init__(self, name: str) -> None:
        self.name = name
        self.tools = [{"name": "t", "inputSchema": {"type": "object"}}]
        self.closed = False

    async def call_tool(self, tool, arguments):
        return ToolResult((text_block("ok"),))

    async def aclose(self):
        self.closed = True


def test_the_reloader_touches_only_the_servers_in_the_plan(tmp_path):
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text(json.dumps({"mcpServers": {"docs": DOCS, "deploy": DEPLOY, "mirror": DOCS}}), encoding="utf-8")
    paths = config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path)
    started: list[str] = []

    def connector(server):
        async def connect():
            started.append(server.name)
            return Fake(server.name)
        return connect

    async def main():
        transcript = Transcript()
        loaded = config.load(paths, [path])
        async with Hub(transcript) as hub:
            config.add_to(hub, loaded, connector)
            await hub.connect_all()
            docs, deploy, mirror = (hub.entries[n].client for n in ("docs", "deploy", "mirror"))
            reloader = Reloader(hub, path, lambda: config.load(paths, [path]), loaded, connector, transcript)

            path.write_text('{"mcpServers": {"docs": ', encoding="utf-8")  # not JSON: nothing changes
            await reloader.settled()
            assert set(hub.entries) == {"docs", "deploy", "mirror"} and hub.entries["docs"].client is docs

            path.write_text(json.dumps({"mcpServers": {
                "docs": {**DOCS, "timeout": 90}, "deploy": {**DEPLOY, "disabled": True},
                "wiki": {**DOCS, "args": ["-m", "wiki"]}}}), encoding="utf-8")
            await reloader.settled()
            assert hub.entries["docs"].client is docs and not docs.closed  # unchanged: kept running
            assert deploy.closed and hub.entries["deploy"].state is State.DISABLED
            assert mirror.closed and "mirror" not in hub.entries
            assert hub.entries["wiki"].state is State.CONNECTED

            reloader.watcher.write(json.dumps({"mcpServers": {
                "docs": {**DOCS, "timeout": 90, "autoApprove": ["search"]}, "deploy": {**DEPLOY, "disabled": True},
                "wiki": {**DOCS, "args": ["-m", "wiki"]}}}))
            await reloader.settled()  # the harness's own write: nothing happens

        notes = [e["text"] for e in transcript.events if e["kind"] == "note"]
        assert notes[0].startswith(f"{path}: not valid JSON (line 1, column 25): Expecting value") and notes[0].endswith("keeping the running servers")
        assert notes[1] == "reload cline_mcp_settings.json: add wiki; remove mirror; restart deploy; patch docs (call timeout 60 s -> 90 s)"
        assert notes[2].endswith("nothing to do")

    anyio.run(main)
    assert started == ["deploy", "docs", "mirror", "wiki"]


def test_a_server_added_by_an_edit_still_meets_the_policy(tmp_path):
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text(json.dumps({"mcpServers": {"docs": DOCS}}), encoding="utf-8")
    (tmp_path / "managed-settings.json").write_text(json.dumps({"deniedMcpServers": [{"serverName": "shell"}]}), encoding="utf-8")
    paths = config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path)

    def connector(server):
        async def connect():
            return Fake(server.name)
        return connect

    async def main():
        loaded = config.load(paths, [path])
        async with Hub() as hub:
            config.add_to(hub, loaded, connector)
            reloader = Reloader(hub, path, lambda: config.load(paths, [path]), loaded, connector)
            path.write_text(json.dumps({"mcpServers": {"docs": DOCS, "shell": {"command": "bash"}}}), encoding="utf-8")
            await reloader.settled()
            assert hub.entries["shell"].state is State.BLOCKED

    anyio.run(main)


def test_reload_module_is_what_the_lesson_imports():
    assert reload.POLL == 0.1 and reload.STABLE == 0.1  # Cline's 100 ms stability window
