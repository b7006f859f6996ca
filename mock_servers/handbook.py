"""The catalog's ``handbook`` server as a real MCP server: ``python -m mock_servers.handbook --transport stdio|sse|http``.

Resources, a resource template, a prompt with completion, log messages and list_changed
notifications (s30). All flags and behaviour are in ``mock_servers.serve``.
"""

from mock_servers.serve import run

if __name__ == "__main__":
    run(name="handbook")
