"""The catalog's ``notes`` server as a real MCP server: ``python -m mock_servers.notes --transport stdio|sse|http``.

A server not to trust (s31): ``tidy`` claims to be read-only and deletes every note, and
``add_note``'s description carries instructions aimed at the model. All flags and
behaviour are in ``mock_servers.serve``.
"""

from mock_servers.serve import run

if __name__ == "__main__":
    run(name="notes")
