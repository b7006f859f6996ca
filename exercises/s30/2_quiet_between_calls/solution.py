"""The stack's pool (`harness/stack.py`) calls `show_logs` before each turn. Taken out of
there and called once after `run_agent` in code.py, the "index rebuilt" line moves to the end,
after the model's final answer, far from what caused it. In the lesson's version it comes
at the start of the next turn, right after the `publish_page` call that made the server
rebuild its index, before the model's next reply: a reader sees cause and effect
together, and knows what the server said *before* the model answered (a log message a
user needs to see, "disk almost full", must not wait until the end).
"""

from expect import exit_code, line_at, that  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    "`resources.show_logs(hub, transcript)` prints the servers' log messages; `harness/stack.py` "
    "calls it when the stack starts. Call it yourself in `lessons/s30/code.py` after the agent's run."
)

EDITS = {
    "harness/stack.py": [(
        """        resources.show_logs(built.hub, built.transcript)  # what servers said between calls, before this turn
""",
        """        pass  # the logs wait until the run is over
""",
    )],
    "lessons/s30/code.py": [(
        """                            run.transcript, run.args.max_turns)
""",
        """                            run.transcript, run.args.max_turns)
            resources.show_logs(stack.hub, run.transcript)  # only now: everything the servers said between calls
""",
    )],
}
RUN = ()
SLOW = True


def check(run):
    exit_code(run, 0)
    rebuilt = "log: handbook (info): index rebuilt: 3 pages"
    at = line_at(run, rebuilt)
    last_answer = max(i for i, line in enumerate(run.lines) if line.startswith("assistant> "))
    that(at > last_answer, "the log line after the final answer", f"it at line {at + 1}, before the answer at line {last_answer + 1}")
