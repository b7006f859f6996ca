"""The zh and ja translations against the English pages (site/sitegen/i18n.py; site/translations.py --check).

Every lesson and site page exists in both languages, with its quiz and its exercise hints;
each translation has the English headings (levels, order, ``{#id}``), its fenced blocks and
generated blocks byte for byte, links that resolve in its own language, and a stamp that
matches the English prose. The tests below the real pages make a small repository in a
temporary folder and break it on purpose, so each check is seen to fail.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from cases import ROOT

sys.path[:0] = [str(ROOT / "site"), str(ROOT / "exercises")]
from sitegen import blocks, i18n  # noqa: E402  (site/ is not a package)
from sitegen import code as codeview  # noqa: E402

PRESENT = [pair for pair in i18n.pairs(ROOT) if pair.path.is_file()]


def _report(problems: list[str]) -> str:
    return f"{len(problems)} problems (python site/translations.py --check lists them all):\n" + "\n".join(problems[:40])


def test_every_page_exists_in_every_language():
    """Strict: every lesson folder that exists, every site page, the top-level README; each quiz and each hints file."""
    problems = [p for pair in i18n.pairs(ROOT) for p in i18n.missing(ROOT, pair)]
    for lesson in i18n.lessons(ROOT):
        for lang in i18n.LANGS:
            problems += [p for p in i18n.quiz_problems(ROOT, lesson, lang) + i18n.hint_problems(ROOT, lesson, lang)
                         if p.endswith(")") and ": missing (" in p]
    assert not problems, "expected a zh and a ja translation of every page: " + _report(problems)


def test_stamps_match_the_english_prose():
    problems = [p for pair in PRESENT for p in i18n.stamp_problems(ROOT, pair)]
    assert not problems, "expected every translation stamped with its English page's hash: " + _report(problems)


def test_same_headings_fences_and_generated_blocks_as_english():
    problems = [p for pair in PRESENT for p in i18n.structure_problems(ROOT, pair)]
    assert not problems, "expected the English structure, code and generated blocks in every translation: " + _report(problems)


def test_links_resolve_in_their_own_language():
    problems = [p for pair in PRESENT for p in i18n.link_problems(ROOT, pair)]
    assert not problems, "expected every link of a translation to resolve, in its language: " + _report(problems)


def test_quizzes_and_hints_follow_the_english():
    problems = [p for lesson in i18n.lessons(ROOT) for lang in i18n.LANGS
                for p in i18n.quiz_problems(ROOT, lesson, lang) + i18n.hint_problems(ROOT, lesson, lang)
                if ": missing (" not in p]
    assert not problems, "expected each quiz and hints translation to match the English one: " + _report(problems)


# --- the checks, each made to fail ------------------------------------------------------

ENGLISH = f"""{i18n.LANGUAGE_LINE}

# s19: A mock MCP client

The agent could only use its own tools. MCP removes that limit.

## How it works

