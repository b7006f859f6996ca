"""Input schemas: offer each tool in a shape the Messages API accepts, enforce the server's own.

An MCP server may describe a tool's input with any JSON Schema. The Messages API takes less,
and what it refuses it refuses for the whole request: one tool's schema answered with HTTP
400 means no tool works, not just that one. It is publicly reported to refuse an
``input_schema``

- with ``anyOf``, ``oneOf`` or ``allOf`` at the top level: ``tools.3.custom.input_schema:
  input_schema does not support oneOf, allOf, or anyOf at the top level`` (a zod union, a
  pydantic discriminated union, "give id or path" written as ``anyOf`` of ``required``);
- without a top-level ``type``, or with one other than ``"object"``
  (``tools.3.custom.input_schema.type: Field required``).

``offered(schema)`` is the schema the model is offered. A schema the API accepts is offered
as the server sent it (the same object). Any other becomes ``type: object`` with the
combinators taken out of the top level, and this is what is kept of them (nothing is
added that the server's schema does not say):

- ``properties``: the union of the top level's and every branch's (a ``$ref`` branch into the
  schema's own ``$defs`` is followed). A property that branches shape differently gets the
  shapes moved down to it: ``allOf`` of them under a top-level ``allOf`` (exact: every branch
  applies), ``anyOf`` of them under ``anyOf``/``oneOf`` (looser: which branch applies is the
  whole-object rule below). A property the top level already shapes keeps that shape;
  under ``allOf`` the branches' other shapes of it are added with ``allOf``.
- ``required``: what every call must have whichever branch it takes: the top level's, plus
  every branch's under ``allOf``, plus only what all branches share under ``anyOf``/``oneOf``.
- the whole-object rule, which no property-level shape can say ("exactly one of ``id`` and
  ``full_path``"), is stated in words and as the branches' JSON in the schema's top-level
  ``description``, after the server's own, at most ``RULE_CHARS`` characters with a stated
  cut. An ``allOf`` whose branches hold only ``type``, ``properties``, ``required``, ``title``
  and ``description`` is merged exactly and needs no words.
- a ``type`` list that includes ``"object"`` becomes ``"object"`` (tool arguments are always
  an object); a ``type`` with no ``"object"`` in it cannot be met by any call, and the
  description says so.

The offered schema is guidance: the API does not check a call against it, and it is
looser than the server's wherever a rule could only be put in words. The server's rules
are enforced on the harness's side: ``checker(schema)`` validates each call against the
server's ORIGINAL schema before it is sent, and a call that fails is a ``ToolError`` the
model reads, naming where and the rule it broke (``$.mode: 'fast' is not one of ['a', 'b']
(rule: properties/mode/enum)``); a call that matches none of an ``anyOf``/``oneOf``'s
alternatives is told so, with each alternative's own complaint. It uses ``jsonschema``, which the ``mcp`` SDK already
depends on (the SDK validates tool *outputs* with it), imported on the first call, with
the dialect the schema's ``$schema`` names (2020-12 when it names none), no format
assertions, and an empty registry: a ``$ref`` resolves inside the schema or not at all,
never over the network.

Not handled here: a schema that is not valid JSON Schema at all (the API refuses it as
"JSON schema is invalid"; checking every schema against the metaschema costs about 9 ms a
tool, 18 s for a 2,000-tool pool), and a schema ``jsonschema`` cannot apply (an unknown
type, a ``$ref`` that leads nowhere): such a call is sent unchecked and the server decides.
Combinators below the top level are left as they are: the API accepts them.

From s19 on, ``harness.mcp_client.agent_tools`` offers
every MCP tool through ``offered`` and checks every call with ``checker``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from harness import echo
from harness.jsonvalue import JSON, JSONMapping, JSONObject

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

COMBINATORS = ("allOf", "anyOf", "oneOf")
RULE_CHARS = 2000  # of the rule written into a description; a branch list longer than this is cut, and says so
PROBLEM_CHARS = 300  # of jsonschema's message in a refusal (it quotes the arguments, which can be long)
_PLAIN = frozenset({"type", "properties", "required", "title", "description"})  # an allOf branch of only these merges exactly
_WORDS = {"allOf": "every one", "anyOf": "at least one", "oneOf": "exactly one"}

Check = Callable[[JSONMapping], "str | None"]


def accepted(schema: JSON) -> bool:
    """Whether the Messages API takes ``schema`` as a tool's ``input_schema`` as it is."""
    return isinstance(schema, Mapping) and schema.get("type") == "object" and not any(k in schema for k in COMBINATORS)


