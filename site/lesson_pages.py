"""The course site's mkdocs hook: lesson pages, the nav, the home page's lesson table, excerpts.

For every folder lessons/sNN that exists, ``on_files`` adds a page lessons/sNN.md:

1. **Goal**: the first line of code.py's docstring, and the first sentence of its *New here*;
2. the lesson's README.md, read at build time (nothing is copied into site/docs/), with
   each quoted block of output captioned with the pinned file and lines it is from (a
   quote the pinned run does not print fails the build: sitegen/quotes.py), and each
   exercise followed by its folded solution from exercises/sNN/ (sitegen/solutions.py);
3. **Step through the run**: the viewer (assets/viewer.js) with the lesson's pinned
   transcripts and frames embedded (sitegen/viewer.py); then **Check what you saw**, the
   quiz from lessons/sNN/quiz.yaml, each answer folded with the pinned line that proves it
   (sitegen/quiz.py; a proof the pinned run does not print fails the build);
4. **Code**, in tabs: code.py; every module the docstring names on its ``New module:``
   line and every harness module whose docstring says ``Introduced by sNN``, whole; for a
   mechanism added to a module an earlier lesson introduced, the symbols marked
   ``# lesson: sNN`` in the harness (sitegen/code.py, ``Mechanisms``: found in the code,
   so code moved between modules needs no edit here); the diff from the previous lesson's
   code.py with docstrings folded to their first line (the docstring diff folded below
   it); scenario.yaml and every other file of the lesson folder;
5. **Pinned run**: every tests/snapshots/sNN/*.transcript and *.frames, default first.

``on_config`` builds the nav: Home, Start here, the lessons found, the appendix, the
limits, the glossary. On a lesson page the first use of each glossary term links to its definition
(sitegen/glossary.py reads the terms from docs/glossary.md). The
``<!-- lessons -->`` marker in docs/index.md becomes a table of the lessons found and of
the ones ``PLANNED`` that have no folder yet, so a new lesson folder shows up in the nav
and on the home page without editing anything in site/. Hand-written pages may hold
``<!-- excerpt: ... -->`` and ``<!-- source: ... -->`` (sitegen/excerpts.py).

Link rule for lesson READMEs, which is what makes --strict pass:
- another lesson: ``../sNN/README.md`` (an ``#anchor`` may follow) points at that lesson's
  page; if that lesson does not exist yet, the link is rendered as its plain text;
- this lesson's ``code.py``, ``scenario.yaml`` or a new module point at the Code section;
- a link to another file of the repository (``../../.ci/conformance/README.md``) is rendered
  as its text: the site holds no copy of it;
- any other relative link to a file outside site/docs/ is left alone and --strict names it.
  Only inline links ``[text](target)`` are rewritten, not reference-style definitions.
  Use mermaid fences instead of image files (assets/course.js draws them).

A reference that cannot be resolved (a ``# lesson:`` marker on no definition, a written
lesson with no mechanism found, an excerpt's pattern or symbol gone) fails the build with
an error naming it, strict or not, ``-q`` or not.

Languages: mkdocs-static-i18n (mkdocs.yml) builds the site once per language, English at
the root, then zh and ja under /zh/ and /ja/, and each hook event runs again in each build
(``language(config)`` says which). In a zh build the lesson page is made from
``README.zh.md`` (``quiz.zh.yaml``, ``hints.zh.yaml``) where it exists, with the page's own
headings and notes in that language (sitegen/words.py), and placed where the plugin places
a suffixed page (``lessons/sNN.zh.md``, ``on_files`` running after the plugin's); a lesson
not translated yet is the English page in its place. The nav's titles are the language's.
The checks above (quotes, quizzes, mechanisms) run in every build; a translation's links
follow the same rule (``../sNN/README.zh.md`` points at that lesson's page in the same
language), and its glossary links point at ``glossary.zh.md``. site/sitegen/i18n.py and
tests/test_translations.py keep each translation's structure and code the English page's.

Not handled: lesson folders not named sNN.
"""

from __future__ import annotations

