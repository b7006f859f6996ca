"""Three titles come back; the fourth call fails before the user is even asked:
`server 'desk' has used its 3 sampling requests for this run`. The server asked, and the
harness refused: the model's budget is the user's, not the server's.

`elicit.Sampler` allows each server `max_requests` samples per run (3) and `max_tokens`
per sample (1000), whatever the server asks for. The setting is where code.py makes the
sampler: `elicit.Sampler(run.model, asker, script, max_requests=4)` lets the fourth one
through. The scenario here asks four times, with a `yes` and a sample for each; the
fourth pair of answers is left unused, because nobody is asked.
"""

from expect import equal, exit_code, line_at, starting  # exercises/expect.py: a failed check says what it expected and found

HINT = (
    'Copy `lessons/s33/scenario.yaml` and call `mcp__desk__suggest_title` four times; the sampling '
    'limit per server is in `harness/elicit.py`.'
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    starting(run, "  ?? desk asks: sampling:", 3)
    starting(run, "  <- suggested title: ", 3)
    fourth = line_at(run, "assistant> And a fourth.")
    equal(run.lines[fourth + 2], "  <! server 'desk': tool 'suggest_title': protocol error -1: "
          "server 'desk' has used its 3 sampling requests for this run", "the fourth call's result")
