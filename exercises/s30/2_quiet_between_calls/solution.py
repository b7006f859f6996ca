"""The stack's pool (`harness/stack.py`) calls `show_logs` before each turn. Taken out of
there and called once after `run_agent` in code.py, the "index rebuilt" line moves to the end,
after the model's final answer, far from what caused it. In the lesson's version it comes
at the start of the next turn, right after the `publish_page` call that made the server
rebuild its index, before the model's next reply: a reader sees cause and effect
together, and knows what the server said *before* the model answered (a log message a
user needs to see, "disk almost full", must not wait until the end).
"""

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
    assert run.code == 0, run.text
    rebuilt = "log: handbook (info): index rebuilt: 3 pages"
    assert rebuilt in run.lines, run.text
    last_answer = max(i for i, line in enumerate(run.lines) if line.startswith("assistant> "))
    assert run.lines.index(rebuilt) > last_answer, "the log now comes after the final answer"
