"""The driver dies at each point of the commit path (test-only hook ERRORCOUNT_FAULT); what MySQL
holds must always be exactly the records below the stored offsets (errors, and with GROUP_BY and
COUNT_LINES the lines, per minute and series), and a restart must finish exact."""

from datetime import datetime

import pytest

from errorcount.observe import logline
from errorcount.tools import kafka_admin, samples

START = datetime(2033, 7, 1, 8, 0)
SIGKILLED = 128 + 9
SMALL_BATCHES = {"MAX_OFFSETS_PER_TRIGGER": "500"}
GROUP_BY = "field:service.name,level"
# json events counted by service and level, every line too (COUNT_LINES)
GROUPED = {**samples.FORMATS["json"].settings, "GROUP_BY": GROUP_BY, "COUNT_LINES": "true"}
pytestmark = pytest.mark.slow


# A kill before COMMIT leaves the server a transaction to roll back: that one on MySQL 8 too; the
# others differ only in where the driver dies (docs/testing.md, "Both servers").
@pytest.mark.parametrize("point, batches_stored, grouped", [
    ("before_transaction", 0, False),
    pytest.param("before_commit@2", 1, True, marks=pytest.mark.mysql),
    ("after_commit@2", 2, False),
    ("during_spark_job@2", 1, True),
])
def test_crash_then_restart_is_exact(point, batches_stored, grouped, scenario, tmp_path):
    run = scenario(3, START, "json" if grouped else "app")
    run.write(1500, seed=31, minutes=20)
    temp = {"TMPDIR": str(tmp_path), **SMALL_BATCHES, **(GROUPED if grouped else {})}  # TMPDIR: the drivers' checkpoints
    crashing = run.driver(env={"ERRORCOUNT_FAULT": point, **temp})
    assert crashing.wait(240) == SIGKILLED, crashing.log()[-3000:]
    left_behind = list(tmp_path.glob("errorcount-checkpoint-*"))
    assert len(left_behind) == 1, left_behind

    stored = run.offsets()
    assert run.ledger()[0] == batches_stored
    assert run.ledger()[1] == sum(stored.values())  # the ledger accounts for every stored offset
    assert run.counts() == run.produced.counts_below(stored)  # nothing half-committed
    if grouped:
        assert run.series(GROUP_BY) == run.produced.series_below(stored, GROUP_BY)
        assert run.lines() == run.produced.lines_below(stored)
        assert run.series_lines(GROUP_BY) == run.produced.series_lines_below(stored, GROUP_BY)

    restarted = run.caught_up_driver("the restarted job to catch up", env=temp)
    assert run.counts() == run.produced.total()
    if grouped:
        assert run.series(GROUP_BY) == run.produced.series_below(None, GROUP_BY)
        assert run.lines() == run.produced.lines_below(None)
        assert run.series_lines(GROUP_BY) == run.produced.series_lines_below(None, GROUP_BY)
    assert run.ledger()[1] == 1500
    assert not any(path.exists() for path in left_behind)  # the killed driver's checkpoint swept up
    assert restarted.stop() == 0
    assert not list(tmp_path.glob("errorcount-checkpoint-*"))  # a clean stop removes its own


@pytest.mark.parametrize("point, resolution", [
    ("commit_lost_applied@2", "the commit had been applied; carrying on"),
    ("commit_lost_unapplied@2", "was not stored"),
])
@pytest.mark.mysql  # how a lost COMMIT is resolved reads the server's state
def test_commit_with_unknown_outcome_is_resolved_in_the_driver(point, resolution, scenario):
    run = scenario(3, START, "json")
    run.write(1500, seed=32, minutes=20)
    driver = run.caught_up_driver(env={"ERRORCOUNT_FAULT": point, **SMALL_BATCHES, **GROUPED})
    assert resolution in driver.log()
    assert run.counts() == run.produced.total()
    assert run.series(GROUP_BY) == run.produced.series_below(None, GROUP_BY)  # no series counted twice or lost
    assert run.lines() == run.produced.lines_below(None)
    assert run.series_lines(GROUP_BY) == run.produced.series_lines_below(None, GROUP_BY)
    batches = len(logline.parse(driver.log()))
    assert run.ledger()[:2] == (batches, 1500)  # each batch stored exactly once
    assert run.offsets() == kafka_admin.end_offsets(run.topic)
    assert driver.stop() == 0
