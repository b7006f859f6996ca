"""harness.hub.local_limit: the floor model behind connect_all's local limit (issue 23, cause 5). No timing here."""

from harness import hub


def test_an_idle_machine_gets_cores_times_one_and_a_quarter():
    assert hub.local_limit(cores=2, load=0.0) == 3  # Claude Code's fixed number, by the model on 2 cores
    assert hub.local_limit(cores=8, load=0.0) == 10
    assert hub.local_limit(cores=1, load=0.0) == 3  # never fewer than Claude Code's 3


def test_other_work_on_the_machine_adds_slots_up_to_the_cap():
    assert hub.local_limit(cores=2, load=4.0) == 7
    assert hub.local_limit(cores=2, load=500.0) == hub.LOCAL_CAP


def test_the_default_limits_follow_the_model():
    assert hub.LIMITS["local"] == hub.local_limit(load=0.0)
    assert hub.LIMITS["remote"] == 20
