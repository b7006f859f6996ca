"""Each exercise's solution, folded under the exercise it answers.

A lesson README's ``## Exercises`` section is a numbered list. After item N the page gets
a folded "Hint" (the solution's ``HINT``, as ``runner.py sNN/N --hint`` prints it) and a
folded "Solution" block built from ``exercises/sNN/N_slug/`` (see exercises/runner.py):
the answer in words, the change as a diff against the files as they are now, the files
the solution brings (a scenario), its code, and the check the test suite runs. Nothing
in the solution is run or imported: ``runner.Solution.read`` parses it.

A solution whose edits no longer apply to the current files is shown with a warning
instead of a diff (tests/test_exercises.py fails on it too). An exercise without a
solution gets a line saying so.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sitegen.render import details, fence, indent
from sitegen.words import PAGE

NEXT_HEADING = re.compile(r"^## ", re.MULTILINE)
ITEM = re.compile(r"^(\d+)\. ", re.MULTILINE)
OUTDENTED = re.compile(r"\n\n(?=\S)")  # a blank line, then a line at the margin
LANGS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".py": "python", ".md": "markdown"}


def _runner(repo: Path):
    folder = str(repo / "exercises")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import runner  # exercises/runner.py

    return runner


def solution_block(solution, repo: Path, title: str = "Solution") -> str:
    runner = _runner(repo)
    rel = solution.folder.relative_to(repo).as_posix()
    parts = [solution.doc.strip()] if solution.doc.strip() else []
    try:
        for path, diff in solution.diffs():
            parts.append(f"The change to `{path}`:\n\n" + fence(diff, "diff"))
    except runner.EditError as exc:
        parts.append(f'!!! warning "This solution no longer applies"\n\n    {exc}. `tests/test_exercises.py` fails on it too.')
    for path in solution.files:
        parts.append(f"`{rel}/{path.name}`:\n\n" + fence(path.read_text(encoding="utf-8"), LANGS.get(path.suffix, "text")))
    if "solve" in solution.sources:
        parts.append("The solution's code (`solve`):\n\n" + fence(solution.sources["solve"], "python"))
    if solution.run:
        argv = " ".join(a.replace("{here}", rel) for a in solution.run)
        parts.append(f"Run it (after making the change): `python lessons/{solution.lesson}/code.py {argv}`")
    parts.append(f"How `tests/test_exercises.py` checks it (`python exercises/runner.py {solution.lesson}` runs it too):\n\n"
                 + fence(solution.sources["check"], "python"))
    return details("success", title, "\n\n".join(parts))


def with_solutions(readme: str, lesson: str, repo: Path, lang: str = "en", heading_text: str = "Exercises") -> str:
    """``readme`` with each exercise followed by its folded solution.

    A translated README names its section in its language (``heading_text``), and its hints
    come from ``hints.{lang}.yaml`` where they are translated (the solution stays English: it is code)."""
    words = PAGE[lang]
    heading = re.compile(rf"^## {re.escape(heading_text)}[^\n]*\n", re.M).search(readme)
    if not heading:
        return readme
    start = heading.end()
    after = NEXT_HEADING.search(readme, start)
    end = after.start() if after else len(readme)
    section = readme[start:end]
    solved = {s.number: s for s in _runner(repo).solutions(lesson)}
    items = list(ITEM.finditer(section))
    if not items:
        return readme
    out = [section[:items[0].start()]]
    for i, item in enumerate(items):
        stop = items[i + 1].start() if i + 1 < len(items) else len(section)
        # The item ends where the list does: a paragraph back at the margin after a blank line
        # ("More to try: ...") is not part of the last exercise.
        after = OUTDENTED.search(section, item.end(), stop)
        end_of_item = after.start() + 1 if after else stop
        body = section[item.start():end_of_item].rstrip("\n")
        number = int(item.group(1))
        if number in solved:
            block = solution_block(solved[number], repo, words["solution"])
            hint = _runner(repo).translated_hint(solved[number], lang) or solved[number].hint
            if hint:  # the hint first, folded on its own: where to look, before the answer
                block = details("tip", words["hint"], hint) + "\n\n" + block
        else:
            block = f"*No solution for this exercise in `exercises/{lesson}/` yet.*"
        out.append(body + "\n\n" + indent(block) + "\n\n" + section[end_of_item:stop].lstrip("\n"))
    return readme[:start] + "".join(out) + readme[end:]
