"""Asking the user: every question the harness puts to a person goes through one ``Ask``.

A question goes to one of four, chosen once per run:

    a script     the scenario's ``answers`` (a lesson, a scripted chat, the CLI's ``--answer``),
                 handed out in order: words and forms for the user's questions, samples apart
    yes          ``--yes``: every permission question answered yes (scripted use); a server's
                 question gets no answer from it
    a terminal   a real question on stdin (only when stdin is one), read without blocking the loop
    nobody       no script, no terminal: ``None``, and each caller's safe default (no, decline)

s31's permission questions (``harness.permissions``) and s33's forms, pages and consents
(``harness.elicit``) both ask through it, so one list of answers serves both in the order
they are asked, and ``who`` says in the transcript who answered. A question asked for a subagent
(s38) begins with its label (``harness.transcript.labelled``), as its transcript lines do.

Introduced by s31. Not handled here: what a reply means (each caller reads its own).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from harness import echo, nesting
from harness.jsonvalue import JSON
from harness.signals import ask_line
from harness.transcript import label

Answer = JSON  # a scenario's or a user's answer: a word, a form ({"form": {...}}), a sample ({"sample": "text"})


class Script:
    """The scenario's ``answers``, handed out in order: user answers (words or forms) and model samples apart."""

    def __init__(self, answers: Iterable[Answer]) -> None:
        self._items = list(answers)

    def next_answer(self) -> Answer:
        """The next word or form (not a sample); None when none is left."""
        return self._take(lambda a: not (isinstance(a, dict) and "sample" in a))

    def next_sample(self) -> str | None:
        found = self._take(lambda a: isinstance(a, dict) and "sample" in a)
        return str(found["sample"]) if found is not None else None

    def only_samples_left(self) -> bool:
        """Samples are left and no word: a sample given alone (``--answer '{"sample": ...}'``) is its own consent."""
        return bool(self._items) and all(isinstance(a, dict) and "sample" in a for a in self._items)

    def _take(self, wanted: Callable[[Answer], bool]) -> Answer:
        for i, item in enumerate(self._items):
            if wanted(item):
                return self._items.pop(i)
        return None


class Ask:
    """Where this run's questions go (see the module docstring); ``who`` names it for the transcript."""

    def __init__(self, script: Script | None = None, *, ask_in: TextIO | None = None, ask_out: TextIO | None = None,
                 yes: bool = False) -> None:
        self.script, self.yes = script, yes
        self._in, self._out = ask_in, ask_out or sys.stderr
        self.who = "--yes" if yes else "scripted" if script is not None else "user" if ask_in is not None else "nobody to ask"

    @classmethod
    def terminal_or_nobody(cls, script: Script | None = None, yes: bool = False) -> Ask:
        """The script if there is one, else the terminal when stdin is one, else nobody."""
        return cls(script, ask_in=sys.stdin if script is None and sys.stdin.isatty() else None, yes=yes)

    @property
    def at_terminal(self) -> bool:
        """A person answers, on the terminal (not a script, not ``--yes``, not nobody)."""
        return self.script is None and self._in is not None and not self.yes

    async def line(self, prompt: str) -> str | None:
        """One line typed at the terminal, stripped; None at the end of input (or with nobody there)."""
        if self._in is None:
            return None
        from harness.signals import ask_line  # the signal trap's reader: only when a person is asked

        typed = await ask_line(self._in, self._out, echo.terminal(label() + prompt))
        return typed.strip() if typed else None

    def tell(self, text: str) -> None:
        """A line for the person asked (a declined form's reason), where the questions go."""
        self._out.write(echo.terminal(text) + "\n")
        self._out.flush()

    async def question(self, prompt: str) -> Answer:
        """The reply: a word, ``{"form": {...}}`` (JSON typed or scripted), or None (nobody, or the script ran out)."""
        if self.script is not None:
            return self.script.next_answer()
        if self._in is None:
            return None

        # A question may quote a server (its form's message, a tool's name): escaped, as every line to the terminal is.
        line = (await ask_line(self._in, self._out, echo.terminal(label() + prompt))).strip()
        if line.startswith("{"):
            try:
                typed = nesting.loads(line)
            except ValueError:  # not JSON, or nested past the limit: the words as they are
                return line
            return as_form(typed) if isinstance(typed, dict) else line
        return line


def as_form(given: Answer) -> Answer:
    """``{"form": {...}}`` for a form given either way: wrapped so, or a bare object that is not a sample."""
    if isinstance(given, dict) and not (set(given) == {"form"} and isinstance(given["form"], dict)) and set(given) != {"sample"}:
        return {"form": given}
    return given
