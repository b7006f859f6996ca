"""The CLI's extensions (``harness.commands.extension``): every module imported here, each with its ``EXTENSION``.

A lesson that adds to the command line adds one import line below and edits nothing else of
the CLI. The lines' order is the order ``--help`` lists the extensions' commands and the order
they are asked to run one. (A linter sees the imports as unused: ``EXTENSIONS`` collects them.)
"""

from __future__ import annotations

from types import ModuleType

from harness.commands.extension import Extension

from harness.commands import toolfind  # s36: tools --search, chat --tool-search
from harness.commands import skillcmd  # s37: skills, skill SERVER:NAME, chat's /server:prompt
from harness.commands import agentcmd  # s38: agents, chat's task tool over .claude/agents
from harness.commands import taskcmd  # s39: tasks followed in every command, status lines on stderr
from harness.commands import convert  # convert --from FILE --to FORMAT, between the clients' formats

EXTENSIONS: tuple[Extension, ...] = tuple(
    value.EXTENSION for value in list(globals().values()) if isinstance(value, ModuleType) and isinstance(getattr(value, "EXTENSION", None), Extension))
