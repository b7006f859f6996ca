"""Import only the half of the ``mcp`` SDK a process uses: the client's, or a server's.

The SDK's two package files load both halves. ``mcp/__init__.py`` imports the whole client
(``mcp.client``), and ``mcp/client/__init__.py`` imports ``Client``, whose in-memory
transport imports ``mcp.server``; ``mcp/server/__init__.py`` imports ``MCPServer`` with
its resources, prompts and settings. A lesson or the CLI, a client, then also imports
every server module (584 modules where the client needs 391: about 0.3 s of CPU), and a
mock server the whole client (463 modules where it needs them).

``load_only(half)`` registers ``mcp`` and ``mcp.<half>`` unexecuted, their search paths
only, so an import of ``mcp.client.session`` or ``mcp.server.lowlevel`` loads just the
modules it needs. The SDK's own modules import from submodules, never from those package
files (the two that do are ``Client`` and ``ClientSessionGroup``, which the harness does
not use), and the harness and the mock servers do the same: ``mcp.client.session`` for
``ClientSession``, ``mcp.server.lowlevel`` for ``Server``.

Only a program's own entry calls it, first thing: ``python -m harness``, a lesson run as
the program (``harness.lesson``), a mock server's ``__main__``. A process that has imported
``mcp`` already (a test run, the benchmark) is left as it is, so in-process callers see
the SDK as it ships.

Introduced by s23 (the first lesson with the real SDK). Not handled here: an SDK version
whose submodules import from the package files; the entry points would then fail at
their first SDK import, loudly, in every test that starts one.
"""

from __future__ import annotations

import importlib.util
import sys


def load_only(half: str) -> None:
    """Let this process import ``half`` (``"client"`` or ``"server"``) of the SDK without the other; call before any ``mcp`` import."""
    if "mcp" in sys.modules:
        return
    for package in ("mcp", f"mcp.{half}"):
        spec = importlib.util.find_spec(package)  # mcp.<half>: found through the unexecuted mcp just registered
        if spec is None:  # no SDK here: the first real import says so
            return
        sys.modules[package] = importlib.util.module_from_spec(spec)
