"""The site's generators (site/sitegen/): mechanism discovery and glossary links.

The build itself is run by CI (mkdocs build --strict); these pin the rules it depends on,
on small trees of their own.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
import textwrap

import pytest
from cases import ROOT
from limits import scaled

sys.path.insert(0, str(ROOT / "site"))
from sitegen import glossary  # noqa: E402  (site/ is not a package)
from sitegen.code import Mechanisms  # noqa: E402


def _tree(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_mechanisms_follow_the_code_wherever_it_moved(tmp_path):
    repo = _tree(tmp_path, {
        "harness/expiry.py": '"""Expiry (s25). Introduced by s25. Not handled here: x."""\n',
        "harness/hub.py": '''\
            """The hub. Introduced by the hub spine."""
            # lesson: s28
            LIMITS = {}


            class Hub:
                # why it exists
                # lesson: s26, s29
                @staticmethod
                def promote():
                    pass
            ''',
    })
    found = Mechanisms.find(repo)
    assert found.problems == []
    assert found.modules == {"s25": ["harness/expiry.py"]}
    assert found.symbols == {"s28": [("harness/hub.py", "LIMITS")], "s26": [("harness/hub.py", "Hub.promote")],
                             "s29": [("harness/hub.py", "Hub.promote")]}


def test_a_marker_on_no_definition_is_a_problem(tmp_path):
    repo = _tree(tmp_path, {"harness/hub.py": '''\
        def f():
            # lesson: s28
            return 1
        # lesson: sx
        X = 1
        '''})
    problems = Mechanisms.find(repo).problems
    assert problems == ["harness/hub.py:4: '# lesson: sx': 'sx' is not a lesson name (sNN)",
                        "harness/hub.py:2: '# lesson: s28' is not right above a definition (module or class level) of this file"], problems


def test_glossary_links_the_first_use_in_prose_only(tmp_path):
    page = _tree(tmp_path, {"glossary.md": "### pool {#pool}\n<!-- matches: tool pool, pool -->\n\nThe tools.\n"}) / "glossary.md"
    text = "# The pool\n\n`pool` in code, then the tool pool here, and the pool again.\n\n```text\npool: +x\n```\n"
    linked = glossary.link(text, "../glossary.md", glossary.terms(page))
    assert linked == ("# The pool\n\n`pool` in code, then the [tool pool](../glossary.md#pool) here, and the pool again.\n\n"
                      "```text\npool: +x\n```\n"), linked


def test_the_own_setup_page_lists_the_commands_the_readme_lists():
    """The site's "Use it on your own setup" repeats the README's command table; the two must not drift apart."""
    def table(text: str) -> list[str]:
        lines = text.splitlines()
        start = lines.index("| command | what it does | example |")
        return [line for line in itertools.takewhile(lambda line: line.startswith("|"), lines[start:])]

    readme = (ROOT / "README.md").read_text()
    page = (ROOT / "site" / "docs" / "appendix" / "own-setup.md").read_text()
    assert table(page) == table(readme)


def test_a_term_the_page_links_already_is_not_linked_again(tmp_path):
    """A lesson README links its terms itself (site/readme_blocks.py); the page must not link a second use."""
    page = _tree(tmp_path, {"glossary.md": "### pool {#pool}\n<!-- matches: pool -->\n\nThe tools.\n"}) / "glossary.md"
    text = "The [pool](../glossary.md#pool) is rebuilt, and the pool again.\n"
    assert glossary.link(text, "../glossary.md", glossary.terms(page)) == text


@pytest.mark.slow  # starts chromium
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium (apt-get install -y chromium)")
def test_the_browser_check_fails_a_page_that_breaks_a_word_or_scrolls_sideways():
    """site/browser_check.py --self-check: its layout probe on a page made to fail, at 390 px."""
    done = subprocess.run([sys.executable, "site/browser_check.py", "--self-check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=scaled(60))
    assert done.returncode == 0, f"expected the broken word and the sideways scroll reported, found:\n{done.stdout}{done.stderr}"
    assert 'breaks a word across lines: "ask the mode- | l, then needs-"' in done.stdout, done.stdout
