"""``completion bash|zsh|fish``: shell completion of commands, options, server names and tool names.

The script a shell gets (``eval "$(mcp-course completion bash)"``, or saved where the
shell looks for completions) completes the commands and options it was generated with,
files and folders for the options that take them, and names by asking the CLI itself:

- ``mcp-course [--config F] [--home D] [--managed D] _complete servers``: the server names
  of that config, read as every command reads it. Nothing is started: a config read is
  milliseconds, and completion must never start a program.
- ``... _complete tools``: the model-facing tool names of that config's servers, from the
  cache that ``servers`` and ``tools`` leave (``$XDG_STATE_HOME/mcp-course/completion.json``:
  each server's name, its command or URL as written, its tool names). Only the servers this
  config would start are offered (not one it disables, blocks or rejects), and only the tools
  its filter lets through (``enabled_tools``, ``excludeTools``...). A server whose entry
  changed since is left out until the next listing; a server never listed has no names.

``_complete`` is left out of ``--help``; the scripts are its only users. The commands and
options in each script come from the CLI's own parser, so they are always the current ones.

Not handled here: the values of ``--answer`` and of a tool's
JSON arguments, completion for ``python -m harness`` (shells complete a program's name,
and that one is ``python``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from harness import naming, nesting
from harness.files import read_regular
from harness.config import ServerConfig
from harness.jsonvalue import JSONObject
from harness.tools import state_dir
from harness.spec import State

NAME = "mcp-course"  # the program the scripts complete: the console script
SHELLS = ("bash", "zsh", "fish")
VALUED = ("--config", "--home", "--managed")  # the options that choose the config: passed on to _complete
FILES, FOLDERS = ("--config", "--scenario"), ("--home", "--managed", "--root", "--token-store", "--workspace")
FREE = ("--answer", "--prompt", "--model", "--max-turns")  # take a value no list can offer
SERVER_COMMANDS = ("login", "logout", "approve", "deny", "remove")
MAX_CACHE_BYTES = 4 * 1024 * 1024  # a cache of tool names: past it, it is ignored and written afresh


def cache_file(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "completion.json"


def remember(servers: Iterable[ServerConfig], tools: Mapping[str, Sequence[str]], cache: Path | None = None) -> None:
    """Keep each listed server's tool names (model-facing) for ``_complete tools``; other servers' entries stay."""
    cache = cache or cache_file()
    known = _read(cache)
    for server in servers:
        if server.name in tools and server.spec is not None:
            known[server.name] = {"where": server.spec.where(), "tools": [naming.tool_name(server.name, t) for t in tools[server.name]],
                                  "originals": list(tools[server.name])}
    try:
        cache.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=f".{cache.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(known, f, indent=1, sort_keys=True)
        os.replace(tmp, cache)
    except OSError:
        pass  # a cache: completing fewer names is no reason for a listing to fail


def names(kind: str, servers: Sequence[ServerConfig], cache: Path | None = None) -> list[str]:
    """``_complete``'s answer: the servers of the config, or the cached tool names of those whose entry is unchanged,
    that this config would start (not disabled, blocked or broken) and whose tool filter lets them through."""
    from harness.config.toolfilter import allowed  # the config's tool filter: only when a cache is written

    if kind == "servers":
        return [s.name for s in servers]
    known = _read(cache or cache_file())
    found = []
    for server in servers:
        kept = known.get(server.name)
        if not (isinstance(kept, dict) and server.spec is not None and server.state is State.PENDING
                and kept.get("where") == server.spec.where()):
            continue
        pairs = zip(kept.get("tools", []), kept.get("originals", []))  # an entry of an older cache has none: listed again first
        found += [t for t, o in pairs if isinstance(t, str) and isinstance(o, str)
                  and allowed(o, server.include_tools, server.exclude_tools)]
    return sorted(found)


def script(shell: str, commands: Sequence[str], options: Sequence[str]) -> str:
    """The completion script for ``shell``, with these commands and options."""
    words = {"COMMANDS": " ".join(commands), "OPTIONS": " ".join(sorted(set(options))), "VALUED": "|".join(VALUED),
             "FILES": "|".join(FILES), "FOLDERS": "|".join(FOLDERS), "FREE": "|".join(FREE),
             "SKIPPED": "|".join(o for o in (*FILES, *FOLDERS, *FREE, "--sign-in", "--server") if o not in VALUED),
             "SERVER_COMMANDS": "|".join(SERVER_COMMANDS), "NAME": NAME, "FUNCTION": "_" + NAME.replace("-", "_")}
    text = TEMPLATES[shell]
    if shell == "fish":
        words = {k: v.replace("|", " ") for k, v in words.items()}
        text += "".join(f"complete -c {NAME} -l {o[2:]} -r -F\n" for o in FILES)
        text += "".join(f"complete -c {NAME} -l {o[2:]} -r -a '(__fish_complete_directories)'\n" for o in FOLDERS)
        text += "".join(f"complete -c {NAME} -l {o[2:]} -r\n" for o in FREE)
        others = sorted(set(options) - {*FILES, *FOLDERS, *FREE, "--sign-in", "--server"})
        text += "".join(f"complete -c {NAME} -l {o[2:]}\n" for o in others if o.startswith("--"))
    for key, value in words.items():
        text = text.replace(f"@{key}@", value)
    return text


def _read(cache: Path) -> JSONObject:
    """The cache, or nothing when it is missing, no regular file, too big, no JSON or nested too deep: it is only a cache."""
    try:
        raw = read_regular(cache, MAX_CACHE_BYTES)
        data = nesting.loads(raw) if len(raw) <= MAX_CACHE_BYTES else None
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


BASH = """\
# bash completion for @NAME@: eval "$(@NAME@ completion bash)" in ~/.bashrc,
# or save it as ~/.local/share/bash-completion/completions/@NAME@
@FUNCTION@() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i
    local -a config=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            @VALUED@) config+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}"); ((i++)) ;;
            @SKIPPED@) ((i++)) ;;
            -*) ;;
            *) [[ -z "$cmd" ]] && cmd="${COMP_WORDS[i]}" ;;
        esac
    done
    local names
    case "$prev" in
        @FILES@) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        @FOLDERS@) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        @FREE@) return ;;
        --sign-in) COMPREPLY=($(compgen -W "browser auto" -- "$cur")); return ;;
        --server) names="$(@NAME@ "${config[@]}" _complete servers 2>/dev/null)"
                  COMPREPLY=($(compgen -W "$names" -- "$cur")); return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "@OPTIONS@" -- "$cur"))
        return
    fi
    case "$cmd" in
        "") COMPREPLY=($(compgen -W "@COMMANDS@" -- "$cur")) ;;
        call) if [[ "$prev" == call ]]; then
                  names="$(@NAME@ "${config[@]}" _complete tools 2>/dev/null)"
                  COMPREPLY=($(compgen -W "$names" -- "$cur"))
              fi ;;
        @SERVER_COMMANDS@) if [[ "$prev" == "$cmd" ]]; then
                  names="$(@NAME@ "${config[@]}" _complete servers 2>/dev/null)"
                  COMPREPLY=($(compgen -W "$names" -- "$cur"))
              fi ;;
        completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
    esac
}
complete -o default -F @FUNCTION@ @NAME@
"""

ZSH = """\
#compdef @NAME@
# zsh completion for @NAME@: eval "$(@NAME@ completion zsh)" in ~/.zshrc (after compinit),
# or save it as _@NAME@ in a folder of your $fpath
@FUNCTION@() {
    local cmd="" i
    local -a config
    for ((i = 2; i < CURRENT; i++)); do
        case "${words[i]}" in
            @VALUED@) config+=("${words[i]}" "${words[i+1]}"); ((i++)) ;;
            @SKIPPED@) ((i++)) ;;
            -*) ;;
            *) [[ -z "$cmd" ]] && cmd="${words[i]}" ;;
        esac
    done
    local prev="${words[CURRENT-1]}"
    case "$prev" in
        @FILES@) _files; return ;;
        @FOLDERS@) _directories; return ;;
        @FREE@) return ;;
        --sign-in) compadd browser auto; return ;;
        --server) compadd -- ${(f)"$(@NAME@ $config _complete servers 2>/dev/null)"}; return ;;
    esac
    if [[ "$PREFIX" == -* ]]; then
        compadd -- @OPTIONS@
        return
    fi
    case "$cmd" in
        "") compadd -- @COMMANDS@ ;;
        call) [[ "$prev" == call ]] && compadd -- ${(f)"$(@NAME@ $config _complete tools 2>/dev/null)"} ;;
        @SERVER_COMMANDS@) [[ "$prev" == "$cmd" ]] && compadd -- ${(f)"$(@NAME@ $config _complete servers 2>/dev/null)"} ;;
        completion) compadd bash zsh fish ;;
    esac
}
if [[ "${funcstack[1]}" == "@FUNCTION@" ]]; then
    @FUNCTION@ "$@"
else
    compdef @FUNCTION@ @NAME@
fi
"""

FISH = """\
# fish completion for @NAME@: @NAME@ completion fish > ~/.config/fish/completions/@NAME@.fish
function @FUNCTION@_names
    set -l words (commandline -opc)
    set -l config
    set -l i 2
    while test $i -lt (count $words)
        if contains -- $words[$i] @VALUED@
            set -a config $words[$i] $words[(math $i + 1)]
        end
        set i (math $i + 1)
    end
    @NAME@ $config _complete $argv 2>/dev/null
end
complete -c @NAME@ -f
complete -c @NAME@ -n __fish_use_subcommand -a '@COMMANDS@'
complete -c @NAME@ -n '__fish_seen_subcommand_from call' -a '(@FUNCTION@_names tools)'
complete -c @NAME@ -n '__fish_seen_subcommand_from @SERVER_COMMANDS@' -a '(@FUNCTION@_names servers)'
complete -c @NAME@ -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c @NAME@ -l server -r -a '(@FUNCTION@_names servers)'
complete -c @NAME@ -l sign-in -r -a 'browser auto'
"""

TEMPLATES = {"bash": BASH, "zsh": ZSH, "fish": FISH}