See [the next lesson](../s20/README.md) and the [tool](../../site/docs/glossary.md#tool).

```text
note: connected 'docs': search, get_version
```

<!-- generated: check (from exercises/; to change it, change that and run python site/readme_blocks.py) -->
Run `python exercises/runner.py s19`.
<!-- end of generated: check -->

## What's next
"""

ZH = f"""{i18n.LANGUAGE_LINE}

<!-- translation of README.md, sha256:0 -->

# s19: 模拟 MCP 客户端

智能体只能使用自己的工具。MCP 去掉了这个限制。

## 工作原理

见[下一课](../s20/README.zh.md)和[工具](../../site/docs/glossary.zh.md#tool)。

```text
note: connected 'docs': search, get_version
```

<!-- generated: check (from exercises/; to change it, change that and run python site/readme_blocks.py) -->
Run `python exercises/runner.py s19`.
<!-- end of generated: check -->

## 下一步
"""


def _repo(tmp_path: Path) -> Path:
    """A repository of two lessons and a glossary, s19 translated into zh and ja (ja as zh: the checks read structure)."""
    for lesson in ("s19", "s20"):
        (tmp_path / "lessons" / lesson).mkdir(parents=True)
        (tmp_path / "lessons" / lesson / "README.md").write_text(ENGLISH.replace("s19", lesson), encoding="utf-8")
    docs = tmp_path / "site" / "docs"
    docs.mkdir(parents=True)
    (docs / "glossary.md").write_text("# Glossary\n\n### tool {#tool}\n\nA function.\n", encoding="utf-8")
    for lang in i18n.LANGS:
        (docs / f"glossary.{lang}.md").write_text(f"<!-- translation of glossary.md, sha256:0 -->\n# 术语\n\n### 工具 {{#tool}}\n\n函数。\n",
                                                 encoding="utf-8")
        for lesson in ("s19", "s20"):
            (tmp_path / "lessons" / lesson / f"README.{lang}.md").write_text(ZH.replace("s19", lesson), encoding="utf-8")
    (tmp_path / "README.md").write_text(f"{i18n.LANGUAGE_LINE}\n\n# The course\n\n## Quickstart\n\nRun it.\n\n## More\n\nNot translated.\n",
                                        encoding="utf-8")
    for lang in i18n.LANGS:
        (tmp_path / f"README.{lang}.md").write_text(f"{i18n.LANGUAGE_LINE}\n\n<!-- translation of README.md, sha256:0 -->\n\n"
                                                    "# 课程\n\n## 快速开始\n\n运行它。\n", encoding="utf-8")
    for pair in i18n.pairs(tmp_path):
        pair.path.write_text(i18n.stamped(tmp_path, pair), encoding="utf-8")
    return tmp_path


def _page_problems(repo: Path) -> list[str]:
    return [p for pair in i18n.pairs(repo) for p in i18n.check(repo, pair)]


def test_a_stamped_faithful_translation_passes(tmp_path):
    repo = _repo(tmp_path)
    assert _page_problems(repo) == [], "expected no problem in the made repository"


def test_one_english_sentence_edited_fails_both_languages_naming_the_page(tmp_path):
    repo = _repo(tmp_path)
    readme = repo / "lessons" / "s19" / "README.md"
    readme.write_text(readme.read_text().replace("MCP removes that limit.", "MCP lifts that limit."), encoding="utf-8")
    stale = [p for p in _page_problems(repo) if ": stale: " in p]
    assert [p.split(":")[0] for p in stale] == ["lessons/s19/README.zh.md", "lessons/s19/README.ja.md"], stale
    assert all("lessons/s19/README.md changed" in p for p in stale), stale


def test_a_regenerated_block_or_a_changed_code_line_leaves_the_stamp_alone(tmp_path):
    """Excerpts and line numbers move with the code: not a reason to retranslate (the fence check still sees code)."""
    repo = _repo(tmp_path)
    readme = repo / "lessons" / "s19" / "README.md"
    text = readme.read_text()
    readme.write_text(text.replace("Run `python exercises/runner.py s19`.", "Run `python exercises/runner.py s19/1`.")
                      .replace("search, get_version", "search"), encoding="utf-8")
    problems = _page_problems(repo)
    assert not [p for p in problems if ": stale: " in p], problems
    assert any("fenced block 1 differs from English" in p for p in problems), problems
    assert any("generated block 'check' differs from English" in p for p in problems), problems


def test_an_excerpt_line_changed_in_a_site_page_is_named(tmp_path):
    repo = _repo(tmp_path)
    glossary = repo / "site" / "docs" / "glossary.md"
    glossary.write_text(glossary.read_text() + "\n<!-- excerpt: s19/default.transcript /^user>/ -->\n", encoding="utf-8")
    page = repo / "site" / "docs" / "glossary.zh.md"
    page.write_text(page.read_text() + "\n<!-- excerpt: s19/default.transcript /^tools/ -->\n", encoding="utf-8")
    problems = [p for p in _page_problems(repo) if "excerpts" in p]
    assert [p.split(":")[0] for p in problems] == ["site/docs/glossary.zh.md", "site/docs/glossary.ja.md"], problems


def test_structure_and_link_problems_are_named(tmp_path):
    repo = _repo(tmp_path)
    page = repo / "lessons" / "s20" / "README.ja.md"
    page.write_text(page.read_text().replace("## 下一步", "### 下一步").replace("../s20/README.zh.md", "../s20/README.md")
                    .replace("glossary.zh.md#tool", "glossary.zh.md#tools"), encoding="utf-8")
    problems = [p for p in _page_problems(repo) if p.startswith("lessons/s20/README.ja.md")]
    assert any("headings: levels 123, expected 122" in p for p in problems), problems
    assert any("link '../s20/README.md': the English page; expected ../s20/README.ja.md" in p for p in problems), problems
    assert any("no heading with id 'tools' in site/docs/glossary.zh.md" in p for p in problems), problems


def test_a_missing_translation_and_a_lost_glossary_id_are_named(tmp_path):
    repo = _repo(tmp_path)
    (repo / "lessons" / "s20" / "README.zh.md").unlink()
    glossary = repo / "site" / "docs" / "glossary.ja.md"
    glossary.write_text(glossary.read_text().replace(" {#tool}", ""), encoding="utf-8")
    problems = _page_problems(repo)
    assert "lessons/s20/README.zh.md: missing (the 中文 translation of lessons/s20/README.md)" in problems, problems
    assert any(p.startswith("site/docs/glossary.ja.md: heading '工具': expected the English id {#tool}") for p in problems), problems


def test_a_translation_that_is_not_utf8_is_named_not_a_crash(tmp_path):
    repo = _repo(tmp_path)
    page = repo / "lessons" / "s19" / "README.ja.md"
    page.write_bytes(page.read_bytes().replace("工作原理".encode(), "工作原理".encode("gb18030")))
    problems = [p for p in _page_problems(repo) if p.startswith("lessons/s19/README.ja.md")]
    assert len(problems) == 1 and problems[0].startswith("lessons/s19/README.ja.md: not UTF-8 text ("), problems
    assert i18n.stamped(repo, i18n.Pair(repo / "lessons" / "s19" / "README.md", "ja")) is None


def test_the_top_level_readme_is_compared_up_to_its_second_section(tmp_path):
    repo = _repo(tmp_path)
    readme = repo / "README.md"
    readme.write_text(readme.read_text().replace("Not translated.", "Still not translated."), encoding="utf-8")
    assert _page_problems(repo) == [], "expected an edit past the Quickstart to leave README.zh.md current"
    readme.write_text(readme.read_text().replace("Run it.", "Run it now."), encoding="utf-8")
    assert [p.split(":")[0] for p in _page_problems(repo)] == ["README.zh.md", "README.ja.md"]


def test_the_command_stamps_then_checks(tmp_path, monkeypatch, capsys):
    import translations  # site/translations.py

    repo = _repo(tmp_path)
    monkeypatch.setattr(translations, "REPO", repo)
    page = repo / "lessons" / "s19" / "README.zh.md"
    page.write_text(page.read_text().replace(page.read_text().split("\n")[2], "<!-- translation of README.md, sha256:0 -->"),
                    encoding="utf-8")
    other = repo / "lessons" / "s20" / "README.ja.md"
    other.write_text(other.read_text().replace(other.read_text().split("\n")[2], "<!-- translation of README.md, sha256:0 -->"),
                     encoding="utf-8")
    assert translations.main(["--check"]) == 1
    assert "lessons/s19/README.zh.md: stale" in capsys.readouterr().out
    assert translations.main(["--stamp", str(other)]) == 0, "expected only the page named to be stamped"
    assert capsys.readouterr().out == "stamped: lessons/s20/README.ja.md\n"
    assert translations.main(["--stamp", str(repo / "nope.md")]) == 2
    capsys.readouterr()
    assert translations.main(["--stamp"]) == 0
    assert capsys.readouterr().out == "stamped: lessons/s19/README.zh.md\n"
    assert translations.main(["--check"]) == 0
    assert translations.main(["--bogus"]) == 2


def test_readme_blocks_refreshes_a_translation_with_its_own_quiz(tmp_path):
    """The quiz block of README.zh.md comes from quiz.zh.yaml; the other blocks are the English page's."""
    repo = tmp_path
    for part in ("lessons/s19", "tests/snapshots/s19"):
        shutil.copytree(ROOT / part, repo / part)
    english = (repo / "lessons" / "s19" / "README.md").read_text(encoding="utf-8")
    quiz = (repo / "lessons" / "s19" / "quiz.yaml").read_text(encoding="utf-8")
    (repo / "lessons" / "s19" / "quiz.zh.yaml").write_text(
        quiz.replace("Does the harness ask the servers for their tools before or after the user's prompt?",
                     "harness 在用户提问之前还是之后向服务器询问工具？"), encoding="utf-8")
    page = repo / "lessons" / "s19" / "README.zh.md"
    page.write_text(english.replace("Questions about the run above.", "stale words"), encoding="utf-8")
    found = codeview.Mechanisms.find(ROOT)
    new = blocks.refresh(repo, page, found)
    assert "harness 在用户提问之前还是之后向服务器询问工具？" in new and blocks.INTRO["zh"] in new, "expected the zh quiz"
    assert "stale words" not in new
    assert [b for k, _, b in i18n.generated(new) if k != "quiz"] == [b for k, _, b in i18n.generated(english) if k != "quiz"]
    assert new.count("glossary.md#") == english.count("glossary.md#"), "expected no glossary link added or dropped"


# --- the runner's hint in the learner's language ----------------------------------------

def test_the_hint_language_is_read_from_the_locale_as_gettext_reads_it():
    import runner  # exercises/runner.py

    cases = {(("LANG", "zh_CN.UTF-8"),): "zh", (("LANG", "ja_JP.UTF-8"),): "ja", (("LANG", "C.UTF-8"),): "en",
             (("LANG", "ja_JP.UTF-8"), ("LC_ALL", "zh_TW.UTF-8")): "zh", (("LANGUAGE", "ja:en"), ("LANG", "zh_CN")): "ja",
             (("LANG", "fr_FR.UTF-8"),): "en", (): "en"}
    found = {env: runner.language(dict(env)) for env in cases}
    assert found == cases, f"expected {cases}, found {found}"


def test_the_hint_is_printed_in_the_language_asked_and_in_english_otherwise(tmp_path, capsys):
    import runner

    shutil.copytree(ROOT / "exercises" / "s19", tmp_path / "s19", ignore=shutil.ignore_patterns("hints.*.yaml"))
    (tmp_path / "s19" / "hints.ja.yaml").write_text("1_add_a_tool: ツールは `mock_servers/catalog.py` にあります。\n",
                                                    encoding="utf-8")
    first = runner.Solution.read(tmp_path / "s19" / "1_add_a_tool")
    second = runner.Solution.read(tmp_path / "s19" / "2_make_a_server_fail")
    assert runner.hint(first, "ja") == "hint  s19/1: ツールは `mock_servers/catalog.py` にあります。"
    assert runner.hint(first, "zh") == runner.hint(first) == f"hint  s19/1: {first.hint}", "expected English without hints.zh.yaml"
    assert runner.hint(second, "ja") == f"hint  s19/2: {second.hint}", "expected English for a hint not translated"
    assert runner.main(["s19/1", "--hint", "--lang", "en"]) == 0
    assert capsys.readouterr().out.startswith("hint  s19/1: Tools are listed"), "expected the English hint with --lang en"


# --- the site's lesson pages in each language ---------------------------------------------

def test_a_lesson_page_in_each_language_reads_in_that_language():
    """lesson_pages.py makes the zh and ja page from README.{lang}.md: no language line or stamp, its own quiz,
    headings and hints, its glossary links pointed at the glossary of its language; English where not translated."""
    import lesson_pages  # site/lesson_pages.py (importing it builds nothing)
    from sitegen import words

    found = codeview.Mechanisms.find(ROOT)
    names = set(lesson_pages.lessons())
    for lang in i18n.LANGS:
        page = lesson_pages.lesson_page("s19", None, names, found, lang)
        said = words.PAGE[lang]
        assert i18n.LANGUAGE_LINE not in page and "<!-- translation of" not in page, f"{lang}: expected neither on the page"
        assert f"## {said['viewer']} {{#lesson-viewer}}" in page and f"## {said['run']} {{#lesson-run}}" in page, lang
        first = (ROOT / "lessons" / "s19" / f"quiz.{lang}.yaml").read_text(encoding="utf-8").split("question: ")[1].split("\n")[0]
        assert first.strip("'\"") in page, f"{lang}: expected the first question of quiz.{lang}.yaml on the page"
        assert "](../glossary.md#" not in page and f"](../glossary.{lang}.md#" in page, f"{lang}: glossary links"
        assert f'"{said["hint"]}"' in page, f"{lang}: expected the exercises' hints folded as {said['hint']!r}"
    english = lesson_pages.lesson_page("s19", None, names, found, "en")
    assert "## Step through the run {#lesson-viewer}" in english and i18n.LANGUAGE_LINE not in english


def test_the_site_links_a_translated_lesson_to_the_page_of_its_language():
    import lesson_pages

    text = "See [s20](../s20/README.zh.md#how-it-works) and [s99](../s99/README.ja.md)."
    assert lesson_pages.rewrite_links(text, "s19", {"s19", "s20"}, set()) == "See [s20](s20.md#how-it-works) and s99."
