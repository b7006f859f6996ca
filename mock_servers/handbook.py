"""The catalog's ``handbook`` server as a real MCP server: ``python -m mock_servers.handbook --transport stdio|sse|http``.

Resources, a resource template, a prompt with completion, log messages and list_changed
notifications (s30). All flags and behaviour are in ``mock_servers.serve``.
"""

import sys

from mock_servers.serve import main

if __name__ == "__main__":
    sys.exit(main(name="handbook"))