import ast
import json
import logging
import posixpath
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sitegen/, beside this file

from sitegen import code as codeview  # noqa: E402
from sitegen import excerpts, glossary, i18n, quiz, quotes, readme as sections, solutions, viewer, words  # noqa: E402
from sitegen.render import admonition, details, fence, note, tabs  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
SNAPSHOTS = REPO / "tests" / "snapshots"
DOCS = Path(__file__).resolve().parent / "docs"
# [text](target "title") or ![alt](target); the target is group 2.
INLINE_LINK = re.compile(r"(!?\[[^\]]*\])\(\s*<?([^)\s>]+)>?((?:\s+\"[^\"]*\")?\s*)\)")
LESSON_LINK = re.compile(r"^lessons/(s\d\d)(?:/README(?:\.(?:zh|ja))?\.md|/)?$")
LANGS = {".py": "python", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".toml": "toml"}

# The course plan (shared/COURSE.md): lessons that have no folder yet are listed as planned.
PLANNED = {
    "s33": "elicitation (forms, URLs, input-required rounds), sampling answered by the harness model, roots",
    "s34": "the current protocol: 2026-07-28 (server/discover, no sessions) beside the handshake era, per server",
    "s35": "capstone: the hub in one loop against a real config, third-party servers included",
}

def lessons() -> list[str]:
    """Names of the lesson folders that exist, in lesson order."""
    return sorted(p.name for p in LESSONS.glob("s[0-9][0-9]") if p.is_dir())


def read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def readme_of(name: str, lang: str = "en") -> Path:
    """The lesson's README in ``lang``: README.md, or README.zh.md / README.ja.md where it exists."""
    translated = i18n.translation_of(LESSONS / name / "README.md", lang) if lang != "en" else None
    return translated if translated and translated.is_file() else LESSONS / name / "README.md"


def language(config) -> str:
    """The language being built: mkdocs-static-i18n builds English, then each other language, with one config."""
    plugin = config.plugins.get("i18n")
    return getattr(plugin, "current_language", None) or "en"


def title_of(name: str, lang: str = "en") -> str:
    readme = read(readme_of(name, lang)) or ""
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", readme, re.MULTILINE)
    heading = match.group(1) if match else ""
    return heading if heading.startswith(name) else f"{name}: {heading}".rstrip(": ")


def written(name: str) -> bool:
    """A lesson counts as written once it has its README, its code.py and a pinned run."""
    folder = LESSONS / name
    return all(p.is_file() for p in (folder / "README.md", folder / "code.py", SNAPSHOTS / name / "default.transcript"))


def goal_of(code: str | None, name: str) -> str | None:
    """The lesson's goal from code.py's docstring: its first line, then the first sentence of "New here:"."""
    try:
        doc = ast.get_docstring(ast.parse(code or "")) or ""
    except SyntaxError:
        return None
    if not doc:
        return None
    first, _, rest = doc.partition("\n")
    first = first.strip().removeprefix(f"{name}:").strip()
    if "_" not in first.split(" ")[0]:  # "connect_mcp. ..." stays as the code spells it
        first = first[:1].upper() + first[1:]
    new_here = next((p for p in re.split(r"\n\s*\n", rest) if p.strip().startswith("New here:")), "")
    sentence = re.split(r"(?<=\.)\s+", " ".join(new_here.split()).removeprefix("New here:").strip())[0]
    if not 40 <= len(sentence) <= 240:  # a bare module name says less than the title; a paragraph, more than a goal
        sentence = ""
    return f"**{first}**" + (f" {sentence[:1].upper() + sentence[1:]}" if sentence else "")


