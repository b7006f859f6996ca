"""The course harness: a real MCP client runtime, one mechanism per module.

Modules follow lesson order; an earlier module never imports a later one.

    errors        s19  the exception tree
    spec          s19  ServerSpec, Timeouts, State: a server before it connects; no SDK
    results       s19  ToolResult: content blocks, is_error; text() is what the model reads
    redact        s19  secrets out of every output, always (first ones: s24's session ids)
    tools         s19  Tool values; built-in file tools confined to a workspace
    transcript    s19  events as data and as text; normalization only with --deterministic
    model         s19  scripted model (scenario.yaml) and live model (anthropic)
    loop          s19  the agent loop; the pool is asked for every turn; Policy hooks
    lesson        s19  the lesson runner every lesson shares: options, signals, exit codes
    mcp_client    s19  a mock MCP client: tools/list and tools/call in process
    hub           s20  the one owner of the servers: entries, states (s19 already uses it)
    connect       s20  the connect_mcp tool, which asks the hub to connect
    naming        s21  mcp__server__tool names: normalize, collide, hash, reverse
    pool          s22  tool pool assembly without cache
    wire          s23  the wire tap: every JSON-RPC frame, ids renumbered
    transports/   s23  the transport registry: stdio (s23), sse (s24), http (s25); lines, web: bounded reads
    guard         s23  between tap and session: unsendable frames refused, malformed tools dropped (issue 8)
    connection    s23  MCPConnection, Connections: handshake, calls; session expiry (s25)
    auth          s26  OAuth: token store, loopback callback, refresh, step-up, needs-auth
    config        s27  mcpServers files: formats, scopes, per-entry validation, allow/deny, ${VAR}
    lifecycle     s28  Backoff (reconnect for every transport), state lines
    reload        s29  the settings file watched: diff, fingerprint, the harness's own writes
    resources     s30  resources as two tools, prompts expanded, log messages, list_changed
    permissions   s31  allow/ask/deny rules, prompters, annotations as claims, poisoned descriptions
    output        s32  every result block to what a tool_result holds; the cap and its spill
    elicit        s33  elicitation, sampling, roots; both protocol eras
    app           CLI  python -m harness (mcp-course): servers, tools, call, resources, prompts, chat
    conformance   CI   the harness as a client for the official MCP conformance suite

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
