"""Three titles come back; the fourth call fails before the user is even asked:
`server 'desk' has used its 3 sampling requests for this run`. The server asked, and the
harness refused: the model's budget is the user's, not the server's.

`elicit.Sampler` allows each server `max_requests` samples per run (3) and `max_tokens`
per sample (1000), whatever the server asks for. The setting is where code.py makes the
sampler: `elicit.Sampler(run.model, asker, script, max_requests=4)` lets the fourth one
through. The scenario here asks four times, with a `yes` and a sample for each; the
fourth pair of answers is left unused, because nobody is asked.
"""

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    assert run.code == 0, run.text
    asked = [line for line in run.lines if line.startswith("  ?? desk asks: sampling:")]
    assert len(asked) == 3, asked
    titles = [line for line in run.lines if line.startswith("  <- suggested title: ")]
    assert len(titles) == 3, titles
    fourth = run.lines.index("assistant> And a fourth.")
    assert run.lines[fourth + 2] == ("  <! server 'desk': tool 'suggest_title': protocol error -1: "
                                     "server 'desk' has used its 3 sampling requests for this run"), run.lines[fourth:fourth + 3]