def offered(schema: JSON) -> JSONMapping:
    """The schema the model is offered for a tool whose server sent ``schema`` (see the module docstring)."""
    if accepted(schema):
        return schema
    if not isinstance(schema, Mapping):
        return {"type": "object"}
    out = {k: v for k, v in schema.items() if k not in COMBINATORS}
    out["type"] = "object"
    notes = []
    kind = schema.get("type")
    if kind is not None and kind != "object" and not (isinstance(kind, list) and "object" in kind):
        notes.append(f"The server's schema asks for type {json.dumps(kind)}: tool arguments are always an object, so every call will be refused.")
    properties = dict(schema["properties"]) if isinstance(schema.get("properties"), Mapping) else {}
    required = [r for r in schema.get("required", []) if isinstance(r, str)] if isinstance(schema.get("required"), list) else []
    for keyword in COMBINATORS:
        if keyword not in schema:
            continue
        branches = schema[keyword]
        if not isinstance(branches, list) or not branches:
            notes.append(f"The server's schema has a malformed top-level {keyword} ({echo.line(json.dumps(branches), 200)}); the server decides.")
            continue
        resolved = [_resolved(b, schema) for b in branches]
        _merge_properties(properties, resolved, keyword)
        required += [r for r in _required(resolved, keyword) if r not in required]
        if keyword != "allOf" or not all(isinstance(b, Mapping) and set(b) <= _PLAIN for b in resolved):
            notes.append(_rule(keyword, resolved))
    if properties:
        out["properties"] = properties
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    if notes:
        own = schema.get("description")
        out["description"] = "\n\n".join(([own] if isinstance(own, str) and own else []) + notes)
    return out


