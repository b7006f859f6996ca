"""Page generation for the course site, used by the mkdocs hook ``site/lesson_pages.py``.

    code.py        what a lesson page shows of Python files: each lesson's mechanism as the
                   code marks it (modules "Introduced by sNN", symbols under "# lesson: sNN"),
                   excerpts of symbols, and the diff from the previous lesson with docstrings folded
    excerpts.py    ``<!-- excerpt ... -->`` and ``<!-- source ... -->`` in hand-written pages:
                   lines of a pinned transcript or frames file, or a symbol of a source file,
                   read at build time (the start page and the appendix use them)
    solutions.py   each exercise's solution (exercises/), folded under the exercise
    viewer.py      the step-through viewer's markup, with the pinned files embedded

Everything is read from the repository when the site is built; nothing is copied into
site/docs/. A reference that no longer matches (a symbol renamed, an excerpt's pattern
gone) fails the build with an error that names it.
"""
