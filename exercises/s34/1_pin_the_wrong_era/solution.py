"""The handbook does not connect in part 3. Its entry is failed, and the error names the
step that ran, `server/discover`, what the server speaks (it answered -32601: it does not
know `server/discover`, so it speaks the handshake era) and what to write instead: set
`"protocol"` to `"2025-11-25"` or `"auto"`. That server speaks only the handshake era
(`--era 2025-11-25`), and a pinned era is not negotiated: the harness sends
`server/discover` and nothing else, so there is no fallback to `initialize`. The other two servers connect as before, and the model is told
which server is missing (the scenario here makes no handbook call in part 3).

Pinning is for a server you know; `auto` is for one you do not. A pinned era that is
wrong fails at once and says why, instead of costing a probe on every connect.
"""

from expect import exit_code, first_starting, has_line, line_at, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'A server\'s era is pinned with `"protocol": "2026-07-28"` (or `"2025-11-25"`) in its entry of '
    '`lessons/s34/mixed.json`; `harness/era.py` reads it.'
)

EDITS = {
    "lessons/s34/mixed.json": [(
        '"--era", "2025-11-25"]}',
        '"--era", "2025-11-25"], "protocol": "2026-07-28"}',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    part3 = line_at(run, "note: part 3, mixed.json: nothing pinned: docs speaks only 2026-07-28, the handbook only 2025-11-25, "
                         "the desk both")
    failed = first_starting(run.lines[part3:], "state: handbook: pending -> failed: ")
    that(failed.startswith("state: handbook: pending -> failed: server 'handbook': server/discover: the server speaks the "
                           "handshake era (it does not know server/discover); \"protocol\": \"2026-07-28\" pins the other era: "
                           "set \"protocol\" to \"2025-11-25\" or \"auto\""),
         "handbook to fail at server/discover, naming the era it speaks and the fix", show(failed))
    has_line(run.lines[part3:], "note: eras: desk 2026-07-28, docs 2026-07-28, handbook failed", "in part 3")