def rewrite_links(readme: str, name: str, existing: set[str], own: set[str]) -> str:
    """Apply the link rule in the module docstring to one README."""
    own = own | {f"lessons/{name}/code.py", f"lessons/{name}/scenario.yaml"}

    def replace(match: re.Match) -> str:
        label, target, tail = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join("lessons", name, path))
        lesson = LESSON_LINK.match(resolved)
        if lesson and lesson.group(1) not in existing:
            return label.lstrip("!")[1:-1]
        if lesson:
            new = f"{lesson.group(1)}.md" + (f"#{anchor}" if anchor else "")
        elif resolved in own:
            new = "#lesson-code"
        elif not resolved.startswith(("site/", "../")) and (REPO / resolved).is_file():
            return label.lstrip("!")[1:-1]  # a file of the repository, not a page: its name, as the site has no copy to link
        else:
            return match.group(0)
        return f"{label}({new}{tail})"

    return INLINE_LINK.sub(replace, readme)


def for_the_site(readme: str, quiz_heading: str = "Check what you saw") -> str:
    """A README as its page includes it: without its language line and stamp (the site has its language
    switcher), its quiz section left out (the page's own quiz, after the viewer, is the same questions),
    its glossary links pointed at the site's page (``glossary.zh.md`` in a translation)."""
    lines = readme.split("\n")
    if lines[0] == i18n.LANGUAGE_LINE:
        lines = lines[1:]
    readme = "\n".join(line for line in lines if not i18n.STAMP.match(line)).lstrip("\n")
    quiz_section = re.compile(rf"^## {re.escape(quiz_heading)}\n.*?(?=^## )", re.M | re.S)
    readme = quiz_section.sub("", readme)
    return re.sub(r"\]\(\.\./\.\./site/docs/glossary(\.(?:zh|ja))?\.md#", r"](../glossary\1.md#", readme)


def other_files(name: str) -> list[Path]:
    """The lesson folder's files besides README.md, code.py, scenario.yaml and quiz.yaml (configs, other scenarios)."""
    folder = LESSONS / name
    skip = {"README.md", "code.py", "scenario.yaml", "quiz.yaml"}
    translated = {f"{stem}.{lang}.{ext}" for lang in i18n.LANGS for stem, ext in (("README", "md"), ("quiz", "yaml"))}
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in skip | translated
                  and "__pycache__" not in p.parts and p.suffix not in {".pyc"})


def mechanism_tab(name: str, found: codeview.Mechanisms, shown: list[str]) -> tuple[str, str] | None:
    """The symbols marked ``# lesson: sNN`` for this lesson, in modules the page does not show whole."""
    parts = []
    for rel, symbol in found.symbols.get(name, []):
        if rel in shown:
            continue
        for symbol, first, last, text in codeview.excerpt(REPO / rel, [symbol]):
            parts.append(f"`{rel}`, `{symbol}` (lines {first}-{last}):\n\n" + fence(text, "python"))
    if not parts:
        return None
    intro = ("What this lesson adds to modules an earlier lesson introduced, symbol by symbol "
             "(each marked `# lesson: " + name + "` in the code):")
    return "changed in existing modules", intro + "\n\n" + "\n\n".join(parts)


def modules_of(name: str, code: str | None, found: codeview.Mechanisms) -> list[str]:
    """The modules this lesson introduced: named on code.py's ``New module:`` line, or saying so in their docstring."""
    return list(dict.fromkeys(codeview.new_modules(code, REPO) + found.modules.get(name, [])))


def diff_tab(name: str, previous: str, code: str) -> tuple[str, str]:
    prev_code = read(LESSONS / previous / "code.py") or ""
    a, b = f"lessons/{previous}/code.py", f"lessons/{name}/code.py"
    folded = codeview.folded_diff(prev_code, code, a, b)
    if not folded and prev_code == code:
        return f"diff from {previous}", f"`code.py` is the same as in {previous}."
    added, removed = codeview.changed_lines(folded)
    body = [f"Everything that changed in `code.py` since {previous}: {added} lines added, {removed} removed, "
            "docstrings folded to their first line. What a lesson drops from the one before is "
            "listed under *What changed* above.",
            fence(folded, "diff") if folded else "Only docstrings changed."]
    docs = codeview.docstring_diff(prev_code, code, a, b)
    if docs:
        body.append(details("abstract", "The module docstring's changes (folded above)", fence(docs, "diff")))
    return f"diff from {previous}", "\n\n".join(body)


