"""The job's first start is stored with its first epoch, in one transaction (Store.acquire_lease): a
driver killed right after it took the job's first lease, with STARTING_OFFSETS=latest, leaves where
the job starts stored, so the next start counts every record written after the first start and none
written before it. A lease found without a stored start (an earlier version stored the two apart) is
said at WARNING. docs/design.md "Where each partition starts", rows 1 and 19."""

from datetime import datetime

import pytest

from errorcount.tools import kafka_admin
from tests.support import query

START = datetime(2034, 2, 2, 2, 0)
SIGKILLED = 128 + 9
LATEST = {"STARTING_OFFSETS": "latest"}
pytestmark = pytest.mark.slow


@pytest.mark.mysql
def test_a_driver_killed_right_after_its_first_lease_leaves_its_first_start_stored(scenario):
    run = scenario(2, START)
    run.write(400, seed=61, minutes=10)  # before the job's first start: 'latest' leaves them out
    first_start = kafka_admin.end_offsets(run.topic)
    killed = run.driver(env={**LATEST, "ERRORCOUNT_FAULT": "after_lease"})  # SIGKILLed once its lease is committed
    assert killed.wait(240) == SIGKILLED, killed.log()[-3000:]
    assert run.epoch() == 1 and run.offsets() == first_start  # the first start was stored with the epoch

    run.write(300, seed=62, minutes=10)  # while the job is down, after its first start
    restarted = run.caught_up_driver("the restarted job to catch up", env=LATEST)
    after = run.produced.counts_where(lambda partition, offset: offset >= first_start[partition])
    assert after and run.counts() == after
    assert run.ledger()[1] == 300
    assert "no start was ever stored" not in restarted.log()
    assert restarted.stop() == 0


def test_a_lease_without_a_stored_start_is_said_at_warning(scenario):
    run = scenario(1, START)
    run.write(100, seed=63, minutes=5)
    # What a driver of an earlier version left when it died between its first lease and its start.
    query(run.admin, "INSERT INTO job_leases (job, epoch, owner, acquired_at) VALUES (%s, 1, %s, %s)",
          (run.job, "old-host pid 1 app local-1", datetime(2034, 2, 1, 12, 30, 5)))
    driver = run.caught_up_driver(env=LATEST)
    warning = ("WARNING errorcount.supervisor: the job's lease exists (epoch 1 taken 2034-02-01 12:30:05 UTC by "
               "old-host pid 1 app local-1) but no start was ever stored")
    assert warning in driver.log()
    assert "STARTING_OFFSETS=latest applies now, as at a first start: records written to the topics between that " \
           "start and now are not counted" in driver.log()
    assert run.epoch() == 2 and run.counts() == {} and run.offsets() == kafka_admin.end_offsets(run.topic)
    assert driver.stop() == 0
