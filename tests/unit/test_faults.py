"""The fault hooks tests interrupt the job through: inert unless asked, firing once at the Nth
time, and a kill during a Spark job lands while it runs (or else before the block is left)."""

import threading

import pytest

from errorcount import faults
from errorcount.errors import ConfigError


def test_fault_hooks_are_inert_by_default_and_fire_once_at_the_nth_time():
    assert faults.from_env({}) is faults.NO_FAULTS
    assert not any(faults.NO_FAULTS.lose_commit("commit_lost_applied") for _ in range(5))
    hooks = faults.from_env({faults.ENV: "commit_lost_applied@3"})
    assert [hooks.lose_commit("commit_lost_applied") for _ in range(5)] == [False, False, True, False, False]
    assert not hooks.lose_commit("commit_lost_unapplied")
    with pytest.raises(faults.InjectedFailure):
        faults.from_env({faults.ENV: "query_fails"}).fail("query_fails")
    with pytest.raises(ConfigError, match="expected POINT or POINT@N"):
        faults.from_env({faults.ENV: "before_comit"})


def test_kill_during_a_job_lands_while_it_runs_or_else_before_the_block_is_left():
    kills, killed = [], threading.Event()

    def die():
        kills.append("kill")
        killed.set()

    hooks = faults.Faults("during_spark_job", kill=die)
    job = threading.Event()
    with hooks.killed_during("during_spark_job", job.is_set):
        job.set()  # the watcher polls until it sees the job running
        assert killed.wait(10), "the watcher never killed"
        kills.append("job ended")
    assert kills[:2] == ["kill", "job ended"]

    kills.clear()
    with faults.Faults("during_spark_job", kill=die).killed_during("during_spark_job", lambda: False):  # a fresh driver
        kills.append("job ended")
    assert kills == ["job ended", "kill"]  # never seen running: the kill still precedes what follows

    with hooks.killed_during("during_spark_job", job.is_set):  # fired already: inert
        kills.clear()
    assert kills == []
