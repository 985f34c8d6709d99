"""The driver dies at each point of the commit path (test-only hook ERRORCOUNT_FAULT); what MySQL
holds must always be exactly the records below the stored offsets, and a restart must finish exact."""

import re
from datetime import datetime

import kafka_admin
import produce
import pytest

from tests.support import Produced, catch_up, error_log, ledger, stored_offsets, unique

START = datetime(2033, 7, 1, 8, 0)
SIGKILLED = 128 + 9
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("point, batches_stored", [
    ("before_transaction", 0),
    ("before_commit@2", 1),
    ("after_commit@2", 2),
    ("during_spark_job@2", 1),
])
def test_crash_then_restart_is_exact(point, batches_stored, clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(1500, seed=31, start=START, minutes=20))
    crashing = start_driver(job, topic, env={"ERRORCOUNT_FAULT": point, "MAX_OFFSETS_PER_TRIGGER": "500"})
    assert crashing.wait(240) == SIGKILLED, crashing.log()[-3000:]

    stored = stored_offsets(admin, job, topic)
    assert ledger(admin, job)[0] == batches_stored
    assert ledger(admin, job)[1] == sum(stored.values())  # the ledger accounts for every stored offset
    assert error_log(admin) == produced.counts_below(stored)  # nothing half-committed

    restarted = start_driver(job, topic, env={"MAX_OFFSETS_PER_TRIGGER": "500"})
    catch_up(admin, job, topic, restarted, "the restarted job to catch up")
    assert error_log(admin) == produced.total()
    assert ledger(admin, job)[1] == 1500
    assert restarted.stop() == 0


@pytest.mark.parametrize("point, resolution", [
    ("commit_lost_applied@2", "the commit had been applied; carrying on"),
    ("commit_lost_unapplied@2", "was not stored"),
])
def test_commit_with_unknown_outcome_is_resolved_in_the_driver(point, resolution, clean_error_log, make_topic,
                                                               start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(1500, seed=32, start=START, minutes=20))
    driver = start_driver(job, topic, env={"ERRORCOUNT_FAULT": point, "MAX_OFFSETS_PER_TRIGGER": "500"})
    catch_up(admin, job, topic, driver)
    assert resolution in driver.log()
    assert error_log(admin) == produced.total()
    batches = len(re.findall(r"batch \d+: records=", driver.log()))
    assert ledger(admin, job)[:2] == (batches, 1500)  # each batch stored exactly once
    assert stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic)
    assert driver.stop() == 0
