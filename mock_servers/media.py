"""The catalog's ``media`` server as a real MCP server: ``python -m mock_servers.media --transport stdio|sse|http``.

Every kind of tool result (s32): an image, a mislabelled image, audio, a long report,
resource links and embedded resources (one with a hostile URI), structured content only,
an error with no words, and content meant for the user only.
"""

from mock_servers.serve import run

if __name__ == "__main__":
    run(name="media")
