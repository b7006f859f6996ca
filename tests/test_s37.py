"""s37 end to end: no skill file is read before the model asks for it, and both eras list and verify skills."""

from __future__ import annotations

import io
import json
import sys

import anyio
import pytest

from pathlib import Path

from conftest import run_lesson

from harness import config
from harness.errors import ToolError
from harness.skilltool import Skills
from harness.stack import Stack, upto
from harness.transcript import Transcript

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # every test here starts mock_servers.skills


def test_the_run_reads_no_skill_file_before_the_model_loads_a_skill():
    code, text = run_lesson("s37", "--wire")
    assert code == 0, text
    lines = text.splitlines()
    reads = [i for i, line in enumerate(lines) if line.startswith("    >> forms ") and '"method": "resources/read"' in line]
    loads = [i for i, line in enumerate(lines) if line.startswith("  -> load_skill ")]
    listed = [i for i, line in enumerate(lines) if '"method": "skills/list"' in line]
    assert len(listed) == 2 and len(loads) == 3 and len(reads) == 3, (listed, loads, reads)
    assert listed[-1] < loads[0] < reads[0], "expected skills/list at connect, and the first read only after the first load_skill"
    for load, read in zip(loads, reads):
        between = [line for line in lines[load + 1:read] if line.startswith("    >> ")]
        assert between == [], f"expected each read right after its load_skill call, found {between}"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_both_eras_list_the_skills_and_refuse_the_tampered_one(tmp_path, era):
    source = tmp_path / "mcp.json"
    source.write_text(json.dumps({"mcpServers": {"forms": {
        "command": sys.executable, "args": ["-m", "mock_servers.skills", "--transport", "stdio", "--tamper-after-list", "--era", era],
        "trustSkills": True}}}), encoding="utf-8")
    (tmp_path / "root").mkdir()
    settings, nowhere = config.copied(source, tmp_path / "root")  # that file and no other config
    out = io.StringIO()

    async def main() -> tuple[list[str], str, str]:
        async with Stack(config.load(nowhere, [settings]), Transcript(out), upto("s37", given=[Skills()])) as stack:
            await stack.connect_all()
            loader = stack.find(Skills).loader
            names = sorted(loader.names)
            loaded = (await loader.call({"skill": "forms:brand-guide"})).text()
            try:
                await loader.call({"skill": "forms:release-notes"})
                refused = "loaded"
            except ToolError as exc:
                refused = str(exc)
            return names, loaded, refused

    names, loaded, refused = anyio.run(main)
    assert names == ["forms:brand-guide", "forms:pdf-forms", "forms:release-notes"], (names, out.getvalue())
    assert loaded.startswith("Skill forms:brand-guide (SKILL.md verified):") and "references/voice.md (" in loaded, loaded
    assert "assets/icon-40.svg" in loaded, "expected all 42 files of the large skill listed"
    assert refused.startswith("skill 'forms:release-notes': SKILL.md: refused, not the file listed: "), refused


def test_a_live_s37_run_sends_what_the_messages_api_takes(monkeypatch):
    """The catalogue in the system prompt, load_skill among the tools, a refusal as an error result: the stand-in's checks."""
    from messages_api import MessagesAPI  # the stand-in: only this test talks to it

    with MessagesAPI.from_file(ROOT / "lessons" / "s37" / "scenario.yaml") as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "ANTHROPIC_AUTH_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        code, text = run_lesson("s37", "--live", "--model", "claude-stand-in")
    assert code == 0, text
    assert [e.status for e in api.exchanges] == [200] * 5, api.refusals
    first = api.exchanges[0].request
    system = first["system"] if isinstance(first["system"], str) else " ".join(b["text"] for b in first["system"])
    assert "- forms:pdf-forms: Fill in the company's PDF forms" in system, system
    assert "load_skill" in [t["name"] for t in first["tools"]], first["tools"]
