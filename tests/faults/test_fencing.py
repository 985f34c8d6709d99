"""Another writer changes this job's stored offsets: the running driver must stop, fenced,
without committing anything more."""

from datetime import datetime

import produce
import pytest

from app.errors import EXIT_FENCED
from tests.support import catch_up, error_log, query, stored_offsets, unique

START = datetime(2032, 2, 28, 12, 0)
pytestmark = pytest.mark.slow


def test_offsets_changed_behind_a_running_job_fence_it(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    first = produce.generate(1500, seed=21, start=START, minutes=10)
    produce.produce(topic, first)
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)
    assert error_log(admin) == produce.expected_counts(first)

    # What a second instance would have done: committed a batch of partition 1 on its own.
    tampered = stored_offsets(admin, job, topic)
    tampered[1] += 5
    query(admin, "UPDATE kafka_offsets SET next_offset = %s WHERE job = %s AND topic = %s AND kafka_partition = 1",
          (tampered[1], job, topic))
    produce.produce(topic, produce.generate(600, seed=22, start=START, minutes=10))

    assert driver.wait(120) == EXIT_FENCED, driver.log()[-3000:]
    assert "another instance is writing this job" in driver.log()
    assert error_log(admin) == produce.expected_counts(first)  # nothing of the second lot
    assert stored_offsets(admin, job, topic) == tampered
