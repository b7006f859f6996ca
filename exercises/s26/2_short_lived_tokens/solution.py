"""A token that lives 60 s is counted as expired once `min(300, 60 / 2)` = 30 s remain, so
the harness refreshes it 30 s after it was issued. (The lesson's clock jump of an hour
makes it refresh on the next request either way.)

With Claude Code's flat 300 s, a 60 s token would count as expired the moment it
arrives: every request would refresh first, doubling the traffic and rotating the
refresh token on each call. Half the lifetime keeps a short-lived token useful for half
its life; 300 s still applies to long-lived ones (3,600 s: refreshed at 300 s left).
"""

from expect import equal  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`harness.auth.refresh_margin(lifetime)` is how long before expiry a token is refreshed; '
    '`harness.auth.REFRESH_MARGIN` is the flat margin it replaces.'
)


def solve(env):
    from harness.auth import REFRESH_MARGIN, refresh_margin

    return {lifetime: refresh_margin(lifetime) for lifetime in (60, 600, 3600)}, REFRESH_MARGIN


def check(result):
    margins, flat = result
    equal(flat, 300, "the flat margin (s)")
    equal(margins[60], 30, "a 60 s token's margin (s)")
    equal((margins[600], margins[3600]), (300, 300), "the margins of 600 s and 3600 s tokens (s)")


def wrong(result):
    margins, flat = result
    return {lifetime: flat for lifetime in margins}, flat  # the flat margin for every lifetime
