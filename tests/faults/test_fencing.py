"""Another writer changes this job's stored offsets: the running driver must stop, fenced,
without committing anything more."""

from datetime import datetime

import pytest

from errorcount.errors import EXIT_FENCED
from tests.support import query

START = datetime(2032, 2, 28, 12, 0)
pytestmark = [pytest.mark.slow, pytest.mark.mysql]


def test_offsets_changed_behind_a_running_job_fence_it(scenario):
    run = scenario(3, START)
    run.write(1500, seed=21)
    driver = run.caught_up_driver()
    counted = run.produced.total()
    assert run.counts() == counted

    # What a second instance would have done: committed a batch of partition 1 on its own.
    tampered = run.offsets()
    tampered[1] += 5
    query(run.admin, "UPDATE kafka_offsets SET next_offset = %s WHERE job = %s AND topic = %s AND kafka_partition = 1",
          (tampered[1], run.job, run.topic))
    run.write(600, seed=22)

    assert driver.wait(120) == EXIT_FENCED, driver.log()[-3000:]
    assert "another instance is writing this job" in driver.log()
    assert run.counts() == counted  # nothing of the second lot
    assert run.offsets() == tampered
