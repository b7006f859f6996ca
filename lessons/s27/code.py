"""s27: configuration. The servers come from mcpServers files, as Claude Code and Cline write them.

New here: `harness.config` reads the scopes Claude Code uses (user ~/.claude.json, every
.mcp.json from the root down to the project, local overrides in ~/.claude.json, and an
enterprise policy) and checks every entry on its own. The lesson lays out a home, a
project and a managed folder in the workspace from lessons/s27/config/, then loads them:

- docs comes from the user scope and is overridden by the local scope (closer wins);
- deploy comes from the project's .mcp.json, with ${DEPLOY_REGION:-eu-west} in its env;
- metrics needs ${METRICS_TOKEN}, which is not set: that server fails, naming the variable;
- wiki has no command: a broken entry, reported as `server 'wiki': field 'command': required`;
- shell is denied by the managed policy: listed as blocked, never spawned.

The good servers connect at start, concurrently (Hub.connect_all), and the run goes on
with them. Variables are expanded from a fixed environment here (PYTHON only), so the
transcript is the same on every machine; the user CLI uses the real one.

Not yet: per-server timeouts and reconnecting (s28), reloading the file while running (s29).

New modules: harness/config/variables.py, harness/config/formats.py, harness/config/policy.py, harness/config/scopes.py, harness/config/wiring.py

Run: python lessons/s27/code.py            (offline, scripted model)
     python lessons/s27/code.py --wire     (and every JSON-RPC frame)
     python lessons/s27/code.py --live     (real model; needs ANTHROPIC_API_KEY)
"""

import json
import sys
from pathlib import Path

from harness import config, lesson, wire

BASE = "You are a coding agent. Use the tools to answer; connect MCP servers when you need them; be brief."
HERE = Path(__file__).resolve().parent / "config"


def lay_out(root: Path) -> config.Paths:
    """A home, a project and a managed folder inside the workspace, from the lesson's config files."""
    project, home, managed = root / "project", root / "home", root / "managed"
    for folder in (project, home, managed):
        folder.mkdir()
    user = (HERE / "claude.json").read_text(encoding="utf-8").replace("{project}", json.dumps(str(project))[1:-1])
    (home / ".claude.json").write_text(user, encoding="utf-8")
    (project / ".mcp.json").write_text((HERE / "mcp.json").read_text(encoding="utf-8"), encoding="utf-8")
    (managed / "managed-settings.json").write_text((HERE / "managed-settings.json").read_text(encoding="utf-8"), encoding="utf-8")
    return config.Paths(home=home, cwd=project, managed=managed)


async def session(run: lesson.Run) -> None:
    from harness.connect import connect_tool
    from harness.stack import Stack, upto  # the SDK: after the command line is parsed

    environ = {"PYTHON": sys.executable}  # what ${...} may use in this lesson
    with wire.recording(run.transcript, run.args) as tap:
        servers = config.load(lay_out(run.workspace.root))
        for source in sorted({s.source for s in servers}):
            run.transcript.note(f"read {source}: {', '.join(s.name for s in servers if s.source == source)}")
        async with Stack(servers, run.transcript, upto("s27"), environ=environ, tap=tap) as stack:
            await stack.connect_all()  # every pending server, a few local ones starting at once (hub.local_limit)
            for row in config.rows(stack.hub, servers):
                detail = row["error"] or ", ".join(row["tools"])
                run.transcript.note(f"{row['name']} ({row['scope']}, {row['transport'] or 'no transport'}): {row['state']}: {detail}")
            builtins = run.workspace.tools() + [connect_tool(stack.hub)]
            await run.agent(stack.pool(BASE, builtins, report=run.transcript.note))


def options(parser) -> None:
    wire.options(parser)


def main(argv=None, out=sys.stdout) -> int:
    return lesson.run_lesson(__file__, __doc__, argv, out, session, options)


if __name__ == "__main__":
    sys.exit(main())
