"""Every error the harness raises, in one tree.

    HarnessError                  base: a message that names the thing that is wrong
    ├── UsageError                bad command line or missing credentials (exit code 2)
    ├── ScenarioError             a scenario file is malformed: names the file and key path
    │   └── ToolNotInPool         the script calls a tool the model was not handed this turn
    ├── ConfigError               a server entry is malformed: names the server and field
    ├── NameCollision             two tools normalize to the same model-facing name
    ├── ModelError                the live model failed (network, API error, bad reply)
    ├── ServerError               an MCP server could not be reached, spawned or kept alive
    │   └── AuthRequired          the server wants a sign-in first; carries a stand-in client
    └── ToolError                 a tool call failed; the agent loop hands it to the model

Rules every raiser follows:

- Messages are deterministic: no time, pid, port, temporary path or traceback, so a
  message can sit in a snapshot as it is.
- Only ``ToolError`` is caught by the agent loop and returned to the model as data. Any
  other exception is a harness or setup problem and ends the run with a one-line error.
- Secrets never go into a message.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class UsageError(HarnessError):
    """The command line is wrong or a credential is missing; the CLI exits with code 2."""


class ScenarioError(HarnessError):
    """A scenario file is malformed. The message starts with the file and key path."""


class ToolNotInPool(ScenarioError):
    """The scripted model was told to call a tool that was not in this turn's pool."""


class ConfigError(HarnessError):
    """A server entry is malformed: ``server 'docs': field 'command': required``."""


class NameCollision(HarnessError):
    """Two different (server, tool) pairs normalize to the same model-facing name."""


class ModelError(HarnessError):
    """The live model could not answer."""


class ServerError(HarnessError):
    """An MCP server could not be connected, spawned or kept alive."""


class AuthRequired(ServerError):
    """The server answered 401: it joins the hub as ``needs-auth`` with ``stand_in`` as its client."""

    def __init__(self, message: str, stand_in: object) -> None:
        super().__init__(message)
        self.stand_in = stand_in


class ToolError(HarnessError):
    """A tool call failed. The loop returns this message to the model as an error result."""
