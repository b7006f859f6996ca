"""A server's form on the terminal: what to type, then one field at a time.

The first question shows the server's message and every field (type, default, required)
and says what may be typed: ``accept`` to fill the form in here, ``decline``, ``cancel``,
or the whole form at once as a JSON object. After ``accept`` each field is asked in turn,
its type, choices and default in the question; Enter keeps the default, or leaves an
optional field out. A value the field cannot take (a word for a number, a choice not
listed) is asked again with what was expected; a required field left empty, asked
``TRIES`` times, or the end of input, declines the form, and the reason is said.

Introduced with the CLI's forms (``harness.elicit.Asker.form`` asks through it when a person
is at the terminal). Not handled here: nested objects and arrays (their field takes JSON).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from harness import echo

TRIES = 3  # questions per field before the form is declined: a person, not a loop, answers
Line = Callable[[str], Awaitable["str | None"]]  # one question, the line typed (None at the end of input)


def field(name: str, prop: Any, required: bool) -> str:
    """``team (string, required)``, ``priority (low|normal|high, default "normal")``: a field as the user reads it."""
    prop = prop if isinstance(prop, dict) else {}
    kind = "|".join(map(str, prop["enum"])) if isinstance(prop.get("enum"), list) else str(prop.get("type", "any"))
    extra = (["required"] if required else []) + ([f"default {json.dumps(prop['default'])}"] if "default" in prop else [])
    return f"{name} ({kind}" + (", " + ", ".join(extra) if extra else "") + ")"


def opening(message: str, fields: str) -> str:
    """The first question: the message, the fields, and the words that may be typed."""
    return (f"{message}\n  fields: {echo.line(fields, 1000)}\n"
            "  type accept to fill it in field by field, decline, cancel, or the form as JSON ({\"field\": value, ...})")


async def fill(schema: Mapping[str, Any], line: Line) -> tuple[dict[str, Any] | None, str]:
    """Each field asked in turn: the content (None: declined) and why it was declined ("" when it was not)."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        question = "  " + echo.line(field(name, prop, name in required), 300)  # a server's names: one line, escaped
        if "default" in prop:
            question += " [Enter keeps the default]"
        elif name not in required:
            question += " [Enter leaves it out]"
        why = f"no valid value for field {echo.name(name)}"
        for _ in range(TRIES):
            typed = await line(question + ": ")
            if typed is None:
                return None, "the input ended"
            if not typed:
                if "default" in prop:
                    content[name] = prop["default"]
                    break
                if name not in required:
                    break
                question = f"  {echo.line(name, 80)} is required: {echo.line(field(name, prop, True), 300)}"
                why = f"no value for required field {echo.name(name)}"
                continue
            value, problem = typed_value(typed, prop)
            if not problem:
                content[name] = value
                break
            question = f"  {echo.line(name, 80)}: {problem}"
        else:
            return None, why
    return content, ""


def typed_value(text: str, prop: Mapping[str, Any]) -> tuple[Any, str]:
    """The value a typed line stands for in this field, and what was expected if it stands for none."""
    kind = prop.get("type")
    value: Any = text
    if kind == "boolean":
        if text.lower() not in ("true", "false", "yes", "no", "y", "n"):
            return None, "expected yes or no"
        value = text.lower() in ("true", "yes", "y")
    elif kind in ("number", "integer"):
        try:
            value = int(text) if kind == "integer" else float(text)
        except ValueError:
            return None, f"expected {'a whole number' if kind == 'integer' else 'a number'}"
    elif kind in ("object", "array"):
        try:
            value = json.loads(text)
        except ValueError:
            return None, f"expected JSON ({kind})"
    if isinstance(prop.get("enum"), list) and value not in prop["enum"]:
        return None, "expected one of " + echo.line(", ".join(map(str, prop["enum"])), 300)
    return value, ""
