"""harness.naming: every name is valid, distinct pairs get distinct names or an error."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import NameCollision
from harness.naming import MAX_NAME, assign, normalize, tool_name

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
def test_names_are_stable(server, tool):
    assert tool_name(server, tool) == tool_name(server, tool)


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
