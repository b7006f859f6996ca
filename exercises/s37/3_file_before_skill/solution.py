"""The first read is refused before anything is sent: a skill's files are read only once its
SKILL.md has been loaded (and verified), so the model cannot pick a file out of a skill it
has not read the instructions of, and nothing of the skill is fetched ahead of the load. The
refusal says what to do; the model loads the skill (the user answers the trust question
"yes", this time only), and the same read then goes through. No `always` was given, so a
second skill of forms would be asked about again.
"""

from expect import exit_code, has_line, starting  # exercises/expect.py: expected, found

HINT = (
    "Write a scenario whose first turn calls `load_skill` with `file` before loading the skill, then loads it and "
    "reads the file again; run `python lessons/s37/code.py --scenario YOUR_FILE` (`Loader.call` in `harness/skilltool.py`)."
)

RUN = ("--scenario", "{here}/scenario.yaml")
SLOW = True


def check(run):
    exit_code(run, 0)
    has_line(run, "  <! load_skill: load forms:pdf-forms first (without file), then read its files")
    has_line(run, "  ?? load_skill forms:pdf-forms: server 'forms' is not trusted for skills: asked, scripted answered yes")
    starting(run, "  <- forms:pdf-forms: references/FIELDS.md", 1)
