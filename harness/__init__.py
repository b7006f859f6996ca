"""The course harness: a real MCP client runtime, one mechanism per module.

Modules follow lesson order; an earlier module never imports a later one.

    errors        s19  the exception tree
    tools         s19  Tool values; built-in file tools confined to a workspace
    transcript    s19  events as data and as text, one normaliser
    model         s19  scripted model (scenario.yaml) and live model (anthropic)
    loop          s19  the agent loop; the pool is asked for every turn
    cli           s19  the command line every lesson shares
    mcp_client    s19  a mock MCP client: tools/list and tools/call in process
    connect       s20  the connect_mcp tool
    naming        s21  mcp__server__tool names: normalize, collide, hash, reverse
    pool          s22  tool pool assembly without cache
    wire          s23  the wire tap: every JSON-RPC frame, ids renumbered
    transport     s23  real connections: stdio (s23), SSE (s24), Streamable HTTP sessions (s25)
    auth          s26  OAuth: token store, loopback callback, refresh, step-up, needs-auth
"""
