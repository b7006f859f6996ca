"""The handbook does not connect in part 3. Its entry is failed, and the error names the
step that ran, `server/discover`, with the server's own answer: `error -32601: Method not
found`. That server speaks only the handshake era (`--era 2025-11-25`), and a pinned era
is not negotiated: the harness sends `server/discover` and nothing else, so there is no
fallback to `initialize`. The other two servers connect as before, and the model is told
which server is missing (the scenario here makes no handbook call in part 3).

Pinning is for a server you know; `auto` is for one you do not. A pinned era that is
wrong fails at once and says why, instead of costing a probe on every connect.
"""

EDITS = {
    "lessons/s34/mixed.json": [(
        '"--era", "2025-11-25"]}',
        '"--era", "2025-11-25"], "protocol": "2026-07-28"}',
    )],
}
RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    assert run.code == 0, run.text
    part3 = run.lines.index("note: part 3, mixed.json: nothing pinned: docs speaks only 2026-07-28, the handbook only 2025-11-25, "
                            "the desk both")
    failed = [line for line in run.lines[part3:] if line.startswith("state: handbook: pending -> failed: ")]
    assert failed and failed[0].startswith("state: handbook: pending -> failed: server 'handbook': server/discover: error -32601: Method not found"), failed
    assert "note: eras: desk 2026-07-28, docs 2026-07-28, handbook failed" in run.lines[part3:], run.lines[part3:part3 + 12]
