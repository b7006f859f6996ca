"""docs fails in part 3 when the file is read, before anything is started (it goes from `new`
straight to `failed`):
`server 'docs': field 'protocol': expected "2026-07-28", "2025-11-25" or "auto", not '2026'`.
The desk and the handbook connect as before: a bad value fails its own server only, with
one line that names the server and the field, and the era is never guessed from it (a
near miss like "2026" could mean either date).

The scenario here makes no docs call in part 3.
"""

EDITS = {
    "lessons/s34/mixed.json": [(
        '"docs": {"type": "http", "url": "${DOCS_URL}"}',
        '"docs": {"type": "http", "url": "${DOCS_URL}", "protocol": "2026"}',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    assert run.code == 0, run.text
    part3 = run.lines.index("note: part 3, mixed.json: nothing pinned: docs speaks only 2026-07-28, the handbook only 2025-11-25, "
                            "the desk both")
    said = "state: docs: new -> failed: server 'docs': field 'protocol': expected \"2026-07-28\", \"2025-11-25\" or \"auto\", not '2026'"
    assert said in run.lines[part3:], [line for line in run.lines[part3:] if line.startswith("state: docs")]
    assert "note: eras: desk 2026-07-28, docs failed, handbook 2025-11-25" in run.lines[part3:], run.lines[part3:part3 + 12]
