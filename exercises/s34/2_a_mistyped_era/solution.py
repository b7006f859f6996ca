"""docs fails in part 3 when the file is read, before anything is started (it goes from `new`
straight to `failed`):
`server 'docs': field 'protocol': expected "2026-07-28", "2025-11-25" or "auto", not '2026'`.
The desk and the handbook connect as before: a bad value fails its own server only, with
one line that names the server and the field, and the era is never guessed from it (a
near miss like "2026" could mean either date).

The scenario here makes no docs call in part 3.
"""

from expect import exit_code, has_line, line_at  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Give docs `"protocol": "2026"` in `lessons/s34/mixed.json`; the config reader checks the field '
    '(`harness/config/`).'
)

EDITS = {
    "lessons/s34/mixed.json": [(
        '"docs": {"type": "http", "url": "${DOCS_URL}"}',
        '"docs": {"type": "http", "url": "${DOCS_URL}", "protocol": "2026"}',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    part3 = line_at(run, "note: part 3, mixed.json: nothing pinned: docs speaks only 2026-07-28, the handbook only 2025-11-25, "
                         "the desk both")
    has_line(run.lines[part3:], "state: docs: new -> failed: server 'docs': field 'protocol': expected \"2026-07-28\", "
             "\"2025-11-25\" or \"auto\", not '2026'", "in part 3")
    has_line(run.lines[part3:], "note: eras: desk 2026-07-28, docs failed, handbook 2025-11-25", "in part 3")
