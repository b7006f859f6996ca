"""Configuration: the ``mcpServers`` files people already have, read as they wrote them (s27).

One module per part, in the order a file is read:

    variables  ``${VAR}``, ``${VAR:-default}``, ``${env:VAR}``: kept as written, expanded at each start
    formats    the registry of formats (``Reader``), and s27's three: Claude Desktop, Claude Code, Cline
    documents  a file's text into a document: JSON, JSON with comments, TOML, YAML
    entries    what the other clients' readers share: typed fields, unknown-field warnings
    clients    VS Code, Cursor, Windsurf, Gemini CLI, Zed, Codex, Continue, goose: a module each
    cli        --format NAME and --input ID=VALUE for the user CLI: ``add_arguments``, ``options``
    toolfilter the tools a config leaves out (includeTools, disabled_tools...), as a connection mechanism
    policy     the enterprise allow and deny lists (``managed-settings.json``)
    fields     the fields of later mechanisms (autoApprove, maxOutputTokens, protocol), checked in their words
    scopes     enterprise, user, project (approved), local, or ``--config`` files; ``load``, ``Paths``
    wiring     the configured servers into the hub: ``add_to``, ``entry``, ``connector``, ``rows``

A broken entry fails that server alone, naming it and its field; a refused one is listed
``blocked`` with the rule; nothing is spawned before both checks. The names below are
importable from here (``config.load``, ``config.Paths``); the modules import each other
directly.

Introduced by s27. Not handled here: Cline's remote config, writing files (s29),
``headersHelper``; the fields of later mechanisms, which they read from ``ServerConfig.raw``
themselves (``autoApprove``: ``harness.permissions``; ``maxOutputTokens``: ``harness.output``).
"""

from harness.config import clients  # noqa: F401  (registers every client's format)
from harness.config.formats import TIMEOUT_NAMES, Reader, ServerConfig, Source, file_format, parse_servers, read_json, readers, register
from harness.config.cli import add_arguments, options
from harness.config.scopes import Paths, copied, load
from harness.config.variables import expand
from harness.config.wiring import add_to, connector, entry, rows

__all__ = ["TIMEOUT_NAMES", "Paths", "Reader", "ServerConfig", "Source", "add_arguments", "options", "readers", "register", "add_to", "connector", "copied", "entry", "expand", "file_format",
           "load", "parse_servers", "read_json", "rows"]
