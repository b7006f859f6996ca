"""``schema/mcp-course.schema.json``: the JSON Schema (2020-12) of the harness's own config fields.

Every field the harness reads beyond a client's own (``harness.config.fields``' checkers, ``formats.MECHANISM_FIELDS``
and s28's ``timeouts``) is in it; every test config of every format (``tests/configs/``, decoded as the harness
decodes it: JSONC, TOML, YAML) validates against it; and for each field, a value the harness refuses when it reads
the file is one the schema refuses too, and a value it takes is one the schema takes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import jsonschema
import pytest

from harness.config import fields, formats
from harness.config.documents import decode
from harness.config.search_policy import Mode
from harness.config.task_policy import TaskPolicy
from harness.errors import ConfigError
from harness.spec import ServerSpec

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "schema" / "mcp-course.schema.json").read_text(encoding="utf-8"))
CONFIGS = sorted(p for p in (ROOT / "tests" / "configs").rglob("*") if p.is_file() and not p.name.endswith(".env"))
KINDS = {".toml": "toml", ".yaml": "yaml"}
# For each field: values the harness takes, and values it refuses (as it reads the file).
SAMPLES = {
    "autoApprove": ([["search"], []], ["search", [1], {"a": 1}]),
    "maxOutputTokens": ([100, 25000], [99, 2.5, True, "300"]),
    "protocol": (["2026-07-28", "2025-11-25", "auto"], ["2025-06-18", 2026, None]),
    "toolSearch": (["on", "off", "server", "auto", "auto:5", "auto:100", " Auto:50 "], ["auto:0", "auto:101", "sometimes", 1]),
    "tasks": (["on", "off", ["render_video"]], [[], [""], "long", True]),
    "trustSkills": ([True, False], ["yes", "true", None]),
    "timeouts": ([{"call": 5}, {"connect": 0.5, "list": 3600}], [{"call": 0}, {"call": 3601}, {"read": 5}, {"call": "5"}]),
}


def refused_by_the_harness(name: str, value: object) -> bool:
    """Whether reading an entry with ``name: value`` fails that server, as the harness reads a file."""
    if name == "timeouts":
        found = formats.parse_servers({"s": {"command": "x", "timeouts": value}}, "user", "f.json", "claude-code")[0]
        return found.spec is None
    if name == "toolSearch":
        try:
            Mode.parse(value, "toolSearch")
        except ConfigError:
            return True
        return False
    if name == "tasks":  # warned about by the tasks part, which keeps the default
        try:
            TaskPolicy.parse(value, "tasks")
        except ConfigError:
            return True
        return False
    if name == "trustSkills":  # warned about by the skills part, which then asks
        return not isinstance(value, bool)
    server = formats.ServerConfig("s", "user", "f.json", ServerSpec("s", "stdio", command="x"), raw=MappingProxyType({name: value}))
    return fields.checked(replace(server)).spec is None


def test_every_field_the_harness_reads_beyond_the_clients_own_is_in_the_schema():
    known = set(fields.CHECKERS) | set(formats.MECHANISM_FIELDS) | {"timeouts"}
    described = set(SCHEMA["$defs"]["server"]["properties"])
    assert known <= described, f"expected the schema to describe {sorted(known - described)}"
    assert set(SAMPLES) == described, "each field of the schema has its samples here"
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", CONFIGS, ids=[str(p.relative_to(ROOT)) for p in CONFIGS])
def test_each_test_config_validates(path):
    document = decode(path.read_text(encoding="utf-8"), KINDS.get(path.suffix, "jsonc"), str(path))
    errors = [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == [], f"expected {path.name} to validate, got {errors}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_schema_takes_and_refuses_what_the_harness_takes_and_refuses(name):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    taken, refused = SAMPLES[name]
    for value in taken + refused:
        document = {"mcpServers": {"s": {"command": "x", name: value}}}
        harness_refuses, schema_refuses = refused_by_the_harness(name, value), not validator.is_valid(document)
        assert harness_refuses == (value in refused), f"sample {name}={value!r}: expected the harness to {'refuse' if value in refused else 'take'} it"
        assert schema_refuses == harness_refuses, f"{name}={value!r}: the harness {'refuses' if harness_refuses else 'takes'} it, the schema does not agree"
