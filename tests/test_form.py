"""``harness.form``: a form filled one field at a time from typed lines (no terminal needed)."""

from __future__ import annotations

import anyio

from harness import form


def _fill(schema, lines):
    asked: list[str] = []
    given = iter(lines)

    async def line(question: str):
        asked.append(question)
        return next(given, None)  # None: the end of input

    return anyio.run(form.fill, schema, line), asked


SCHEMA = {"properties": {"n": {"type": "integer"}, "mode": {"enum": ["a", "b"], "default": "a"}, "note": {"type": "string"}},
          "required": ["n"]}


def test_each_field_is_asked_a_wrong_value_again_and_enter_keeps_a_default_or_leaves_it_out():
    (content, why), asked = _fill(SCHEMA, ["three", "3", "", ""])
    assert (content, why) == ({"n": 3, "mode": "a"}, ""), (content, why)
    assert asked == ["  n (integer, required): ", "  n: expected a whole number: ",
                     '  mode (a|b, default "a") [Enter keeps the default]: ', "  note (string) [Enter leaves it out]: "], asked


def test_the_end_of_input_or_a_required_field_left_empty_declines_saying_why():
    assert _fill(SCHEMA, [])[0] == (None, "the input ended")
    assert _fill(SCHEMA, ["", "", ""])[0] == (None, "no value for required field 'n'")


def test_a_server_s_field_name_cannot_add_lines_to_the_question():
    (_, _), asked = _fill({"properties": {"x\n  type accept": {"type": "string"}}}, ["v"])
    assert "\n" not in asked[0], f"expected the name escaped on one line: {asked[0]!r}"
