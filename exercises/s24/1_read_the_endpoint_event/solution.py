"""The first thing on the event stream is the `endpoint` event: its `data` is the path to
POST every frame to, `/messages/?session_id=...`. The session id in it is what ties the
POSTs to this GET stream, and it is a secret: whoever holds it can post into the session,
which is why the harness prints it as a placeholder. `curl -N` (no buffering) shows it as
soon as the server sends it; here Python's `urllib` reads the same lines. Nothing else
arrives until a frame is posted: every answer comes back on this stream.
"""

from expect import equal, show, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    '`mock_servers.launch.serve_http("docs", "sse")` starts the server and gives its URL; read the '
    'first two non-empty lines of a `urllib.request.urlopen(url)` stream.'
)

SLOW = True


def solve(env):
    import urllib.request

    import anyio

    from mock_servers.launch import serve_http

    async def main():
        async with serve_http("docs", "sse") as url:  # python -m mock_servers.docs --transport sse --port 0

            def first_event():
                lines = []
                with urllib.request.urlopen(url, timeout=10) as stream:  # GET /sse, held open
                    while len(lines) < 2:
                        line = stream.readline().decode().strip()
                        if line:
                            lines.append(line)
                return url, lines

            return await anyio.to_thread.run_sync(first_event)

    return anyio.run(main)


def check(result):
    url, (event, data) = result
    that(url.endswith("/sse"), "the stream's URL to end in /sse", show(url))
    equal(event, "event: endpoint", "the first line")
    that(data.startswith("data: /messages/?session_id=") and len(data) > len("data: /messages/?session_id="),
         "a second line 'data: /messages/?session_id=<id>'", show(data))


def wrong(result):
    url, (event, data) = result
    return url, ("event: message", data)
