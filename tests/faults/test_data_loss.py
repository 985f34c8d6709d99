"""Records the job never read are deleted (what retention does): by default the job stops and says
what was lost and how to proceed; ON_DATA_LOSS=skip resumes and records the skipped range."""

from datetime import datetime

import kafka_admin
import produce
import pytest

from app.errors import EXIT_DATA_LOSS
from tests.support import Produced, catch_up, error_log, query, stored_offsets, unique

START = datetime(2036, 2, 29, 23, 50)
pytestmark = pytest.mark.slow


def test_deleted_unread_records_stop_the_job_until_skipping_is_allowed(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=2), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(400, seed=71, start=START, minutes=20))
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)
    assert driver.stop() == 0

    produced.add(produce.generate(400, seed=72, start=START, minutes=20))
    stored = stored_offsets(admin, job, topic)
    kafka_admin.delete_records(topic, {0: stored[0] + 150})  # 150 unread records of partition 0 vanish
    failing = start_driver(job, topic)
    assert failing.wait(120) == EXIT_DATA_LOSS
    message = failing.log()
    assert f"partition 0: stored next offset {stored[0]}, earliest available {stored[0] + 150}" in message
    assert f"topic {topic!r}" in message and "ON_DATA_LOSS=skip" in message
    assert stored_offsets(admin, job, topic) == stored  # nothing moved

    skipping = start_driver(job, topic, env={"ON_DATA_LOSS": "skip"})
    catch_up(admin, job, topic, skipping, "the skipping job to catch up")
    lost = {(0, o) for o in range(stored[0], stored[0] + 150)}
    assert error_log(admin) == produce.expected_counts([e for p, o, e in produced.placed if (p, o) not in lost])
    rows = query(admin, "SELECT kafka_partition, from_offset, to_offset FROM skipped_offsets WHERE job = %s", (job,))
    assert [tuple(map(int, row)) for row in rows] == [(0, stored[0], stored[0] + 150)]
    assert skipping.stop() == 0
