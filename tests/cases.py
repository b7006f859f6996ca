"""The registry of snapshot cases: every lesson run the suite pins, and what it pins.

A case is one command line of one lesson. Its snapshots live in
``tests/snapshots/<lesson>/<case>.<kind>``; ``kinds`` says which files it owns. A file in
``tests/snapshots`` that no case owns is an orphan and fails the suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
NAME = re.compile(r"^[a-z0-9_]+$")


@dataclass(frozen=True)
class Case:
    lesson: str
    name: str = "default"
    argv: tuple[str, ...] = ()
    exit_code: int = 0
    kinds: tuple[str, ...] = ("transcript",)  # "transcript": stdout; "frames": --frames FILE (s23 on)

    @property
    def id(self) -> str:
        return f"{self.lesson}-{self.name}"

    def files(self) -> list[Path]:
        return [SNAPSHOTS / self.lesson / f"{self.name}.{kind}" for kind in self.kinds]


CASES = [
    Case("s19"),
    Case("s20"),
    Case("s21"),
    Case("s22"),
    Case("s22", "cached", ("--cached",), exit_code=1),
    Case("s23", kinds=("transcript", "frames")),
    Case("s23", "exit_at_start", ("--fault", "deploy:--exit-at-start=4", "--scenario", str(ROOT / "lessons/s23/faults.yaml")), kinds=("transcript", "frames")),
    Case("s24", kinds=("transcript", "frames")),
    Case("s25", kinds=("transcript", "frames")),
    Case("s26", kinds=("transcript", "frames")),
    Case("s27", kinds=("transcript", "frames")),
    Case("s28"),
    Case("s29"),
    Case("s30", kinds=("transcript", "frames")),
    Case("s31"),
    Case("s32"),
    Case("s33"),
    Case("s34", kinds=("transcript", "frames")),
    Case("s35", kinds=("transcript", "frames")),
    *(Case("s36", kinds=("transcript", "frames")), Case("s36", "off", ("--tool-search", "off", "--scenario", str(ROOT / "lessons/s36/off.yaml")))),
    Case("s37", kinds=("transcript", "frames")),
    *(Case("s38", kinds=("transcript", "frames")),
      Case("s38", "cancel", ("--scenario", str(ROOT / "lessons/s38/cancel.yaml"), "--ctrl-c-on", "get_version"), exit_code=130)),
    Case("s39", kinds=("transcript", "frames")),
]

# Snapshots pinned by a test of its own, outside the lesson cases (same naming rules).
APP_SNAPSHOTS = [
    SNAPSHOTS / "cli" / "chat_stack.transcript",  # tests/test_app_stack.py: the user CLI's chat on the whole stack
]

LESSONS = sorted(p.name for p in (ROOT / "lessons").iterdir() if (p / "code.py").is_file())
