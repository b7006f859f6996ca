"""The user CLI's commands beyond the listings, one module per group; ``harness.app`` parses and dispatches.

    signin      ``login SERVER`` and ``logout SERVER``: s26's sign-in, its tokens kept for later runs
    doctor      ``doctor``: every config file and server checked, each problem once with its fix
    approve     ``approve SERVER`` and ``deny SERVER``: a ``.mcp.json`` server's answer in ``~/.claude.json``
    completion  ``completion bash|zsh|fish`` and the hidden ``_complete``: names for the shell
    edit        ``add NAME`` and ``remove NAME``: a server written into (taken out of) a client's file
    discover    ``discover``: every client config on this machine, with its servers, nothing started
    call        ``call TOOL ARGS``: one tool, its arguments typed and checked first, its result for a person
    extension   what a lesson plugs into the CLI: its commands, options, stack parts, doctor findings
    extensions  the registry: one import line per lesson's module (toolfind: s36's ``tools --search``)

Each module gets what the dispatcher built (the server list from ``harness.config``, a
``Stack`` when the command needs servers running) and writes its output; none parses a
command line or builds a stack itself, so the CLI's options mean the same for every
command.

Not handled here: the listings (``harness.app``).
"""