def code_section(name: str, previous: str | None, code: str, modules: list[str], found: codeview.Mechanisms) -> str:
    items = [("code.py", fence(code, "python"))]
    for module in modules:
        items.append((module.removeprefix("harness/"), f"The new module `{module}`, whole:\n\n" + fence(read(REPO / module) or "", "python")))
    mechanism = mechanism_tab(name, found, modules)
    if mechanism:
        items.append(mechanism)
    if previous:
        items.append(diff_tab(name, previous, code))
    folder = LESSONS / name
    scenario = read(folder / "scenario.yaml")
    if scenario is not None:
        items.append(("scenario.yaml", fence(scenario, "yaml")))
    for path in other_files(name):
        rel = path.relative_to(folder).as_posix()
        items.append((rel, fence(read(path) or "", LANGS.get(path.suffix, "text"))))
    return tabs(items)


def run_section(name: str, lang: str = "en") -> str:
    parts = [words.PAGE[lang]["run_intro"].format(name=name)]
    snaps = SNAPSHOTS / name
    if not (snaps / "default.transcript").is_file():
        parts.append(note(f"No pinned transcript yet: `tests/snapshots/{name}/default.transcript`."))
    # Every case, default first, transcripts before frames (e.g. s22's `cached` case).
    files = sorted((p for p in snaps.glob("*.*") if p.suffix in {".transcript", ".frames"}),
                   key=lambda p: (p.stem != "default", p.stem, p.suffix != ".transcript"))
    found = [(p.name, fence(read(p) or "", "json" if p.suffix == ".frames" else "text")) for p in files]
    if found:
        parts.append(tabs(found))
    return "\n\n".join(parts)


def _headings(name: str, lang: str) -> dict[str, str]:
    """The English ``##`` section names of the README, mapped to the translation's (same order: i18n checks it)."""
    english = sections.sections(read(LESSONS / name / "README.md") or "")
    if lang == "en":
        return {s: s for s in english}
    return dict(zip(english, sections.sections(read(readme_of(name, lang)) or "")))


def lesson_page(name: str, previous: str | None, existing: set[str], found: codeview.Mechanisms, lang: str = "en") -> str:
    folder = LESSONS / name
    code = read(folder / "code.py")
    modules = modules_of(name, code, found)
    readme = read(readme_of(name, lang))
    lang = lang if readme_of(name, lang).name != "README.md" else "en"  # a lesson not yet translated reads in English
    said, named = words.PAGE[lang], _headings(name, lang)
    parts = [f"---\ntitle: {json.dumps(title_of(name, lang))}\n---\n"]
    if readme is None:
        parts += [f"# {name}", note(f"`lessons/{name}/README.md` is not written yet.")]
    else:
        readme = for_the_site(readme, named.get("Check what you saw", "Check what you saw"))
        if lang == "en":  # a translation links the glossary by hand, in its language
            readme = glossary.link(readme, "../glossary.md", glossary.terms(DOCS / "glossary.md"))
        readme = quotes.captioned(readme, name, REPO, lang)
        readme = solutions.with_solutions(readme, name, REPO, lang, named.get("Exercises", "Exercises"))
        readme = rewrite_links(readme, name, existing, set(modules))
        heading = re.search(r"^# .*$", readme, re.MULTILINE)
        goal = goal_of(code, name)
        if heading and goal:  # the goal goes right under the title
            box = admonition("abstract", said["goal"], goal)
            readme = readme[:heading.end()] + "\n\n" + box + "\n" + readme[heading.end():]
        parts.append(readme)

    block = viewer.block(name, SNAPSHOTS / name)
    if block:
        parts.append(f"## {said['viewer']} {{#lesson-viewer}}")
        parts.append(said["viewer_intro"])
        parts.append(block)

    questions = quiz.section(REPO, name, lang)
    if questions:
        parts.append(f"## {said['quiz']} {{#lesson-quiz}}")
        parts.append(questions)

    parts.append(f"## {said['code']} {{#lesson-code}}")
    if code is None:
        parts.append(note(f"`lessons/{name}/code.py` is not written yet."))
    else:
        parts.append(code_section(name, previous, code, modules, found))

    parts.append(f"## {said['run']} {{#lesson-run}}")
    parts.append(run_section(name, lang))
    return "\n\n".join(parts) + "\n"


