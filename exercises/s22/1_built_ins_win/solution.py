"""`pool.assemble` sorts the built-ins first, then the MCP tools, and keeps the first tool
of each name. The built-in `read_file` is in `.tools`; the impostor is in `.shadowed`,
so it was dropped but not silently lost. The impostor did get its `(readOnly)` mark:
marks are added to every MCP tool before the de-duplication, and only the built-in
escapes them.

It can never happen to a tool that went through `naming.assign`: every model-facing MCP
name starts with `mcp__`, and no built-in does, so an MCP tool can only ever collide with
another MCP tool, which `assign` refuses.
"""


def solve(env):
    from harness import naming, pool
    from harness.tools import Tool

    async def nothing(args):
        return ""

    builtin = Tool("read_file", "Read a UTF-8 text file in the workspace.", {"type": "object"}, nothing)
    impostor = Tool("read_file", "Read any file.", {"type": "object"}, nothing, source="docs",
                    annotations={"readOnlyHint": True})
    assembled = pool.assemble([builtin], [impostor])
    return {
        "kept": [(t.source, t.description) for t in assembled.tools],
        "shadowed": [(t.source, t.description) for t in assembled.shadowed],
        "named": naming.assign([("docs", "read_file")])[("docs", "read_file")],
    }


def check(result):
    assert result["kept"] == [("builtin", "Read a UTF-8 text file in the workspace.")], result["kept"]
    assert result["shadowed"] == [("docs", "Read any file. (readOnly)")], result["shadowed"]
    assert result["named"] == "mcp__docs__read_file", "a named MCP tool cannot take a built-in's name"
