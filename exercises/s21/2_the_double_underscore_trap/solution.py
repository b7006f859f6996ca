"""`("a__b", "c")` and `("a", "b__c")` both become `mcp__a__b__c`, so `assign` raises
`NameCollision` naming both pairs instead of letting one replace the other.

`mcp__my__server__a`, split on `__`, gives `["mcp", "my", "server", "a"]`: a splitter
would have to guess, and the obvious guess (second part is the server) says server `my`,
tool `server__a`. `NameMap.resolve` looks the name up in the map `assign` built, so it
returns `("my__server", "a")`, the pair the name was made from.
"""

from expect import equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Call `harness.naming.assign([("a__b", "c"), ("a", "b__c")])` and catch '
    '`harness.errors.NameCollision`; `assign(...).resolve(name)` maps a name back.'
)


def solve(env):
    from harness import naming
    from harness.errors import NameCollision

    try:
        naming.assign([("a__b", "c"), ("a", "b__c")])
        collision = None
    except NameCollision as exc:
        collision = str(exc)
    name = "mcp__my__server__a"
    split = name.split("__")
    return {
        "collision": collision,
        "resolved": naming.assign([("my__server", "a")]).resolve(name),
        "split_guess": (split[1], "__".join(split[2:])),
    }


def check(result):
    equal(result["collision"], "'mcp__a__b__c' would name both server 'a__b' tool 'c' and server 'a' tool 'b__c'",
          "the collision")
    equal(result["resolved"], ("my__server", "a"), "the name resolved to (server, tool)")
    equal(result["split_guess"], ("my", "server__a"), "splitting on '__' to guess (server, tool)")


def wrong(result):
    return {**result, "resolved": result["split_guess"]}  # guessing by splitting instead of resolving
