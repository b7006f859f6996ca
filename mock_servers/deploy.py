"""The catalog's ``deploy`` server as a real MCP server: ``python -m mock_servers.deploy --transport stdio|sse|http``.

All flags and behaviour are in ``mock_servers.serve``; this module only names the server.
"""

import sys

from mock_servers.serve import main

if __name__ == "__main__":
    sys.exit(main(name="deploy"))
