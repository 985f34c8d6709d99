"""Records the job never read are deleted (what retention does): by default the job stops and says
what was lost and how to proceed; ON_DATA_LOSS=skip resumes and records the skipped range."""

from datetime import datetime

import pytest

from errorcount.errors import EXIT_DATA_LOSS
from errorcount.testkit import samples
from errorcount.tools import kafka_admin
from tests.support import query

START = datetime(2036, 2, 29, 23, 50)
pytestmark = [pytest.mark.slow, pytest.mark.mysql]


def test_deleted_unread_records_stop_the_job_until_skipping_is_allowed(scenario):
    run = scenario(2, START)
    run.write(400, seed=71, minutes=20)
    assert run.caught_up_driver().stop() == 0

    run.write(400, seed=72, minutes=20)
    stored = run.offsets()
    kafka_admin.delete_records(run.topic, {0: stored[0] + 150})  # 150 unread records of partition 0 vanish
    failing = run.driver()
    assert failing.wait(120) == EXIT_DATA_LOSS
    message = failing.log()
    assert f"partition 0: stored next offset {stored[0]}, earliest available {stored[0] + 150}" in message
    assert f"topic {run.topic!r}" in message and "ON_DATA_LOSS=skip" in message
    assert run.offsets() == stored  # nothing moved

    skipping = run.caught_up_driver("the skipping job to catch up", env={"ON_DATA_LOSS": "skip"})
    lost = {(0, o) for o in range(stored[0], stored[0] + 150)}
    assert run.counts() == samples.expected_counts([e for p, o, e in run.produced.placed if (p, o) not in lost])
    rows = query(run.admin, "SELECT kafka_partition, from_offset, to_offset FROM skipped_offsets WHERE job = %s",
                 (run.job,))
    assert [tuple(map(int, row)) for row in rows] == [(0, stored[0], stored[0] + 150)]
    assert skipping.stop() == 0
