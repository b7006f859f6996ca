"""The second run finds a file in the store whose tokens are still valid, so the first
connect sends a Bearer the server takes: docs is `connected` at once, and the lesson
plays `signed_in.yaml`. Two things make that work: `--token-store DIR` keeps the tokens,
and `DIR/server` lets the servers keep their ports and the authorization server its
clients and tokens, as a real server that stays up would.

The line that would break it if the port changed is the store's key, in
`TokenStore.__init__`: `self.key = hashlib.sha256(f"{server}|{identity(url)}"...)`. The
URL is part of the key on purpose (a token minted for one endpoint must never be sent
to another), so a server on another port looks up another file, finds nothing, and
signs in again. `identity` only removes differences that do not change the endpoint:
letter case in scheme and host, a default port.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "`harness.auth.TokenStore(folder, server, url).path.name` is the file a server's tokens go to; "
    'try it for the URLs of the exercise.'
)


def solve(env):
    import tempfile
    from pathlib import Path

    from harness.auth import TokenStore

    with tempfile.TemporaryDirectory() as store:
        def name(url):
            return TokenStore(Path(store), "docs", url).path.name
        return {
            "same": name("http://127.0.0.1:5000/mcp"),
            "again": name("http://127.0.0.1:5000/mcp"),
            "other_port": name("http://127.0.0.1:5001/mcp"),
            "spelled_differently": (name("HTTPS://Example.COM:443/mcp"), name("http://example.com/mcp"), name("https://example.com/mcp")),
        }


def check(result):
    that(result["same"] == result["again"] and result["same"].startswith("docs-"),
         "one URL to name the same 'docs-...' file twice", show((result["same"], result["again"])))
    that(result["other_port"] != result["same"], "another port to name another file", "the same file")
    upper, plain_http, https = result["spelled_differently"]
    equal(upper, https, "HTTPS://Example.COM:443 to name the file of https://example.com:")
    that(plain_http != https, "http and https to name two files", "one file")


def wrong(result):
    return {**result, "other_port": result["same"]}  # one file for every port
