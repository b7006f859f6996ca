"""Subagent definitions: Claude Code's agent files, read and checked, and the tools each may use.

A subagent is a Markdown file with YAML frontmatter, in Claude Code's format (its
documentation, "Create custom subagents", https://code.claude.com/docs/en/sub-agents, the
table "Supported frontmatter fields")::

    ---
    name: researcher                    required: lowercase letters, digits and hyphens
    description: Reads the docs ...     required: when the lead should hand it a task
    tools: mcp__docs__*, read_file      the allowlist: a comma-separated string or a list; exact
                                        names, ``mcp__server`` and ``mcp__server__*`` (every tool of
                                        that server). Omitted: every tool the parent has, MCP ones too
    disallowedTools: mcp__docs__admin   taken out first; ``tools`` then applies to what is left
    model: inherit                      sonnet, opus, haiku, a model id, or inherit (the default)
    maxTurns: 6                         the turns it may take before it stops
    mcpServers:                         the servers it may use, each either the name of a server
      - docs                            the parent has (shared: the parent's connection), or an
      - notes: {command: ..., args: []} inline definition (started for this agent, stopped after)
    ---
    You are a researcher. ...           the body: its system prompt

Without ``mcpServers`` an agent may use every server of the parent; with it, only those
it lists. Its tools are then the allowlist over those servers' tools and the parent's
built-ins. The task tool itself is never among them: a subagent does not start
subagents, as in Claude Code.

Scopes, as Claude Code has them: the project's ``.claude/agents/*.md`` (in the working
folder) and the user's ``~/.claude/agents/*.md``; of two with one name the project's wins,
and the one it shadows is said. A broken file is one problem naming the file and the
field; it is left out and every other file still loads. A field Claude Code does not
have is a problem too (Claude Code ignores it silently); the fields it has that this
harness does not run (``permissionMode``, ``skills``, ``hooks``, ``memory``, ``background``,
``effort``, ``isolation``, ``color``, ``initialPrompt``) are kept in ``ignored`` and said.

Introduced by s38 (running one: ``harness.subagents``). Not handled here: ``--agents`` JSON
on the command line, plugin agents, ``Bash(git *)``-style specifiers in ``tools`` (a name
with one matches no tool), another ``model`` than the parent's (it is shown, and the
parent's model runs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness import echo
from harness.config.documents import decode
from harness.config.formats import ServerConfig, near, parse_servers
from harness.errors import ConfigError
from harness.files import NotAFile, read_regular
from harness.jsonvalue import JSON, JSONObject
from harness.permissions import matches
from harness.spec import State
from harness.tools import Tool

FOLDER = Path(".claude") / "agents"
MAX_FILE_BYTES = 256 * 1024  # an agent file is a page of prose; a quarter of a megabyte is a mistake
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
RUN = ("name", "description", "tools", "disallowedTools", "model", "maxTurns", "mcpServers")
IGNORED = ("permissionMode", "skills", "hooks", "memory", "background", "effort", "isolation", "color", "initialPrompt")


@dataclass(frozen=True)
class Agent:
    """One subagent as its file defines it."""

    name: str
    description: str
    prompt: str  # the body: its system prompt
    source: str  # the file, as messages print it
    scope: str = "project"  # project, user, or file (given by the caller)
    tools: tuple[str, ...] | None = None  # None: every tool of the parent
    disallowed: tuple[str, ...] = ()
    model: str = "inherit"
    max_turns: int | None = None  # None: the caller's budget (harness.subagents.MAX_TURNS)
    servers: tuple[str, ...] | None = None  # the parent's servers it may use; None: every one
    inline: tuple[ServerConfig, ...] = ()  # servers only it has: started for it, stopped after
    ignored: tuple[str, ...] = ()  # Claude Code's fields present in the file that this harness does not run

    def may_use(self, server: str) -> bool:
        """May this agent's pool hold ``server``'s tools (a parent's server, or one of its own)?"""
        return self.servers is None or server in self.servers or any(s.name == server for s in self.inline)

    def allows(self, tool: Tool) -> bool:
        """Is ``tool`` on this agent's allowlist, and not disallowed (its server aside: see ``may_use``)?"""
        if any(matches(rule, tool) for rule in self.disallowed):
            return False
        return self.tools is None or any(matches(rule, tool) for rule in self.tools)


@dataclass(frozen=True)
class Found:
    """What the agent folders hold: the agents by name, and one line per problem or shadowed file."""

    agents: dict[str, Agent] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def folders(home: Path, cwd: Path) -> list[tuple[str, Path]]:
    """Claude Code's two scopes, weakest first: the user's folder, then the project's."""
    return [("user", home / FOLDER), ("project", cwd / FOLDER)]


def load(places: Iterable[tuple[str, Path]], shown: dict[str, str] | None = None) -> Found:
    """Every ``*.md`` of each (scope, folder), weakest scope first: a later one with the same name wins.

    ``shown``: how to print a folder's path (``{"project": ".claude/agents"}``); default, as given.
    """
    agents: dict[str, Agent] = {}
    problems, notes = [], []
    for scope, folder in places:
        if not folder.is_dir():
            continue
        said = (shown or {}).get(scope, str(folder))
        for path in sorted(folder.glob("*.md")):
            try:
                agent = read(path, f"{said}/{path.name}", scope)
            except ConfigError as exc:
                problems.append(str(exc))
                continue
            if agent.name in agents:
                notes.append(f"agent '{agent.name}': {agent.source} ({scope}) is used, not {agents[agent.name].source}")
            agents[agent.name] = agent
    return Found(dict(sorted(agents.items())), tuple(problems), tuple(notes))


def read(path: Path, shown: str, scope: str = "file") -> Agent:
    """One agent file; a ``ConfigError`` names ``shown`` and the field."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except (OSError, NotAFile) as exc:
        raise ConfigError(f"{shown}: cannot read: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{shown}: over {MAX_FILE_BYTES:,} bytes: not an agent file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not UTF-8") from None
    return parse(text, shown, scope)


def parse(text: str, shown: str, scope: str = "file") -> Agent:
    """An agent from its file's text: frontmatter between two ``---`` lines, then the body."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        raise ConfigError(f"{shown}: no frontmatter: the file must begin with a '---' line")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise ConfigError(f"{shown}: the frontmatter has no closing '---' line")
    # A blank first line stands for the opening '---', so YAML's line numbers are the file's.
    front = decode("\n" + "\n".join(lines[1:end]), "yaml", shown)
    if not isinstance(front, dict):
        raise ConfigError(f"{shown}: the frontmatter is not a mapping of fields")
    unknown = [str(k) for k in front if k not in RUN and k not in IGNORED]
    if unknown:
        meant = near(unknown[0], RUN + IGNORED)
        raise ConfigError(f"{shown}: field {echo.name(unknown[0])}: not a field of Claude Code's agent files "
                          + (f"(did you mean '{meant}'?)" if meant else f"(they have {', '.join(RUN + IGNORED)})"))
    name = _text(front, "name", shown)
    if not NAME.match(name):
        raise ConfigError(f"{shown}: field 'name': {echo.name(name)} is not lowercase letters, digits and hyphens")
    model = front.get("model", "inherit")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{shown}: field 'model': expected a model name or 'inherit'")
    servers, inline = _servers(front.get("mcpServers"), shown)
    return Agent(name, _text(front, "description", shown), "\n".join(lines[end + 1:]).strip(), shown, scope,
                 tools=_names(front, "tools", shown), disallowed=_names(front, "disallowedTools", shown) or (),
                 model=model, max_turns=_turns(front.get("maxTurns"), shown), servers=servers, inline=inline,
                 ignored=tuple(k for k in IGNORED if k in front))


def _text(front: JSONObject, key: str, shown: str) -> str:
    value = front.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{shown}: field '{key}': required, a non-empty string")
    return value.strip()


def _names(front: JSONObject, key: str, shown: str) -> tuple[str, ...] | None:
    """A list of tool names, written ``a, b`` or as a YAML list; None when the field is absent."""
    value = front.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{shown}: field '{key}': expected a comma-separated string or a list of tool names")
    return tuple(v.strip() for v in value)


def _turns(value: JSON, shown: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{shown}: field 'maxTurns': expected a whole number of turns, at least 1")
    return value


def _servers(value: JSON, shown: str) -> tuple[tuple[str, ...] | None, tuple[ServerConfig, ...]]:
    """``mcpServers``: the parent's servers it names, and the inline ones (each a one-key mapping)."""
    if value is None:
        return None, ()
    if not isinstance(value, list):
        raise ConfigError(f"{shown}: field 'mcpServers': expected a list of server names and inline definitions")
    names: list[str] = []
    inline: list[ServerConfig] = []
    for i, item in enumerate(value):
        where = f"{shown}: field 'mcpServers[{i}]'"
        if isinstance(item, str) and item.strip():
            names.append(item.strip())
        elif isinstance(item, dict) and len(item) == 1:
            (server,) = parse_servers(item, "agent", where, "claude-code")
            if server.state is State.FAILED or server.spec is None:
                raise ConfigError(server.reason if server.reason.startswith(shown) else f"{where}: {server.reason}")
            inline.append(server)
        else:
            raise ConfigError(f"{where}: expected a server's name or one inline definition ({{name: {{command: ...}}}})")
    taken = [s.name for s in inline if s.name in names]
    if taken:
        raise ConfigError(f"{shown}: field 'mcpServers': server '{taken[0]}' is both named and defined inline")
    return tuple(names), tuple(inline)


def described(agents: Sequence[Agent]) -> str:
    """The agents as the task tool's description lists them: one line each, name and description."""
    return "\n".join(f"- {a.name}: {echo.line(a.description, 300)}" for a in agents)
