"""The user CLI's skills (s37): ``skills``, ``skill SERVER:NAME``, doctor's findings, chat's load_skill and /server:prompt."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaks import no_process_left  # noqa: F401  (the fixture)
from test_app import cli

from harness.errors import UsageError
from harness.slash import parse

ROOT = Path(__file__).resolve().parent.parent


def server(module: str, *flags: str, **more) -> dict:
    return {"command": sys.executable, "args": ["-m", module, "--transport", "stdio", *flags], **more}


@pytest.fixture
def forms(tmp_path: Path) -> Path:
    path = tmp_path / "forms.json"
    path.write_text(json.dumps({"mcpServers": {"forms": server("mock_servers.skills", "--tamper-after-list")}}), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_skills_lists_names_descriptions_and_files_and_reads_nothing(forms):
    done = cli("--config", str(forms), "skills")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "forms:brand-guide  (42 files, 324,461 bytes)",
        "    The company's voice, words to use and avoid, and its icons, for any text or slide that customers see."], done.stdout
    rows = json.loads(cli("--config", str(forms), "--json", "skills").stdout)
    assert [(r["name"], r["files"]) for r in rows] == [("forms:brand-guide", 42), ("forms:pdf-forms", 3), ("forms:release-notes", 1)]


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_skill_prints_a_verified_skill_md_and_refuses_a_tampered_one(forms):
    done = cli("--config", str(forms), "skill", "forms:pdf-forms")
    assert done.returncode == 0 and done.stdout.startswith("---\nname: pdf-forms\n"), (done.stdout, done.stderr)
    one = cli("--config", str(forms), "skill", "forms:pdf-forms", "--file", "references/FIELDS.md")
    assert one.returncode == 0 and one.stdout.startswith("# The fields of each form\n"), one.stdout
    tampered = cli("--config", str(forms), "skill", "forms:release-notes")
    assert (tampered.returncode, tampered.stdout) == (1, ""), tampered
    assert tampered.stderr.endswith("error: skill 'forms:release-notes': SKILL.md: refused, not the file listed: "
                                    "320 bytes read, 234 listed\n"), tampered.stderr
    unknown = cli("--config", str(forms), "skill", "forms:nope")
    assert unknown.returncode == 2 and "no such skill (the skills: forms:brand-guide, forms:pdf-forms, forms:release-notes)" in unknown.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_doctor_reports_the_skill_that_fails_verification(forms):
    done = cli("--config", str(forms), "doctor")
    assert done.returncode == 1, done.stdout
    assert (f"problem: {forms}: server 'forms': skill 'forms:release-notes': SKILL.md: refused, not the file listed: "
            "320 bytes read, 234 listed\n  fix: do not load forms:release-notes: ") in done.stdout, done.stdout
    assert done.stdout.count("problem:") == 1, "expected the two verified skills to raise nothing"


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_chat_offers_load_skill_and_asks_the_trust_question_with_chat_s_answers(forms):
    done = cli("--config", str(forms), "chat", "--scenario", str(ROOT / "lessons" / "s37" / "scenario.yaml"))
    assert done.returncode == 0, done.stderr
    assert "  ?? load_skill forms:pdf-forms: server 'forms' is not trusted for skills: asked, scripted answered always" in done.stdout
    assert "  <! skill 'forms:release-notes': SKILL.md: refused, not the file listed: 320 bytes read, 234 listed" in done.stdout


@pytest.mark.slow
@pytest.mark.usefixtures("no_process_left")
def test_chat_expands_a_typed_server_prompt_command(tmp_path):
    config = tmp_path / "handbook.json"
    config.write_text(json.dumps({"mcpServers": {"handbook": server("mock_servers.handbook")}}), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("prompt: /handbook:summarize title=style\nturns:\n  - text: Summarized.\n", encoding="utf-8")
    done = cli("--config", str(config), "chat", "--scenario", str(scenario))
    assert done.returncode == 0, done.stderr
    assert "note: /handbook:summarize: the prompt summarize of server 'handbook', expanded into the user's turn" in done.stdout
    assert "user> Summarize the handbook's style page in one sentence, then suggest one improvement." in done.stdout, done.stdout
    scenario.write_text("prompt: /handbook:summarize titel=style\nturns:\n  - text: Summarized.\n", encoding="utf-8")
    bad = cli("--config", str(config), "chat", "--scenario", str(scenario))
    assert bad.returncode == 2 and "error: /handbook:summarize: unknown titel; missing title (its arguments: title)" in bad.stderr, bad


def test_a_typed_command_is_server_colon_prompt_then_name_value_pairs():
    assert parse('/docs:summarize title="the style guide" n=2', {"docs"}) == ("docs", "summarize", {"title": "the style guide", "n": "2"})
    assert parse("/tmp: is full", {"docs"}) is None, "expected a sentence left alone"
    assert parse("/other:summarize", {"docs"}) is None, "expected a server that is not configured left alone"
    assert parse("summarize /docs:x", {"docs"}) is None
    with pytest.raises(UsageError, match=r"/docs:summarize: 'style' is not name=value"):
        parse("/docs:summarize style", {"docs"})
    with pytest.raises(UsageError, match="No closing quotation"):
        parse('/docs:summarize title="open', {"docs"})
