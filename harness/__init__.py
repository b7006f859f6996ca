"""The course harness: a real MCP client runtime, one mechanism per module.

Modules follow lesson order; an earlier module never imports a later one.

    errors        s19  the exception tree
    spec          s19  ServerSpec, Timeouts, Limits, State: a server before it connects; no SDK
    results       s19  ToolResult: content blocks, is_error; text() is what the model reads
    redact        s19  secrets out of every output, always (session ids, tokens, URLs, variables)
    echo          s19  the one escaper: server-given text printable, on one line, cut
    nesting       s19  JSON from outside read with a nesting limit (config files, arguments)
    files         s19  every file the harness reads or saves: a regular file, a bounded size, never a wait
    jsonvalue     all  the types of a JSON value, for annotations: JSON, JSONObject, JSONMapping
    tools         s19  Tool values; built-in file tools confined to a workspace
    transcript    s19  events as data and as text; normalization only with --deterministic
    model         s19  scripted model (scenario.yaml) and live model (anthropic)
    loop          s19  the agent loop; the pool is asked for every turn; Policy hooks
    cli_types     s19  argument types the lesson runner and the CLI share
    signals       s19  one trap for SIGINT, SIGTERM, SIGHUP: one line and an exit code
    lesson        s19  the lesson runner every lesson shares: options, signals, exit codes
    exits         s19  a program's end: flush, then os._exit (no teardown after the SDK's imports)
    client        s19  the declared protocols: what a client is (call, list, renew, offers, roots)
    mcp_client    s19  a mock MCP client: tools/list and tools/call in process
    schemas       s19  tool schemas as the Messages API takes them; calls checked against the original
    hub           s20  the one owner of the servers: entries, states, join order
    connect       s20  the connect_mcp tool, which asks the hub to connect
    naming        s21  mcp__server__tool names: normalize, collide, hash, reverse
    pool          s22  tool pool assembly without cache
    wire          s23  the wire tap: every JSON-RPC frame, ids renumbered
    sdk_half      s23  a program imports the SDK's client half or server half, not both
    transports/   s23  the registry (kinds and config aliases): stdio (s23), sse (s24), http (s25)
    guard         s23  between tap and session: unsendable frames refused, malformed tools dropped
    hooks         s23  Mechanism: the typed hooks a later lesson's mechanism overrides; the chains that run them
    sessions      s23  SessionOwner: a connection's state and owner task; opens, re-opens and closes its sessions
    opening       s23  Opener: one session's transport, tap, guard, ClientSession and handshake
    calls         s23  CallPath: tools/call and tools/list on the current session, bounded
    connection    s23  MCPConnection (the owner, the opener, the call path, the mechanisms), Connections
    expiry        s25  a forgotten session re-initialized, the call retried once
    auth/         s26  OAuth: store, redirect, provider, clock, needs-auth
    config/       s27  mcpServers files: variables, formats, policy, scopes, wiring, envFiles (dotenv)
    lifecycle     s28  the supervisor: Backoff, reconnect on next use, state lines
    reload        s29  the settings file watched: diff, fingerprint, the harness's own writes
    definition    s30  a tool's definition: what an "always" is for, what a relisting changed
    resources     s30  offers at connect, list_changed, logs; resources as two tools, prompts
    permissions   s31  allow/ask/deny rules, prompters, annotations as claims, poisoned descriptions
    output        s32  every result block to what a tool_result holds; the cap and its spill
    pages         s33  a page a server asks the user to open: https (http on this machine) only, the host shown apart
    elicit        s33  elicitation, sampling, roots; the input-required rounds
    era           s34  the handshake era and 2026-07-28, negotiated per server (or pinned by "protocol")
    modern        s34  a 2026-07-28 session's side: subscriptions/listen, log messages asked for, resultType
    cache         s34  the SDK's response cache: a 2026-07-28 answer reused for its ttlMs, evicted by its changes
    sdk_compat    s34  every private SDK member the harness uses, each with the version it was read from
    parts         root what a part of the stack is: the typed hooks the composition root calls
    stack         root the one composition root: config -> hub -> connectors -> pool -> policy, from parts
    survey        s35  a scripted model for any config: one read-only call per server, a summary
    toolindex     s36  the search index over tools: BM25 over name, searchHint, parameters, description; per server
    apisearch     s36  the Messages API's own search tool (tool_search_tool_bm25), for --tool-search server
    toolsearch    s36  deferred loading and tool_search as a stack part: defer_loading, tool_reference, misses that say why
    agents        s38  Claude Code's agent files (.claude/agents/NAME.md) read and checked; each agent's allowlist
    subagents     s38  the task tool as a stack part: an agent's loop on the parent's servers, pool and policy
    skills        s37  SEP-2640 skills on the wire: skills/list at connect, each file read on demand and verified
    skilltool     s37  skills for the model as a stack part: the catalogue, load_skill, server:skill names, trust
    tasks         s39  SEP-2663 tasks followed as a stack part: polled, answered, cancelled, polled again after a reconnect
    sdklog        CLI  the SDK's log records as escaped "warning: mcp sdk:" lines (the CLI and the lesson runner)
    terminal      CLI  the CLI's stdout and stderr: every write redacted, then escaped
    app           CLI  python -m harness (mcp-course): servers, tools, call, resources, prompts, chat
    conformance   CI   the harness as a client for the official MCP conformance suite

harness/README.md draws the layers and says who owns what.

Lessons run through ``harness.lesson``. Importing this package sets one thing beyond
itself: a Ctrl-C that lands while a program is still importing (before any handler of
ours runs) prints ``error: interrupted`` instead of a traceback, and exits 130 as usual.
Every other uncaught exception goes to the hook that was there before.
"""

import sys as _sys


def _interrupted(kind, value, traceback, _before=_sys.excepthook):  # type: ignore[no-untyped-def]
    if issubclass(kind, KeyboardInterrupt):
        _sys.stderr.write("error: interrupted\n")
        return
    _before(kind, value, traceback)


if _sys.excepthook is _sys.__excepthook__:  # only over Python's own hook, never over a host's
    _sys.excepthook = _interrupted
