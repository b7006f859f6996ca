"""envFile lines by python-dotenv's rules (harness.config.dotenv), alone and as a VS Code or Cursor config reads them.

The expected values are what python-dotenv's parser gives (``dotenv_values(stream,
interpolate=False)``, read from its source and checked with 1.2.2 beside it, where its
later fixes differ: a bare ``A=  # note`` is empty, a byte order mark is dropped). One
deliberate difference: a line python-dotenv skips with a warning is an error here,
naming the file and the line.
"""

from __future__ import annotations

import json

import pytest

from harness import config
from harness.config import dotenv

CASES = {
    "A=abc # note": {"A": "abc"},
    "A=abc#x": {"A": "abc#x"},
    "A=  # only a note": {"A": ""},
    "A=#not a note": {"A": "#not a note"},
    " A = spaced   ": {"A": "spaced"},
    "export A=1": {"A": "1"},
    'A="line1\\nline2"': {"A": "line1\nline2"},
    'A="tab\\there \\"q\\" back\\\\slash"': {"A": 'tab\there "q" back\\slash'},
    "A='a\\nb'": {"A": "a\\nb"},
    "A='it\\'s'": {"A": "it's"},
    'A="two\nlines" # note': {"A": "two\nlines"},
    "A='two\nlines'": {"A": "two\nlines"},
    "'A'=1": {"A": "1"},
    "A": {},
    "A=": {"A": ""},
    "A=1\nA=2": {"A": "2"},
    "# a comment\n\n  # another\nA=1 # c\r\nB=2\rC=3": {"A": "1", "B": "2", "C": "3"},
    "\ufeffA=1": {"A": "1"},
    'A="x"#c': {"A": "x"},
    'A= "x" ': {"A": "x"},
    "A=a b   c": {"A": "a b   c"},
}


@pytest.mark.parametrize("text", list(CASES), ids=range(len(CASES)))
def test_each_line_reads_as_python_dotenv_reads_it(text):
    assert dotenv.values(text) == CASES[text], f"expected {CASES[text]} for {text!r}"


@pytest.mark.parametrize(("text", "line"), [('A=1\nB="x" junk', 2), ('A=1\n\nB="never closed', 3), ("A B", 1), ("=1", 1),
                                            ("A='one\ntwo'\nB C", 3)])
def test_a_line_dotenv_cannot_read_is_named(text, line):
    with pytest.raises(dotenv.DotenvError, match=f"^line {line}: not a KEY=VALUE line dotenv can read$"):
        dotenv.values(text)


def vscode(tmp_path, env_text: str) -> config.ServerConfig:
    (tmp_path / ".vscode").mkdir(exist_ok=True)
    (tmp_path / ".env").write_text(env_text, encoding="utf-8")
    path = tmp_path / ".vscode" / "mcp.json"
    path.write_text(json.dumps({"servers": {"docs": {"type": "stdio", "command": "python", "envFile": "${workspaceFolder}/.env",
                                                     "env": {"FROM_CONFIG": "1"}}}}))
    [server] = config.load(config.Paths(), [path])
    return server


def test_a_vscode_env_file_gives_the_server_dotenv_s_values(tmp_path):
    env = dict(vscode(tmp_path, 'TOKEN=abc # the docs token\nexport PEM="-----BEGIN-----\\nbody\\n-----END-----"\nRAW=\'$HOME\\n\'\n').spec.env)
    assert env == {"TOKEN": "abc", "PEM": "-----BEGIN-----\nbody\n-----END-----", "RAW": "$HOME\\n", "FROM_CONFIG": "1"}, env


def test_a_bad_env_file_line_names_the_server_the_file_and_the_line(tmp_path):
    server = vscode(tmp_path, 'A=1\nB="never closed\n')
    message = server.reason  # a broken entry fails that server alone, with the reason
    assert "'docs'" in message and "envFile" in message and ".env line 2: not a KEY=VALUE line dotenv can read" in message, message
