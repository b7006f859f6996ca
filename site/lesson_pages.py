"""Generate one site page per lesson at build time (an mkdocs hook, see site/mkdocs.yml).

For every folder lessons/sNN that exists, `on_files` adds a page lessons/sNN.md built from:

1. the lesson's README.md, read at build time (nothing is copied into site/docs/);
2. a "Code" section with tabs: code.py; the harness module that the code.py docstring names
   on a line `New module: harness/x.py` (skipped when there is none or the file is missing);
   the unified diff of code.py against the previous existing lesson's code.py; scenario.yaml;
3. a "Pinned run" section: every tests/snapshots/sNN/*.transcript and *.frames, the
   default case first. A missing default.transcript shows a note; the build goes on.

The `<!-- lessons -->` marker in docs/index.md becomes a table of the lessons found, so a new
lesson folder shows up in the nav and on the home page without editing anything in site/.

Link rule for lesson READMEs, which is what makes --strict pass:
- another lesson: `../sNN/README.md` (an `#anchor` may follow) points at that lesson's page;
  if that lesson does not exist yet, the link is rendered as its plain text;
- this lesson's `code.py`, `scenario.yaml` or its new module point at the Code section;
- any other relative link to a file outside site/docs/ is left alone and --strict names it.
  Only inline links `[text](target)` are rewritten, not reference-style definitions.
  Use mermaid fences instead of image files.

Not handled: lesson folders not named sNN.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
import textwrap
from pathlib import Path

from mkdocs.structure.files import File

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
SNAPSHOTS = REPO / "tests" / "snapshots"
NEW_MODULE = re.compile(r"New module:\s*(\S+)")
# [text](target "title") or ![alt](target); the target is group 2.
INLINE_LINK = re.compile(r"(!?\[[^\]]*\])\(\s*<?([^)\s>]+)>?((?:\s+\"[^\"]*\")?\s*)\)")
LESSON_LINK = re.compile(r"^lessons/(s\d\d)(?:/README\.md|/)?$")


def lessons() -> list[str]:
    """Names of the lesson folders that exist, in lesson order."""
    return sorted(p.name for p in LESSONS.glob("s[0-9][0-9]") if p.is_dir())


def read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def title_of(name: str) -> str:
    readme = read(LESSONS / name / "README.md") or ""
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", readme, re.MULTILINE)
    heading = match.group(1) if match else ""
    return heading if heading.startswith(name) else f"{name}: {heading}".rstrip(": ")


def new_module(code: str | None) -> str | None:
    """The repo-relative path named by `New module: ...` in code.py, if that file exists."""
    if not (match := NEW_MODULE.search(code or "")):
        return None
    rel = posixpath.normpath(match.group(1).strip("`'\".,;:()"))
    path = (REPO / rel).resolve()
    return rel if path.is_file() and REPO in path.parents else None


def fence(text: str, lang: str) -> str:
    """A fenced block that survives backticks inside `text`."""
    ticks = "`" * max(3, 1 + max(map(len, re.findall(r"`+", text)), default=0))
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def tabs(items: list[tuple[str, str]]) -> str:
    """pymdownx.tabbed markup; every body line is indented, blank ones included."""
    return "\n\n".join(f'=== "{title}"\n\n' + textwrap.indent(body, "    ", lambda _: True)
                       for title, body in items)


def note(text: str) -> str:
    return f'!!! note "Not there yet"\n\n    {text}'


def rewrite_links(readme: str, name: str, existing: set[str], module: str | None) -> str:
    """Apply the link rule in the module docstring to one README."""
    own = {f"lessons/{name}/code.py", f"lessons/{name}/scenario.yaml", module}

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
        else:
            return match.group(0)
        return f"{label}({new}{tail})"

    return INLINE_LINK.sub(replace, readme)


def lesson_page(name: str, previous: str | None, existing: set[str]) -> str:
    folder = LESSONS / name
    code = read(folder / "code.py")
    module = new_module(code)
    readme = read(folder / "README.md")
    parts = [f"---\ntitle: {json.dumps(title_of(name))}\n---\n"]
    if readme is None:
        parts += [f"# {name}", note(f"`lessons/{name}/README.md` is not written yet.")]
    else:
        parts.append(rewrite_links(readme, name, existing, module))

    parts.append("## Code {#lesson-code}")
    if code is None:
        parts.append(note(f"`lessons/{name}/code.py` is not written yet."))
    else:
        items = [("code.py", fence(code, "python"))]
        if module:
            items.append((module, fence(read(REPO / module) or "", "python")))
        prev_code = read(LESSONS / previous / "code.py") if previous else None
        if prev_code is not None:
            diff = "".join(difflib.unified_diff(
                prev_code.splitlines(keepends=True), code.splitlines(keepends=True),
                f"lessons/{previous}/code.py", f"lessons/{name}/code.py"))
            items.append((f"diff from {previous}", fence(diff, "diff") if diff
                          else f"`code.py` is the same as in {previous}."))
        scenario = read(folder / "scenario.yaml")
        if scenario is not None:
            items.append(("scenario.yaml", fence(scenario, "yaml")))
        parts.append(tabs(items))

    parts.append("## Pinned run {#lesson-run}")
    parts.append(f"Offline runs as the snapshot tests pin them; `default` is `python lessons/{name}/code.py`.")
    snaps = SNAPSHOTS / name
    if not (snaps / "default.transcript").is_file():
        parts.append(note(f"No pinned transcript yet: `tests/snapshots/{name}/default.transcript`."))
    # Every case, default first, transcripts before frames (e.g. s22's `cached` case).
    files = sorted((p for p in snaps.glob("*.*") if p.suffix in {".transcript", ".frames"}),
                   key=lambda p: (p.suffix != ".transcript", p.stem != "default", p.name))
    found = [(p.name, fence(read(p), "json" if p.suffix == ".frames" else "text")) for p in files]
    if found:
        parts.append(tabs(found))
    return "\n\n".join(parts) + "\n"


def lesson_table(names: list[str]) -> str:
    if not names:
        return "No lessons yet."
    rows = ["| lesson | what it adds | new module |", "|---|---|---|"]
    for name in names:
        title = title_of(name).removeprefix(name).lstrip(":·—- ").strip() or "(being written)"
        module = new_module(read(LESSONS / name / "code.py"))
        title = title.replace("|", "\\|")
        rows.append(f"| [{name}](lessons/{name}.md) | {title} | {f'`{module}`' if module else ''} |")
    return "\n".join(rows)


def on_files(files, config):
    names = lessons()
    for index, name in enumerate(names):
        previous = next((p for p in reversed(names[:index]) if (LESSONS / p / "code.py").is_file()), None)
        page = lesson_page(name, previous, set(names))
        files.append(File.generated(config, f"lessons/{name}.md", content=page))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md":
        return markdown.replace("<!-- lessons -->", lesson_table(lessons()))
    return markdown


def on_serve(server, config, builder):
    """`mkdocs serve` rebuilds when a lesson, snapshot or harness module changes."""
    for path in (LESSONS, SNAPSHOTS, REPO / "harness"):
        if path.is_dir():
            server.watch(str(path))
    return server
