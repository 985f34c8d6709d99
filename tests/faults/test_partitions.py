"""Partitions added while the job runs and while it is stopped are counted from their first offset."""

from datetime import datetime

import kafka_admin
import produce
import pytest

from tests.support import Produced, catch_up, error_log, ledger, unique

START = datetime(2035, 6, 1, 12, 0)
pytestmark = pytest.mark.slow


def test_new_partitions_are_counted_exactly_once(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=2), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(600, seed=61, start=START, minutes=5))
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)

    kafka_admin.add_partitions(topic, 4)  # while running
    produced.add(produce.generate(800, seed=62, start=START, minutes=5))
    catch_up(admin, job, topic, driver, "the job to pick up partitions 2 and 3")
    assert error_log(admin) == produced.total()
    assert driver.stop() == 0

    kafka_admin.add_partitions(topic, 6)  # while stopped
    produced.add(produce.generate(600, seed=63, start=START, minutes=5))
    restarted = start_driver(job, topic)
    catch_up(admin, job, topic, restarted, "the restarted job to catch up")
    assert error_log(admin) == produced.total()
    assert ledger(admin, job)[1] == 2000  # every record, old and new partitions, exactly once
    assert restarted.stop() == 0
