"""The catalog's ``deploy`` server as a real MCP server: ``python -m mock_servers.deploy --transport stdio|sse|http``.

All flags and behaviour are in ``mock_servers.serve``; this module only names the server.
"""

from mock_servers.serve import run

if __name__ == "__main__":
    run(name="deploy")
