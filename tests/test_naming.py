"""harness.naming: every name is valid, distinct pairs get distinct names or an error, and a
name is the same in every process.

Child processes: three small interpreters with other hash seeds, because "the same in every
process" needs processes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from limits import RUN

from harness.errors import NameCollision
from harness.naming import MAX_NAME, assign, normalize, tool_name

ROOT = Path(__file__).resolve().parent.parent
VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
names = st.text(min_size=0, max_size=120)


@given(names, names)
def test_every_name_is_valid(server, tool):
    name = tool_name(server, tool)
    assert VALID.match(name), f"{name!r} (from {server!r}, {tool!r}) is not a valid tool name"


@given(st.lists(st.tuples(names, names), max_size=30, unique=True))
def test_distinct_pairs_get_distinct_names_or_an_error(pairs):
    try:
        mapping = assign(pairs)
    except NameCollision as exc:
        assert "would name both" in str(exc)
        return
    assert len(set(mapping.values())) == len(pairs)
    for pair in pairs:
        assert mapping.resolve(mapping[pair]) == pair, "the reverse map must give back the original pair"


@given(names, names)
def test_names_are_stable_within_a_process(server, tool):
    assert tool_name(server, tool) == tool_name(server, tool)


TRICKY = [
    ("docs", "search"),
    ("acme.wiki", "page.get"),
    ("acme wiki", "find pages"),
    ("café", "résumé"),
    ("β-server", "naïve_tool"),
    ("rocket 🚀", "ship 🚢 it"),
    ("my__server", "a__b"),
    ("__", "__"),
    ("", ""),
    ("srv", "x" * 80),
    ("srv", "y" * 70 + ".a"),
    ("srv", "y" * 70 + ":a"),
    ("s" * 40, "t" * 40),
    ("émoji 🎉" * 6, "outil été" * 8),
    ("a.b" * 30, "c__d" * 20),
]
NAME_THEM = "import json, sys; from harness.naming import tool_name; print(json.dumps([tool_name(s, t) for s, t in json.load(sys.stdin)]))"


def test_names_are_the_same_in_every_process_whatever_the_hash_seed():
    """A name the model saw in one run must mean the same tool in the next: no ``hash()`` in it."""
    expected = [tool_name(server, tool) for server, tool in TRICKY]
    assert any(len(name) == MAX_NAME and name != f"mcp__{normalize(s)}__{normalize(t)}"
               for name, (s, t) in zip(expected, TRICKY)), "expected some pairs long enough to be cut and hashed"
    outputs = {}
    for seed in ("1", "2", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONUTF8": "1"}
        done = subprocess.run([sys.executable, "-c", NAME_THEM], input=json.dumps(TRICKY), cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=RUN)
        assert done.returncode == 0, f"expected the child with PYTHONHASHSEED={seed} to exit 0; stderr:\n{done.stderr}"
        outputs[seed] = json.loads(done.stdout)
    for seed, theirs in outputs.items():
        differ = [(pair, here, there) for pair, here, there in zip(TRICKY, expected, theirs) if here != there]
        assert not differ, f"expected PYTHONHASHSEED={seed} to give this process's names; (pair, here, there): {differ}"


def test_normalize_replaces_everything_outside_the_alphabet():
    assert normalize("acme.wiki v2/β") == "acme_wiki_v2__"
    assert normalize("ok-name_1") == "ok-name_1"


def test_short_names_are_just_prefixed():
    assert tool_name("docs", "search") == "mcp__docs__search"
    assert tool_name("acme.wiki", "find pages") == "mcp__acme_wiki__find_pages"


def test_long_names_are_cut_with_a_hash_of_the_original():
    long_tool = "x" * 80
    name = tool_name("srv", long_tool)
    assert len(name) == MAX_NAME
    assert re.fullmatch(r"mcp__srv__x+_[0-9a-f]{8}", name), name
    # Same prefix after normalizing, different originals: different names.
    assert tool_name("srv", "y" * 70 + ".a") != tool_name("srv", "y" * 70 + ":a")


def test_a_name_of_exactly_64_is_not_cut():
    tool = "t" * (MAX_NAME - len("mcp__s__"))
    assert tool_name("s", tool) == f"mcp__s__{tool}"


def test_collision_names_both_sides():
    with pytest.raises(NameCollision) as caught:
        assign([("acme.wiki", "page.get"), ("acme wiki", "page.get")])
    assert str(caught.value) == (
        "'mcp__acme_wiki__page_get' would name both server 'acme.wiki' tool 'page.get' and server 'acme wiki' tool 'page.get'"
    )


def test_a_tool_listed_twice_is_an_error():
    with pytest.raises(NameCollision, match="lists tool 'search' twice"):
        assign([("docs", "search"), ("docs", "search")])


def test_reverse_map_does_not_split_on_double_underscore():
    mapping = assign([("my__server", "a__b")])
    assert mapping.resolve("mcp__my__server__a__b") == ("my__server", "a__b")


def test_shortened_lists_only_cut_names():
    mapping = assign([("docs", "search"), ("srv", "z" * 90)])
    assert list(mapping.shortened()) == [("srv", "z" * 90)]


def test_collision_messages_show_hostile_names_escaped():
    with pytest.raises(NameCollision) as caught:
        assign([("s", "a\u202e"), ("s", "a\n")])
    assert str(caught.value) == "'mcp__s__a_' would name both server 's' tool 'a\\u202e' and server 's' tool 'a\\n'"
    with pytest.raises(NameCollision) as caught:
        assign([("s", "x" * 1000), ("s", "x" * 1000)])
    assert str(caught.value) == "server 's' lists tool '" + "x" * 128 + "...' (cut: 1000 characters) twice"


def test_checker_notes_show_hostile_names_escaped():
    from harness.naming import checker

    lines = []
    checker(lines.append, lines.append)({"s": _Client("s", "go\u202eexe", "t" * 90)})
    assert lines[0] == "mcp__s__go_exe -> server 's' tool 'go\\u202eexe'"
    assert lines[1].startswith("'s' tool '" + "t" * 90 + "': name is 98 characters, over 64; using 'mcp__s__"), lines[1]


class _Client:
    def __init__(self, name, *tools):
        self.name, self.tools = name, [{"name": t} for t in tools]
