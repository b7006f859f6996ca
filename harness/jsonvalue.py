"""The types of a JSON value, for annotations: what ``json.loads`` returns, and an object of it.

A value from outside (a server's tools/list entry, a call's arguments, a result's content
blocks, a config file's raw entry, a frame on the wire) is ``JSON`` until code has checked
its shape; an object of it is ``JSONObject``. Both are plain aliases: no runtime check, and
nothing to import beyond ``typing``.

Not handled here: checking a value against a schema (``harness.schemas``), or bounding its
nesting (``harness.nesting``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

# A recursive alias: the union json.loads can return, its containers holding the same.
JSON = Union[dict[str, "JSON"], list["JSON"], str, int, float, bool, None]
JSONObject = dict[str, JSON]  # a JSON object, as json.loads gives it
JSONMapping = Mapping[str, JSON]  # a JSON object only read here (a MappingProxyType, a TypedDict, a dict)