def _resolved(branch: JSON, root: JSONMapping) -> JSON:
    """``branch``, with a local ``$ref`` (``#/$defs/A``) followed once; anything else as it is."""
    if not isinstance(branch, Mapping) or not isinstance(branch.get("$ref"), str) or not branch["$ref"].startswith("#/"):
        return branch
    target: JSON | JSONMapping = root
    for part in branch["$ref"][2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or part not in target:
            return branch  # leads nowhere: shown as it is, and the checker will not resolve it either
        target = target[part]
    if not isinstance(target, Mapping):
        return branch
    return {**target, **{k: v for k, v in branch.items() if k != "$ref"}}


def _merge_properties(properties: JSONObject, branches: list[JSON], keyword: str) -> None:
    shapes: dict[str, list[JSON]] = {}
    for branch in branches:
        if isinstance(branch, Mapping) and isinstance(branch.get("properties"), Mapping):
            for name, shape in branch["properties"].items():
                if shape not in shapes.setdefault(name, []):
                    shapes[name].append(shape)
    for name, found in shapes.items():
        if name in properties:  # the top level shapes it for every call; a branch's shape is part of the rule
            if keyword == "allOf" and any(s != properties[name] for s in found):
                properties[name] = {"allOf": [properties[name], *[s for s in found if s != properties[name]]]}
            continue
        properties[name] = found[0] if len(found) == 1 else {("allOf" if keyword == "allOf" else "anyOf"): found}


def _required(branches: list[JSON], keyword: str) -> list[str]:
    sets = [[r for r in b.get("required", []) if isinstance(r, str)] if isinstance(b, Mapping) and isinstance(b.get("required"), list) else []
            for b in branches]
    if keyword == "allOf":
        return list(dict.fromkeys(r for s in sets for r in s))
    return [r for r in sets[0] if all(r in s for s in sets[1:])]


def _rule(keyword: str, branches: list[JSON]) -> str:
    listed = " ".join(f"({i}) {json.dumps(b, ensure_ascii=False, sort_keys=True)}" for i, b in enumerate(branches, 1))
    text = f"The arguments must match {_WORDS[keyword]} of these {len(branches)} schemas (top-level {keyword}, checked before the call): {listed}"
    return echo.line(text, RULE_CHARS)


def checker(schema: JSON) -> Check:
    """A check of a call's arguments against ``schema`` (the server's own): ``None`` if it passes, else what is wrong.

    The validator is built on the first call and kept; a schema it cannot apply passes every
    call on to the server.
    """
    if not isinstance(schema, Mapping):
        return _passes
    built: list[Validator | None] = []

    def check(arguments: JSONMapping) -> str | None:
        if plainly_valid(schema, arguments):  # most calls of most tools: no jsonschema import, no validator
            return None
        if not built:
            built.append(_validator(schema))
        validator = built[0]
        if validator is None:
            return None
        from jsonschema.exceptions import best_match  # jsonschema: only a call that is not plainly valid

        try:
            error = best_match(validator.iter_errors(arguments))
        except Exception:  # an unknown type, a $ref that leads nowhere: the schema, not the call, is broken
            built[0] = None
            return None
        return None if error is None else _problem(error)

    return check


_PLAIN_OBJECT = frozenset({"type", "properties", "required", "additionalProperties", "title", "description"})
_PLAIN_PROPERTY = frozenset({"type", "enum", "default", "title", "description"})
_PLAIN_TYPES: Mapping[str, tuple[type, ...]] = {"string": (str,), "boolean": (bool,), "integer": (int,), "number": (int, float)}


def plainly_valid(schema: JSONMapping, arguments: JSON | JSONMapping) -> bool:
    """True only if ``arguments`` certainly match ``schema``, for the plain object schemas most tools have; False: ask jsonschema.

    The schema may use only ``type: object``, ``properties``, ``required``, a boolean
    ``additionalProperties``, and per property a single ``type`` of string, boolean,
    integer or number, an ``enum`` of strings, and annotations. Anything else, and every
    call that does not plainly pass, goes to ``jsonschema``, which says what is wrong:
    this never refuses a call, so it can never word a refusal differently. Checked against
    jsonschema's verdict in tests/test_schemas.py. It saves importing jsonschema (about a
    tenth of a second) in a run whose calls all pass, as s19 to s22's do.
    """
    if schema.get("type") != "object" or not schema.keys() <= _PLAIN_OBJECT or type(arguments) is not dict:
        return False
    properties, required, extra = schema.get("properties", {}), schema.get("required", []), schema.get("additionalProperties", True)
    if type(properties) is not dict or type(required) is not list or (extra is not True and extra is not False):
        return False
    if not all(type(name) is str and name in arguments for name in required):
        return False
    for name, value in arguments.items():
        rule = properties.get(name)
        if rule is None:
            if extra is False:
                return False
            continue
        if type(rule) is not dict or not rule.keys() <= _PLAIN_PROPERTY:
            return False
        kind = rule.get("type")
        kinds = _PLAIN_TYPES.get(kind) if type(kind) is str else None  # a missing, listed or other type: jsonschema decides
        if kinds is None or type(value) not in kinds:  # type(): True is not an integer here, as in JSON
            return False
        if "enum" in rule and not (type(value) is str and type(rule["enum"]) is list and value in rule["enum"]):
            return False  # a str equals only a str: no 1 == True surprise in the membership test
    return True


def _problem(error: ValidationError) -> str:
    """What is wrong, where, and the rule's place in the schema.

    ``best_match`` goes down into the alternatives of an ``anyOf``/``oneOf`` and picks one
    branch's complaint, which reads as if that branch were the rule. A call that matches no
    alternative is told so, with each branch's own complaint.
    """
    from jsonschema.exceptions import best_match  # jsonschema: loaded by the check that failed

    top = error
    while top.parent is not None:
        top = top.parent
    if top.validator in ("anyOf", "oneOf") and top.context:
        by_branch: dict[int, list[ValidationError]] = {}
        for sub in top.context:
            by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
        branches = "; ".join(f"({i + 1}) {_one(best_match(subs), 150)}" for i, subs in sorted(by_branch.items()))
        if len(top.absolute_schema_path) == 1:  # a top-level one: offered() wrote its alternatives into the description
            rule = f"of the top-level {top.validator} (listed in the tool's input schema description)"
        else:
            rule = f"(rule: {_rule_path(top)})"
        count = len(top.validator_value)
        return f"{top.json_path}: matches none of the {count} alternative{'' if count == 1 else 's'} {rule}: {branches}"
    return _one(error, PROBLEM_CHARS)


def _one(error: ValidationError, limit: int) -> str:
    return f"{error.json_path}: {echo.line(error.message, limit)} (rule: {_rule_path(error)})"


def _rule_path(error: ValidationError) -> str:
    return echo.line("/".join(str(p) for p in error.absolute_schema_path) or "schema", 200)


def _passes(arguments: JSONMapping) -> None:
    return None


def _validator(schema: JSONMapping) -> Validator | None:
    # jsonschema costs about a tenth of a second to import: only a run that calls an MCP tool pays it.
    from jsonschema.validators import Draft202012Validator, validator_for
    from referencing import Registry

    try:
        with warnings.catch_warnings():  # an unknown $schema warns and falls back to the default: fine
            warnings.simplefilter("ignore")
            cls = validator_for(schema, default=Draft202012Validator)
        return cls(schema, registry=Registry())  # empty: no $ref is ever fetched
    except Exception:  # not a schema jsonschema can hold: the server decides
        return None
