"""Every deploy process now dies on its first call. Following the `state:` lines with two
turns: the first process connects at start and dies on turn 1's call (`connected ->
failed -> pending: retry 1 in 1 s`); turn 2's call cuts the wait short, a second process
connects and dies on that call too; the run stops after two turns, and the user's
by-hand reconnect starts a third, which is connected when the hub closes. Three `->
connected` lines for deploy: three processes, each `${PYTHON}` expanded again. Nothing
loops on its own: a reconnect happens on a wait that ends, on the next call, or by hand.
"""

from expect import count, has_line, starting  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'deploy\'s `args` in `lessons/s28/cline_mcp_settings.json` end with `"--crash-after", "1"` (calls '
    'before it exits); 0 crashes it before any call.'
)

EDITS = {
    "lessons/s28/cline_mcp_settings.json": [(
        '"--crash-after", "1"]',
        '"--crash-after", "0"]',
    )],
}
RUN = ("--max-turns", "2")
SLOW = True


def check(run):
    connected = [line for line in run.lines if line.startswith("state: deploy: ") and "-> connected" in line]
    count(connected, 3, "times deploy connected (state: deploy: ... -> connected)")
    count(starting(run, "state: deploy: connected -> failed"), 2, "crashes of deploy")
    has_line(run, "warning: stopped after 2 turns without a final answer")
