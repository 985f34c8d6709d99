"""Partitions added while the job runs and while it is stopped are counted from their first offset
(STARTING_OFFSETS=latest or not: it applies to the job's first start only)."""

from datetime import datetime

import pytest

from errorcount.tools import kafka_admin

START = datetime(2035, 6, 1, 12, 0)
pytestmark = pytest.mark.slow


def test_new_partitions_are_counted_exactly_once(scenario):
    run = scenario(2, START)
    run.write(600, seed=61, minutes=5)
    driver = run.caught_up_driver()

    kafka_admin.add_partitions(run.topic, 4)  # while running
    run.write(800, seed=62, minutes=5)
    run.catch_up(driver, "the job to pick up partitions 2 and 3")
    assert run.counts() == run.produced.total()
    assert driver.stop() == 0

    kafka_admin.add_partitions(run.topic, 6)  # while stopped
    run.write(600, seed=63, minutes=5)
    # STARTING_OFFSETS=latest applies to the job's first start only: partitions 4 and 5 already
    # hold records, and they count.
    restarted = run.caught_up_driver("the restarted job to catch up", env={"STARTING_OFFSETS": "latest"})
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == 2000  # every record, old and new partitions, exactly once
    assert restarted.stop() == 0
