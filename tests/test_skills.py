"""harness.skills: one test per rule of a listing and of verification (SEP-2640), no server needed."""

from __future__ import annotations

import base64
from types import SimpleNamespace

import anyio
import pytest

from harness import skills
from harness.errors import ToolError
from harness.skills import File, Skill, Tampered

BODY = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
FRONT = {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}
SKILL_MD = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"


def listed(body: str = BODY, **more) -> dict:
    data = body.encode()
    return {"uri": SKILL_MD, "frontmatter": dict(FRONT),
            "resources": [{"uri": SKILL_MD, "digest": skills.digest(data), "size": len(data)}], **more}


def skill(body: str = BODY) -> Skill:
    found, warnings = skills.entry("docs", listed(body))
    assert found is not None and warnings == [], f"expected a clean entry, got {warnings}"
    return found


def test_an_entry_gives_its_name_description_path_and_files():
    found = skill()
    assert (found.name, found.description, found.path, found.root) == (
        "pdf-processing", FRONT["description"], "pdf-processing", "skill://pdf-processing/")
    assert found.files == (File(SKILL_MD, skills.digest(BODY.encode()), len(BODY.encode())),)


@pytest.mark.parametrize("change, said", [
    ({"uri": "https://example.com/SKILL.md"}, "uri is not skill://<path>/SKILL.md"),
    ({"frontmatter": {"name": "pdf-processing"}}, "frontmatter lacks a name or a description"),
    ({"frontmatter": {"name": "PDF processing\n- evil: do it", "description": "x"}}, "is not 1-64 lower-case letters"),
    ({"frontmatter": {"name": "a--b", "description": "x"}}, "is not 1-64 lower-case letters"),
    ({"uri": "skill://pdf processing/SKILL.md"}, "its path is not segments of letters"),
    ({"resources": "everything"}, 'resources is neither a list nor "dynamic"'),
    ({"resources": [{"uri": SKILL_MD, "digest": "md5:abc"}]}, "digest is not sha256:<64 hex>"),
    ({"resources": [{"uri": SKILL_MD, "size": -1}]}, "size is not a whole number"),
    ({"resources": [{"uri": f"skill://pdf-processing/{i}"} for i in range(513)]}, "513 files, over the limit of 512"),
    ({"resources": [{"uri": SKILL_MD, "size": 16 * 1024 * 1024 + 1}]}, "over the limit of 16,777,216 (16 MiB)"),
])
def test_a_bad_entry_is_left_out_with_a_warning_naming_server_skill_and_field(change, said):
    found, warnings = skills.entry("docs", {**listed(), **change})
    assert found is None, f"expected the entry left out for {change}"
    assert len(warnings) == 1 and warnings[0].startswith("server 'docs': skill ") and said in warnings[0], (
        f"expected one warning naming server, skill and {said!r}, got {warnings}")


def test_a_reserved_metadata_key_is_a_warning_and_the_skill_is_kept():
    raw = listed()
    raw["frontmatter"]["metadata"] = {"io.modelcontextprotocol/owner": "x", "team": "docs"}
    found, warnings = skills.entry("docs", raw)
    assert found is not None, "expected the skill kept: a reserved key is ignored, not fatal"
    assert warnings == ["server 'docs': skill skill://pdf-processing/SKILL.md: frontmatter metadata key "
                        "'io.modelcontextprotocol/owner' is reserved for MCP extensions (io.modelcontextprotocol/...) "
                        "and none is defined: ignored"], warnings


def test_a_dynamic_skill_has_no_file_list():
    found, _ = skills.entry("docs", {**listed(), "resources": "dynamic"})
    assert found is not None and found.files is None, "expected a dynamic skill with files None"


def test_the_listed_bytes_verify():
    skills.verify(skill(), SKILL_MD, BODY.encode())  # no exception: verified


def test_a_changed_digest_is_refused_naming_skill_file_and_digests():
    with pytest.raises(Tampered) as caught:
        skills.verify(skill(), SKILL_MD, BODY.replace("Skill body.", "Evil body!!").encode())
    text = str(caught.value)
    assert text.startswith("skill 'docs:pdf-processing': SKILL.md: refused, not the file listed: digest sha256:") and "listed" in text, text


def test_a_changed_size_is_refused_before_the_digest():
    with pytest.raises(Tampered, match=r"SKILL\.md: refused, not the file listed: 105 bytes read, 97 listed"):
        skills.verify(skill(), SKILL_MD, (BODY + "extra 8\n").encode())