def lesson_table(names: list[str], found: codeview.Mechanisms, lang: str = "en") -> str:
    said = words.PAGE[lang]
    rows = [said["table"], "|---|---|---|"]
    for name in sorted(set(names) | set(PLANNED)):
        if name in names:
            title = title_of(name, lang).removeprefix(name).lstrip(":·—- ").strip() or "(no README yet)"
            code = read(LESSONS / name / "code.py")
            # what code.py names as new; what the harness says it introduced when code.py names none
            modules = codeview.new_modules(code, REPO) or modules_of(name, code, found)
            title = title.replace("|", "\\|")
            if not written(name):
                title += " " + said["being_written"]
            module = ", ".join(f"`{m}`" for m in modules)
            rows.append(f"| [{name}](lessons/{name}.md) | {title} | {module} |")
        else:
            rows.append(f"| {name} | {said['planned']} {PLANNED[name]} | |")
    return "\n".join(rows)


# The course plan's end, promised by the home page: shown as planned until its lesson exists.
ENDS = ("s35", "ends with the whole hub in one loop")


def on_config(config):
    logging.getLogger("jieba").setLevel(logging.WARNING)  # Material's search segments Chinese with it; its debug lines are not the build's
    names, lang = lessons(), language(config)
    say = words.NAV[lang]
    nav = [{say["Home"]: "index.md"}, {say["Start here"]: "start.md"},
           {say["Lessons"]: [{title_of(n, lang): f"lessons/{n}.md"} for n in names]},
           {say["Appendix"]: [{say["Build your own server"]: "appendix/own-server.md"},
                              {say["Use it on your own setup"]: "appendix/own-setup.md"}]},
           {say["Limits"]: "limits.md"}, {say["Glossary"]: "glossary.md"}]
    config["nav"] = nav  # each language's build runs this again, with its own titles
    return config


def mechanisms(names: list[str], lang: str = "en") -> codeview.Mechanisms:
    """Every lesson's mechanism, found in the harness; a marker that resolves to nothing fails the build.
    In a zh or ja build, a translated quiz whose proofs are not the English ones fails it too."""
    found = codeview.Mechanisms.find(REPO)
    problems = list(found.problems)
    known = set(names) | set(PLANNED)
    for lesson in sorted(set(found.symbols) | set(found.modules)):
        if lesson not in known:
            problems.append(f"the harness names {lesson} (a '# lesson:' marker or 'Introduced by'), "
                            "which is neither a lesson folder nor planned")
    for name in names:
        problems += quotes.check(REPO, name)  # a README quoting output the pinned run no longer prints
        if written(name):
            problems += quiz.problems(REPO, name)
        if lang != "en" and quiz.path_of(REPO, name, lang).is_file():
            problems += i18n.quiz_problems(REPO, name, lang)
        if written(name) and not modules_of(name, read(LESSONS / name / "code.py"), found) and not found.symbols.get(name):
            problems.append(f"{name}: no mechanism found: no 'New module:' line in code.py that names a file, "
                            f"no module saying 'Introduced by {name}', no '# lesson: {name}' marker")
    if problems:
        from mkdocs.exceptions import PluginError  # mkdocs only when building: the tests import this module without it

        raise PluginError("lesson_pages: " + "\n  ".join(["the lessons' mechanisms, quotes and quizzes:", *problems]))
    return found


def _lesson_file(config, name: str, lang: str, content: str | None = None):
    """The page lessons/sNN.md (or .zh.md, .ja.md) as mkdocs-static-i18n would have made it from a file in docs/:
    its place in that language's build (/zh/lessons/sNN.html) and its alternates, for the language switcher."""
    from mkdocs.structure.files import File
    from mkdocs_static_i18n import suffix  # the plugin's own placement of a suffixed file, so ours land alike

    plugin = config.plugins["i18n"]
    translated = lang != "en" and readme_of(name, lang).name != "README.md"
    probe = File(f"lessons/{name}.{lang}.md" if translated else f"lessons/{name}.md", config.docs_dir,
                 config.site_dir, config.use_directory_urls)
    page = suffix.create_i18n_file(probe, lang, plugin.default_language, plugin.all_languages, config)
    if content is not None:
        page.content_string = content  # a page of ours, not a file in docs/
        page.generated_by = "lesson_pages"
    return page


