"""Page generation for the course site, used by the mkdocs hook ``site/lesson_pages.py``.

    code.py        what a lesson page shows of Python files: the new modules a lesson
                   names, excerpts of the symbols that carry a mechanism added to an
                   existing module, and the diff from the previous lesson with docstrings folded
    excerpts.py    ``<!-- excerpt ... -->`` and ``<!-- source ... -->`` in hand-written pages:
                   lines of a pinned transcript or frames file, or a symbol of a source file,
                   read at build time (the start page and the appendix use them)
    solutions.py   each exercise's solution (exercises/), folded under the exercise
    viewer.py      the step-through viewer's markup, with the pinned files embedded

Everything is read from the repository when the site is built; nothing is copied into
site/docs/. A reference that no longer matches (a symbol renamed, an excerpt's pattern
gone) is logged as a warning, which ``mkdocs build --strict`` turns into a failed build.
"""
