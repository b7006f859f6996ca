"""The SDK's log lines reach stderr as lines of ours (harness.sdklog): prefixed, escaped, no traceback.

A Streamable HTTP server that answers a call with ``text/plain`` makes the SDK log
"Unexpected content type" through ``logging``; Python's last resort printed it bare on
stderr before the harness's ``error:`` line. Now every stderr line of the CLI is ours.
"""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from serving import served
from test_app import cli

from harness import sdklog


def test_a_record_is_one_escaped_prefixed_line_without_its_traceback_and_only_while_routed():
    err = io.StringIO()
    logger = logging.getLogger("mcp.client.streamable_http")
    with sdklog.routed(err):
        try:
            raise ValueError("boom")
        except ValueError:
            logger.exception("Unexpected content type: text/html\x1b[2J\nsecond")
        logger.info("an info record is not shown")
    assert err.getvalue() == "warning: mcp sdk: Unexpected content type: text/html\\x1b[2J\n  second\n", repr(err.getvalue())
    assert not logger.handlers and logging.getLogger("mcp").propagate, "leaving puts the loggers back as they were"


@pytest.mark.usefixtures("no_process_left")
def test_every_stderr_line_of_a_failing_http_call_is_ours(tmp_path):
    argv = [sys.executable, "-m", "mock_servers.hostile", "--transport", "http", "--port", "0", "--http-error", "200"]
    with served(argv) as url:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": url}}}))
        done = cli("--config", str(config), "call", "mcp__web__echo", '{"text": "x"}', cwd=tmp_path)
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and lines, done
    assert all(line.startswith(("warning: ", "error: ", "  ")) for line in lines), f"a line that is not ours: {lines}"
    assert "warning: mcp sdk: Unexpected content type: text/plain; charset=utf-8" in lines, lines
    assert lines[-1].startswith("error: server 'web': tool 'echo': "), lines
