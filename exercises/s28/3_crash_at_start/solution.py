"""Every deploy process now dies on its first call. Following the `state:` lines with two
turns: the first process connects at start and dies on turn 1's call (`connected ->
failed -> pending: retry 1 in 1 s`); turn 2's call cuts the wait short, a second process
connects and dies on that call too; the run stops after two turns, and the user's
by-hand reconnect starts a third, which is connected when the hub closes. Three `->
connected` lines for deploy: three processes, each `${PYTHON}` expanded again. Nothing
loops on its own: a reconnect happens on a wait that ends, on the next call, or by hand.
"""

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
    assert len(connected) == 3, "\n".join(connected) or run.text
    crashed = [line for line in run.lines if line.startswith("state: deploy: connected -> failed")]
    assert len(crashed) == 2, crashed
    assert "warning: stopped after 2 turns without a final answer" in run.lines, run.text
