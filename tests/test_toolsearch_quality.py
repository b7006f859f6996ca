"""Tool search, measured: recall on bench/toolsearch_queries.txt over the fleet's 1,058 tools, and the first request's size."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_toolsearch", ROOT / "bench" / "toolsearch.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)  # by path: bench/ is not a package, and its names must not shadow others
_spec.loader.exec_module(bench)


def test_recall_on_the_query_set():
    found = bench.quality()
    assert found["tools"] >= 1000 and found["requests"] >= 60, found
    misses = "\n".join(f"{m['request']!r}: wanted {m['wanted']}, got {m['got']}" for m in found["misses"])
    assert found["recall_at_5"] >= 0.9, f"expected recall@5 >= 0.9, got {found['recall_at_5']}; misses:\n{misses}"
    assert found["recall_at_1"] >= 0.7, f"expected recall@1 >= 0.7, got {found['recall_at_1']}; misses:\n{misses}"


def test_the_first_request_with_search_on_is_at_most_15_percent_at_2000_tools():
    rows = {row["tools"]: row for row in bench.sizes((50, 500, 2000))}
    assert rows[2000]["on_share"] <= 0.15, f"expected at most 15% at 2,000 tools, got {rows[2000]}"
    assert rows[50]["off_bytes"] < rows[500]["off_bytes"] < rows[2000]["off_bytes"]
