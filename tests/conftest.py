"""Shared helpers: run a lesson in process, exactly as ``python lessons/sNN/code.py`` would."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def load_lesson(lesson: str):
    path = ROOT / "lessons" / lesson / "code.py"
    spec = importlib.util.spec_from_file_location(f"lesson_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_lesson(lesson: str, *argv: str) -> tuple[int, str]:
    """The lesson's exit code and transcript, with placeholders for ports and paths (as pinned)."""
    out = io.StringIO()
    code = load_lesson(lesson).main([*argv, "--deterministic"], out)
    return code, out.getvalue()


@pytest.fixture
def lesson_runner():
    return run_lesson
