"""A cache is correct when its key covers what the value is built from. Keyed on the
names of the connected servers, it rebuilds on turn 2 (deploy and docs joined) and the
`--cached` run prints exactly the default run's transcript.

What it still misses: anything that changes a server's tools while the set of names
stays the same. A server that sends `notifications/tools/list_changed` (s30), a
reconnect that comes back with other tools (s28), or a signed-in server whose stand-in
`authenticate` tool is replaced by its real tools under the same name (s26). Keying on
each client's tool list too (as `pool.Converted` does, by identity) closes that gap.
"""

EDITS = {
    "lessons/s22/code.py": [(
        '''        await run.agent(pool.cached(turn) if run.args.cached else turn)
''',
        '''        await run.agent(keyed(turn, hub.clients) if run.args.cached else turn)


def keyed(source, clients):
    """A cache keyed on the connected servers' names: rebuilt when they change."""
    memo = {}

    def turn():
        key = tuple(sorted(clients))
        if memo.get("key") != key:
            memo["key"], memo["turn"] = key, source()
        return memo["turn"]

    return turn
''',
    )],
}
RUN = ("--cached",)


def solve(env):
    from pathlib import Path

    pinned = (Path(__file__).resolve().parents[3] / "tests" / "snapshots" / "s22" / "default.transcript").read_text(encoding="utf-8")
    return env.run("--cached"), pinned


def check(result):
    run, pinned = result
    assert run.code == 0, f"the --cached run should finish now\n{run.text}"
    assert run.text == pinned, "with a correct cache the run is the default run, byte for byte"
