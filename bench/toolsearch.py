"""Tool search, measured: recall on natural requests, the first request's size, the cost of a turn.

    python bench/toolsearch.py [--json]

1. Quality: every request of ``bench/toolsearch_queries.txt`` searched over every tool of
   ``mock_servers.fleet`` (1,058 tools, 15 servers) with ``harness.toolindex``; recall@1 and
   recall@5 (the share of requests whose tool comes first, or in the first five), and the misses.
2. Size: the JSON bytes of the tool definitions the model reads up front, search off (all of
   them) and on (the built-ins, ``tool_search`` and the alwaysLoad tools), at 50, 500 and 2,000 tools.
3. Scale: a turn of ``ToolSearch.offered`` with nothing changed, at 2,000 and 10,000 tools (the
   median of many), and a turn after one server listed anew.

``tests/test_toolsearch_quality.py`` pins the figures of 1 and 2. In-process mock clients, no network.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.toolindex import Doc, Index, Query  # noqa: E402  (after the path fix above)
from mock_servers import fleet  # noqa: E402

QUERIES = ROOT / "bench" / "toolsearch_queries.txt"


def queries(path: Path = QUERIES) -> list[tuple[str, str]]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            request, _, tool = line.rpartition("|")
            found.append((request.strip(), tool.strip()))
    return found


def index_of(servers: dict[str, list[Any]]) -> Index:
    """Every tool of ``servers`` (name -> fleet tools) in one index, named as the pool names them."""
    index = Index()
    for server, tools in servers.items():
        docs = []
        for tool in tools:
            meta = tool.meta or {}
            docs.append(Doc(f"mcp__{server}__{tool.name}", server, tool.name, tool.description,
                            str(meta.get("anthropic/searchHint", "")), tuple(tool.input_schema.get("properties") or ())))
        index.update(server, docs)
    return index


def quality() -> dict[str, Any]:
    index = index_of({kind: fleet.tools(kind) for kind in fleet.KINDS})
    asked = queries()
    unknown = [tool for _, tool in asked if index.doc(tool) is None]
    if unknown:
        raise SystemExit(f"{QUERIES.name}: no such tool in the fleet: {', '.join(unknown)}")
    first = five = 0
    misses = []
    for request, tool in asked:
        ranked = [m.name for m in index.search(Query.parse(request), 5)]
        first += ranked[:1] == [tool]
        five += tool in ranked
        if ranked[:1] != [tool]:
            misses.append({"request": request, "wanted": tool, "got": ranked[:3], "in_top_5": tool in ranked})
    return {"tools": len(index), "requests": len(asked), "recall_at_1": round(first / len(asked), 3),
            "recall_at_5": round(five / len(asked), 3), "misses": misses}


def sizes(counts: tuple[int, ...] = (50, 500, 2000)) -> list[dict[str, Any]]:
    """The definitions the model reads up front, off and on: JSON bytes (and a token estimate at 4 bytes a token)."""
    from harness.toolsearch import NAME, Searcher, Mode, size
    from harness.tools import Tool

    found = []
    searcher = Searcher(Mode("on"), [])
    for count in counts:
        every, up_front = [], [searcher.tool]
        for server, tools in fleet.pool(count).items():
            for t in tools:
                tool = Tool(f"mcp__{server}__{t.name}", t.description, t.input_schema, _never, source=server, original=t.name)
                every.append(tool)
                if (t.meta or {}).get("anthropic/alwaysLoad"):
                    up_front.append(tool)
        off, on = size(every), size(up_front)
        found.append({"tools": count, "off_bytes": off, "on_bytes": on, "on_share": round(on / off, 4),
                      "off_tokens_about": off // 4, "on_tokens_about": on // 4, "loaded_up_front": [t.name for t in up_front if t.name != NAME]})
    return found


async def _never(args: dict[str, Any]) -> str:
    raise AssertionError("the bench calls no tool")


def scale(counts: tuple[int, ...] = (2000, 10000), repeat: int = 200) -> list[dict[str, Any]]:
    """A turn of the part with nothing changed, and one after a server listed anew (``turns.py`` builds the stack)."""
    import anyio

    from bench.toolsearch_turns import measure

    return [anyio.run(measure, count, repeat) for count in counts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    parser.add_argument("--no-scale", action="store_true", help="skip the timing section")
    args = parser.parse_args(argv)
    found: dict[str, Any] = {"quality": quality(), "sizes": sizes()}
    if not args.no_scale:
        found["scale"] = scale()
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    q = found["quality"]
    print(f"quality: {q['requests']} requests over {q['tools']} tools: recall@1 {q['recall_at_1']:.3f}, recall@5 {q['recall_at_5']:.3f}")
    for miss in q["misses"]:
        print(f"  {'top 5' if miss['in_top_5'] else 'MISSED'}: {miss['request']!r}: wanted {miss['wanted']}, got {', '.join(miss['got'])}")
    for row in found["sizes"]:
        print(f"size at {row['tools']} tools: off {row['off_bytes']:,} bytes (~{row['off_tokens_about']:,} tokens), "
              f"on {row['on_bytes']:,} bytes (~{row['on_tokens_about']:,} tokens): {100 * row['on_share']:.1f}%")
    for row in found.get("scale", []):
        print(f"turn at {row['tools']} tools: nothing changed {row['unchanged_ms']:.4f} ms (part only), "
              f"full stack {row['stack_unchanged_ms']:.3f} ms, of which permissions {row['permissions_ms']:.3f} ms; "
              f"one server listed anew {row['one_changed_ms']:.3f} ms, reconnected {row['one_reconnected_ms']:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
