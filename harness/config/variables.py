"""Variables in a server entry: ``${VAR}``, ``${VAR:-default}``, Cline's ``${env:VAR}``, VS Code's ``${input:ID}`` (s27).

The config keeps them as written, in command, args, env, url and headers, and ``expand``
resolves them each time the server is started, so a respawn sees the environment of
then. A variable that is missing, with no default, fails that server alone, naming the
variable. ``${input:ID}`` takes the value VS Code's ``inputs`` gave when the file was read
(``ServerConfig.inputs``, issue 21); a password input's value is a secret, shown as
``${input:ID}``.

Introduced by s27. Not handled here: nested variables, ``$VAR`` without braces, command
substitution; where an entry comes from (``harness.config.formats``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace

from harness.errors import ConfigError
from harness.redact import SECRET_NAME
from harness.spec import ServerSpec

VARIABLE = re.compile(r"\$\{(?:env:)?\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::-([^}]*))?\}")
INPUT = re.compile(r"\$\{input:([^}\s]+)\}")


def expand(spec: ServerSpec, environ: Mapping[str, str] = os.environ, inputs: Mapping[str, tuple[str, bool]] | None = None) -> ServerSpec:
    """``spec`` with every ``${VAR}`` resolved now, or a ``ConfigError`` naming what is missing.

    The result carries the values that are secrets (``secrets``): every variable expanded
    into a header, those whose name says so (``harness.redact.SECRET_NAME``) anywhere
    else, and every env or header value whose own name says so, variable or not; for a
    spec that inherits the whole environment (``inherit_env``), every variable of this
    process's environment whose name says so, since the server gets them all. Messages show it with those left as written (``shown``: ``--token ${API_TOKEN}``).
    """
    missing: list[str] = []
    unanswered: list[str] = []  # VS Code inputs with no value
    secrets: dict[str, str] = {}

    def one(text: str | None, always_secret: bool = False, keep_secrets: bool = False) -> str | None:
        if text is None:
            return None

        def given(match: re.Match[str]) -> str:
            known = (inputs or {}).get(match.group(1))
            if known is None:
                unanswered.append(match.group(1))
                return match.group(0)
            if known[1] and known[0]:
                if keep_secrets:
                    return match.group(0)
                secrets.setdefault(known[0], f"input:{match.group(1)}")
            return known[0]

        text = INPUT.sub(given, text)

        def value(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in environ:
                if environ[name] and (always_secret or SECRET_NAME.search(name)):
                    if keep_secrets:
                        return match.group(0)
                    secrets.setdefault(environ[name], name)
                return environ[name]
            if default is not None:
                return default
            missing.append(name)
            return match.group(0)

        return VARIABLE.sub(value, text)

    expanded = replace(spec, command=one(spec.command), args=tuple(one(a) or "" for a in spec.args),
                       env={k: one(v) or "" for k, v in spec.env.items()}, url=one(spec.url),
                       headers={k: one(v, always_secret=True) or "" for k, v in spec.headers.items()})
    # A value written as it is, not through a variable, under a name that says it is secret
    # ("GITHUB_TOKEN": "ghp_...", as many Claude Desktop files hold, or an Authorization
    # header) is a secret all the same: a server that echoes its environment must not print it.
    inherited = os.environ.items() if spec.inherit_env else ()  # what a Claude Code server gets besides its env
    for written, value in (*expanded.env.items(), *expanded.headers.items(), *inherited):
        if len(value) >= 8 and not value.isdigit() and SECRET_NAME.search(written):  # not "true" or a timeout under AUTH_...
            secrets.setdefault(value, written)
    if unanswered:
        ids = ", ".join(sorted(set(unanswered)))
        raise ConfigError(f"server '{spec.name}': no value for input {ids} (give --input ID=VALUE, or run on a terminal to be asked)")
    if missing:
        names = ", ".join(sorted(set(missing)))
        raise ConfigError(f"server '{spec.name}': missing environment variables: {names} (set them, or write ${{NAME:-default}})")
    if not secrets:
        return expanded
    shown = replace(expanded, command=one(spec.command, keep_secrets=True), args=tuple(one(a, keep_secrets=True) or "" for a in spec.args),
                    url=one(spec.url, keep_secrets=True)).where()
    return replace(expanded, shown=shown, secrets=tuple(sorted(secrets.items())))
