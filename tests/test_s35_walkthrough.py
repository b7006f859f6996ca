"""s35's README walks through the pinned run in a table: transcript line | lesson | module.

Every row must hold: a line of the pinned transcript (the quote check reads spans too, but
a table row is the claim here, so it is checked on its own), a lesson that exists, linked
the way the site turns into a link to that lesson's page, and a module file that exists.
"""

from __future__ import annotations

import re
import sys

from cases import ROOT, SNAPSHOTS

sys.path.insert(0, str(ROOT / "site"))
import lesson_pages  # noqa: E402  (site/ is not a package; importing it builds nothing)

README = ROOT / "lessons" / "s35" / "README.md"
ROW = re.compile(r"^\| `(?P<line>[^`]+)` \| \[(?P<lesson>s\d\d)\]\((?P<link>[^)]+)\) \| `(?P<module>[^`]+)` \|$")


def _rows() -> list[re.Match]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| transcript line | lesson | module |"):].split("\n\n", 1)[0].splitlines()[2:]
    rows = [ROW.match(line) for line in table]
    assert all(rows), f"rows not of the form | `line` | [sNN](../sNN/README.md) | `module` |: {[t for t, r in zip(table, rows) if not r]}"
    return rows


def test_the_table_has_a_row_per_mechanism():
    lessons = {row["lesson"] for row in _rows()}
    taught = {f"s{n}" for n in range(20, 34)}  # every lesson from the hub (s20) to elicitation (s33)
    assert taught <= lessons, f"lessons the run uses that no row names: {sorted(taught - lessons)}"


def test_every_row_names_a_lesson_and_a_module_that_exist():
    for row in _rows():
        assert (ROOT / "lessons" / row["lesson"] / "README.md").is_file(), f"{row['lesson']}: no such lesson"
        assert row["link"] == f"../{row['lesson']}/README.md", f"{row['line']}: link {row['link']!r}, expected ../{row['lesson']}/README.md"
        assert (ROOT / row["module"]).is_file(), f"{row['line']}: no module {row['module']}"


def test_every_row_is_a_line_of_the_pinned_run():
    pinned = (SNAPSHOTS / "s35" / "default.transcript").read_text(encoding="utf-8").splitlines()
    for row in _rows():
        assert any(row["line"] in line for line in pinned), f"not in tests/snapshots/s35/default.transcript: {row['line']!r}"


def test_the_site_links_each_row_to_its_lesson():
    existing = set(lesson_pages.lessons())
    page = lesson_pages.rewrite_links(README.read_text(encoding="utf-8"), "s35", existing, set())
    for row in _rows():
        expected = f"[{row['lesson']}]({row['lesson']}.md)"
        assert any(expected in line and f"`{row['line']}`" in line for line in page.splitlines()), f"the s35 page: no {expected} on the row of {row['line']!r}"
