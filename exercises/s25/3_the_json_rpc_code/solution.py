"""Claude Code's rule needs two things: status 404 *and* `"code":-32001` in the body. The
pinned run's 404 body (the SDK's server) carries `-32600`, so that rule would not
recognize it, and the session would stay broken. The harness's rule needs only what the
spec says: a 404 to a request that carried our session id. Servers disagree on the
JSON-RPC code (or send plain text), while the status is fixed by the spec, so checking
the status is both simpler and right more often. The error frame is read here from the
pinned frames file, the same file the snapshot test compares.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "The 404's body is in `tests/snapshots/s25/default.frames` (the frame with an `error`); Claude "
    'Code matches the code -32001 in the body, the harness only whether it sent a session id '
    '(`harness/expiry.py`).'
)


def claude_code_would_retry(status, body):
    return status == 404 and '"code":-32001' in body.replace(" ", "")


def harness_would_retry(status, sent_our_session):
    return status == 404 and sent_our_session


def solve(env):
    import json
    errors = [json.loads(line)["message"] for line in env.pinned("default.frames").splitlines() if '"error"' in line]
    body = json.dumps({"jsonrpc": "2.0", "id": "server-1", "error": errors[0]["error"]})
    return errors[0]["error"], claude_code_would_retry(404, body), harness_would_retry(404, True)


def check(result):
    error, claude_code, harness = result
    that(error["code"] == -32600 and "Session not found" in error["message"],
         "the error code -32600 with 'Session not found'", show(error))
    equal(claude_code, False, "Claude Code's check (code -32001 in the body) to retry:")
    equal(harness, True, "the harness (a 404 to the session it sent) to retry:")


def wrong(result):
    error, claude_code, harness = result
    return error, True, harness  # believing Claude Code's check catches it