def test_a_changed_frontmatter_is_refused_naming_the_fields():
    tampered = BODY.replace("Extract, fill, and assemble PDF documents", "Exfiltrate credentials")
    found = skill(tampered)  # listed with the tampered file's own digest and size, so only the frontmatter differs
    found = Skill(found.server, found.uri, dict(FRONT), found.files)
    with pytest.raises(Tampered, match="its frontmatter differs in description"):
        skills.verify(found, SKILL_MD, tampered.encode())


def test_a_skill_md_without_frontmatter_is_refused():
    body = "no frontmatter here\n"
    found = Skill("docs", SKILL_MD, dict(FRONT), (File(SKILL_MD, skills.digest(body.encode()), len(body)),))
    with pytest.raises(Tampered, match="no frontmatter"):
        skills.verify(found, SKILL_MD, body.encode())


def test_a_file_not_in_the_listing_is_not_checked_against_an_entry():
    skills.verify(skill(), FORMS, b"anything")  # no entry for it: the caller decides whether it may be read


def test_contents_bytes_joins_text_and_blob():
    data = skills.contents_bytes([{"uri": "a", "text": "h\u00e9"}, {"uri": "b", "blob": base64.b64encode(b"\x00\x01").decode()}])
    assert data == "h\u00e9".encode() + b"\x00\x01", data


def test_frontmatter_reads_yaml_between_the_dashes():
    assert skills.frontmatter("\ufeff" + BODY) == FRONT
    assert skills.frontmatter("---\nname: [unclosed\n---\n") is None, "expected None for YAML that does not parse"


def test_declared_reads_the_extension_from_capabilities():
    assert skills.declared({"extensions": {skills.EXTENSION: {}}}) == {}
    assert skills.declared({"extensions": {}}) is None and skills.declared({}) is None


class Host:
    """What a Listing asks of its connection, held in process: requests answered from ``answers`` in order."""

    name = "docs"

    def __init__(self, *answers, capabilities=None):
        self.answers = list(answers)
        self.capabilities = {"extensions": {skills.EXTENSION: {}}} if capabilities is None else capabilities
        self.said: list[tuple[str, str]] = []
        self.timeouts = SimpleNamespace(list=5.0)

    def begin(self, phase):
        pass

    def say(self, kind, text):
        self.said.append((kind, text))

    def live(self, tool):
        return self

    async def request(self, what, request, limit, name):
        return await request

    async def send_request(self, request, result_type):
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return result_type.validate_python(answer)


def opened(host: Host) -> skills.Listing:
    listing = skills.Listing()
    listing.bind(host)
    anyio.run(listing.on_open, host)
    return listing


def test_the_listing_follows_next_cursor_and_checks_each_entry():
    listing = opened(Host({"skills": [listed()], "nextCursor": "2"}, {"skills": [{"uri": "skill://x/SKILL.md"}]}))
    assert [s.name for s in listing.skills] == ["pdf-processing"], listing.skills
    assert listing.host.said == [("warning", "server 'docs': skill skill://x/SKILL.md: frontmatter lacks a name or a "
                                             "description: left out")], listing.host.said


def test_a_server_that_does_not_declare_the_extension_is_not_asked():
    host = Host(capabilities={"tools": {}})
    assert opened(host).skills == [] and host.answers == [], "expected no skills/list sent"


@pytest.mark.parametrize("answer, said", [
    (ToolError("server 'docs': skills/list: error -32601: Method not found"),
     "server 'docs': skills/list: error -32601: Method not found; no skills from it"),
    ({"skills": "all of them"}, "server 'docs': skills/list: the answer is not a skills listing: 'skills' is a str, not a list; "
                                "no skills from it"),
    ([1, 2], "server 'docs': skills/list: the answer is not a skills listing: 1 validation error for dict[str,any]; no skills from it"),
])
def test_a_listing_that_fails_costs_the_skills_and_not_the_connection(answer, said):
    listing = opened(Host(answer))
    assert listing.skills == [] and listing.host.said == [("warning", said)], listing.host.said


def test_a_list_changed_notification_marks_the_listing_stale_and_relist_reads_it_again():
    host = Host({"skills": []}, {"skills": [listed()]})
    listing = opened(host)
    listing.on_notification(SimpleNamespace(method="notifications/tools/list_changed"))
    assert not listing.stale, "expected a tools change to leave skills alone"
    listing.on_notification(SimpleNamespace(method="notifications/skills/list_changed"))
    assert listing.stale, "expected the extension's list_changed to mark the listing stale"
    assert [s.name for s in anyio.run(listing.relist)] == ["pdf-processing"] and not listing.stale
