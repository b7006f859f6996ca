"""A later mechanism's field (autoApprove, maxOutputTokens, protocol, toolSearch), refused when the file is read: that server alone.

In process: ``config.load`` and the CLI's ``doctor --offline`` start nothing; ``tools`` starts only ``true``.
"""

from __future__ import annotations

import io
import json

import pytest

from harness import app, config
from harness.spec import State

BAD = {
    "approver": ({"autoApprove": "yes"}, "server 'approver': field 'autoApprove': expected a list of strings"),
    "capped": ({"maxOutputTokens": "lots"}, "server 'capped': field 'maxOutputTokens': expected a whole number of tokens"),
    "era": ({"protocol": "2027"}, "server 'era': field 'protocol': expected \"2026-07-28\", \"2025-11-25\" or \"auto\""),
    "searcher": ({"toolSearch": "sometimes"},
                 "server 'searcher': field 'toolSearch': expected auto, auto:N (N a percent, 1 to 100), on, server or off, not 'sometimes'"),
    "claude": ({"toolSearch": "true"}, "server 'claude': field 'toolSearch': expected auto, auto:N"),
    "typo": ({"toolSearch": "sever"}, "server 'typo': field 'toolSearch': expected auto, auto:N"),
}


@pytest.fixture
def mixed(tmp_path):
    servers = {name: {"command": "true", **extra} for name, (extra, _) in BAD.items()}
    servers["good"] = {"command": "true", "autoApprove": ["search"], "maxOutputTokens": 5000, "protocol": "2025-11-25", "toolSearch": "server"}
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_each_bad_field_fails_its_server_in_its_mechanism_s_words_and_the_good_one_loads(mixed, tmp_path):
    loaded = {s.name: s for s in config.load(config.Paths(home=tmp_path, cwd=tmp_path, managed=tmp_path), [mixed])}
    for name, (_, said) in BAD.items():
        assert loaded[name].state is State.FAILED and loaded[name].reason.startswith(said), loaded[name].reason
    assert loaded["good"].state is State.PENDING


def test_doctor_offline_names_each_one_and_tools_goes_on(mixed, tmp_path, capsys):
    out = io.StringIO()
    code = app.main(["--config", str(mixed), "--home", str(tmp_path), "doctor", "--offline"], out)
    assert code == 1 and out.getvalue().count("problem: ") == len(BAD), out.getvalue()
    for name in BAD:
        assert f"server '{name}': field '" in out.getvalue()
    assert f"server 'searcher': field 'toolSearch': expected auto, auto:N (N a percent, 1 to 100), on, server or off, not 'sometimes'\n" \
           f"  fix: set 'toolSearch' of server 'searcher' to what it says: expected auto, auto:N" in out.getvalue(), out.getvalue()
    assert "  fix: set 'toolSearch' of server 'claude' to 'on' in " in out.getvalue(), "expected Claude Code's true read as on"
    assert "  fix: set 'toolSearch' of server 'typo' to 'server' in " in out.getvalue(), "expected a misspelt value named as meant"
    capsys.readouterr()
    code = app.main(["--config", str(mixed), "--home", str(tmp_path), "tools", "--strict"], io.StringIO())
    said = capsys.readouterr().err
    assert code == 1 and all(f"error: server '{name}'" in said for name in BAD), said  # none ended the run
