"""Claude Code's rule needs two things: status 404 *and* `"code":-32001` in the body. The
pinned run's 404 body (the SDK's server) carries `-32600`, so that rule would not
recognize it, and the session would stay broken. The harness's rule needs only what the
spec says: a 404 to a request that carried our session id. Servers disagree on the
JSON-RPC code (or send plain text), while the status is fixed by the spec, so checking
the status is both simpler and right more often. The error frame is read here from the
pinned frames file, the same file the snapshot test compares.
"""


def claude_code_would_retry(status, body):
    return status == 404 and '"code":-32001' in body.replace(" ", "")


def harness_would_retry(status, sent_our_session):
    return status == 404 and sent_our_session


def solve(env):
    import json
    from pathlib import Path

    frames = Path(__file__).resolve().parents[3] / "tests" / "snapshots" / "s25" / "default.frames"
    errors = [json.loads(line)["message"] for line in frames.read_text(encoding="utf-8").splitlines() if '"error"' in line]
    body = json.dumps({"jsonrpc": "2.0", "id": "server-1", "error": errors[0]["error"]})
    return errors[0]["error"], claude_code_would_retry(404, body), harness_would_retry(404, True)


def check(result):
    error, claude_code, harness = result
    assert error["code"] == -32600 and "Session not found" in error["message"], error
    assert claude_code is False, "Claude Code's check would miss this 404"
    assert harness is True
