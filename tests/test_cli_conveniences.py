"""The CLI's conveniences: ``--version``, the program's name, options before or after the command, shell
completion, and the line of a crashed server's stderr that says why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

pytestmark = pytest.mark.usefixtures("no_process_left")

CRASH = """\
import sys
print("node:internal/modules/esm/resolve:873", file=sys.stderr)
print("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /app/dist/index.js", file=sys.stderr)
for i in range(8):
    print(f"    at frame{i} (node:internal/modules/esm/resolve:{i})", file=sys.stderr)
print("Node.js v22.1.0", file=sys.stderr)
sys.exit(1)
"""


@pytest.mark.slow
def test_a_crashed_server_s_error_line_is_kept_beside_its_stderr_tail(tmp_path):
    (tmp_path / "crash.py").write_text(CRASH, encoding="utf-8")
    config = tmp_path / "cline_mcp_settings.json"
    config.write_text(json.dumps({"mcpServers": {"crash": {"command": sys.executable, "args": [str(tmp_path / "crash.py")]}}}), encoding="utf-8")
    done = cli("--config", str(config), "tools")
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: server 'crash': exited with code 1 during initialize"), done.stderr
    assert lines[1:4] == ["  Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /app/dist/index.js", "  ...",
                          "      at frame4 (node:internal/modules/esm/resolve:4)"], done.stderr
    assert lines[-1] == "  Node.js v22.1.0", done.stderr
