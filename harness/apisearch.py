"""The Messages API's own tool search, offered in place of ``tool_search`` (s36: ``--tool-search server``).

``tool_search_tool_bm25_20251119`` is a server tool: the request names it (``{"type": ...,
"name": "tool_search_tool_bm25"}``, no schema) beside the deferred tools, and the search runs
on Anthropic's side, inside the same response. The model's query and what it found come
back as two blocks of the assistant's content::

    {"type": "server_tool_use", "id": "srvtoolu_...", "name": "tool_search_tool_bm25", "input": {"query": "..."}}
    {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_...",
     "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "..."}]}}

The harness makes neither and runs nothing: the live model keeps them as the API sent them
(``harness.model.Reply.content``) and sends them back in the next request, where each
``tool_reference`` keeps its tool loaded. The request needs the beta header
``advanced-tool-use-2025-11-20``, which the live model adds when this tool is in it.

What the API's search reads is the request alone: each tool's name, description and
parameters. It never sees ``_meta["anthropic/searchHint"]``, nor a server that is not
connected yet; the system prompt names those (``harness.toolsearch``).

Not handled here: the regex variant (``tool_search_tool_regex_20251119``); an offline run
(no scripted model can run Anthropic's search, so ``server`` needs ``--live``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import ToolError
from harness.tools import Tool

TYPE = "tool_search_tool_bm25_20251119"
NAME = "tool_search_tool_bm25"


@dataclass(frozen=True)
class ApiSearch(Tool):
    """The API's search tool: in the request as a server tool's two fields, never called by the harness."""

    def spec(self) -> dict[str, Any]:
        return {"type": TYPE, "name": self.name}


async def _not_here(args: dict[str, Any]) -> str:
    raise ToolError(f"{NAME} runs on the Messages API's side, not in the harness: it needs a live model (--live)")


def api_search() -> ApiSearch:
    """The tool to put in the request; its description and schema are for the transcript and the sizes only."""
    return ApiSearch(NAME, "The Messages API's tool search (BM25 over the request's deferred tools), run by the API.",
                     {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}, _not_here,
                     annotations={"readOnlyHint": True})
