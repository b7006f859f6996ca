"""A cache is correct when its key covers what the value is built from. Keyed on the
names of the connected servers, it rebuilds on turn 2 (deploy and docs joined) and the
`--cached` run prints exactly the default run's transcript.

What it still misses: anything that changes a server's tools while the set of names
stays the same. A server that sends `notifications/tools/list_changed` (s30), a
reconnect that comes back with other tools (s28), or a signed-in server whose stand-in
`authenticate` tool is replaced by its real tools under the same name (s26). Keying on
each client's tool list too (as `pool.Converted` does, by identity) closes that gap.
"""

from expect import exit_code, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "In `lessons/s22/code.py`, `pool.cached(turn)` keeps the first turn's pool for good; wrap `turn` "
    'in a cache of your own keyed on what changes the pool, such as `tuple(sorted(hub.clients))`, the '
    "connected servers' names."
)

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
    pinned = env.pinned("default.transcript")
    return env.run("--cached"), pinned


def check(result):
    run, pinned = result
    exit_code(run, 0)
    that(run.text == pinned, "the --cached run to be the default run, byte for byte",
         "a different transcript (compare it with tests/snapshots/s22/default.transcript)")
