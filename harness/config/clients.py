"""Every client's format beyond s27's three, each a module that registers its ``Reader``.

    module       formats          file
    vscode       vscode, cursor   .vscode/mcp.json, .cursor/mcp.json (and the user files)
    windsurf     windsurf         ~/.codeium/windsurf/mcp_config.json
    gemini       gemini           ~/.gemini/settings.json, .gemini/settings.json
    zed          zed              ~/.config/zed/settings.json, .zed/settings.json
    codex        codex            ~/.codex/config.toml, .codex/config.toml
    continue_    continue         ~/.continue/config.yaml, .continue/mcpServers/*.yaml
    goose        goose            ~/.config/goose/config.yaml

Importing this module registers them all (``harness.config`` does, so ``config.load``
knows them). A new client is a module like these and one line here; nothing else changes.
"""

from harness.config import codex, continue_, gemini, goose, vscode, windsurf, zed  # noqa: F401  (each registers itself)