def on_files(files, config):
    names, lang = lessons(), language(config)
    found = mechanisms(names, lang)
    plugin = config.plugins["i18n"]
    for index, name in enumerate(names):
        previous = next((p for p in reversed(names[:index]) if (LESSONS / p / "code.py").is_file()), None)
        # The page in the language being built where the lesson is translated; else the English one in its
        # place, as mkdocs-static-i18n does for a page of docs/ (fallback_to_default).
        translated = lang != "en" and readme_of(name, lang).name != "README.md"
        page = _lesson_file(config, name, lang, lesson_page(name, previous, set(names), found, lang if translated else "en"))
        page.alternates = {other: page if other == lang else _lesson_file(config, name, other)
                           for other in plugin.build_languages}
        files.append(page)
    return files


# After mkdocs-static-i18n's on_files (-100), which places only the files it finds in docs/. This is what
# mkdocs.plugins.event_priority(-110) sets; written out, so the tests import this module without mkdocs.
on_files.mkdocs_priority = -110


def on_page_markdown(markdown, page, config, files):
    if getattr(page.file, "norm_src_uri", page.file.src_uri) == "index.md":
        markdown = markdown.replace("<!-- lessons -->", lesson_table(lessons(), codeview.Mechanisms.find(REPO), language(config)))
        lesson, phrase = ENDS
        if lesson not in lessons() and phrase in markdown:
            markdown = markdown.replace(phrase, f"{phrase} (*planned*: [{lesson}](#lessons), not written yet)")
    if not page.file.src_uri.startswith("lessons/"):
        try:
            markdown = excerpts.expand(markdown, REPO, language(config))
        except excerpts.ExcerptError as exc:
            from mkdocs.exceptions import PluginError

            raise PluginError(f"lesson_pages: {page.file.src_uri}: {exc}") from None
    return markdown


LINE_SPAN = re.compile(r'<span id="__span-[\d-]+">')


def honest_indent(html: str) -> str:
    """Give each highlighted line that starts indented its indent as ``--i`` (course.css).

    A wrapped line then continues 2 characters to the right of where its own text starts,
    never left of it: Python's indentation stays readable on a phone. The indent is counted
    across the highlighter's tags (a diff line is ``<span class="w"> </span>    return``),
    and a diff line's marker (``+``, ``-``) counts as one character of it.
    """
    out, at = [], 0
    for match in LINE_SPAN.finditer(html):
        i, width = match.end(), 0
        while i < len(html):
            if html[i] == "<":
                if html.startswith("</span><span id=", i):  # an empty line: the next line starts
                    break
                i = html.find(">", i) + 1 or len(html)
            elif html[i] == " " or (html[i] in "+-" and width == 0):
                width, i = width + 1, i + 1
            else:
                break
        if width and i < len(html) and html[i] != "\n":
            out.append(html[at:match.start()] + match.group(0)[:-1] + f' style="--i:{width}">')
            at = match.end()
    out.append(html[at:])
    return "".join(out)


def on_page_content(html, page, config, files):
    # The tab labels are one run of text ("code.pypool.pydiff from s21"): keep them out of
    # the search index, so results show the page and section titles and real text.
    html = html.replace('<div class="tabbed-labels">', '<div class="tabbed-labels" data-search-exclude>')
    return honest_indent(html)


def on_serve(server, config, builder):
    """`mkdocs serve` rebuilds when a lesson, snapshot, exercise or harness module changes."""
    for path in (LESSONS, SNAPSHOTS, REPO / "harness", REPO / "exercises", REPO / "mock_servers"):
        if path.is_dir():
            server.watch(str(path))
    return server
