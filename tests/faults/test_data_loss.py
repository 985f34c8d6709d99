"""Records the job never read are gone when it starts (retention, a truncated log, a partition
added and trimmed while it was stopped): the job stops and names every range and how to proceed;
ON_DATA_LOSS=skip goes on without counting anything twice and records each range by kind. The
expectation is a plain-Python count of the records the rule says are counted."""

from datetime import datetime

import pytest

from errorcount.errors import EXIT_DATA_LOSS
from errorcount.tools import kafka_admin, samples
from tests.support import query

START = datetime(2036, 2, 29, 23, 50)
# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow


def test_records_gone_at_a_start_stop_the_job_naming_each_range_until_skipped(scenario):
    run = scenario(3, START)
    run.write(600, seed=71, minutes=20)
    assert run.caught_up_driver().stop() == 0
    stored = run.offsets()  # 200 per partition
    run.write(600, seed=72, minutes=20)  # 200 more per partition, never read

    # Partition 0: retention deletes 150 records the job never read.
    kafka_admin.delete_records(run.topic, {0: stored[0] + 150})
    # Partition 1: its log ends below what the job counted, under the same topic ID (an unclean leader
    # election; simulated as the issue does, by moving the stored offset past the end).
    end1 = kafka_admin.end_offsets(run.topic)[1]
    beyond = end1 + 500
    query(run.admin, "UPDATE kafka_offsets SET next_offset = %s WHERE job = %s AND kafka_partition = 1", (beyond, run.job))
    # Partition 3: added while the job is stopped; 100 lines, the first 40 deleted before the job is back.
    kafka_admin.add_partitions(run.topic, 4)
    run.produced.add_to(3, samples.generate("app", 100, seed=73, start=START, minutes=20))
    kafka_admin.delete_records(run.topic, {3: 40})
    # The rows as a start that missed the topic in a listing leaves them (given up, under the same
    # ID): a topic back with its ID resumes from them (partition 2 must not be read from 0 again).
    query(run.admin, "UPDATE kafka_offsets SET topic_id = CONCAT('deleted:', topic_id) WHERE job = %s", (run.job,))
    rows = "SELECT kafka_partition, next_offset, topic_id FROM kafka_offsets WHERE job = %s ORDER BY kafka_partition"
    before = (query(run.admin, rows, (run.job,)), run.counts())

    refused = run.driver()
    assert refused.wait(120) == EXIT_DATA_LOSS, refused.log()[-3000:]
    message = refused.log()
    for named in (f"topic {run.topic!r} partition 0 (retention): offsets {stored[0]} to {stored[0] + 150}",
                  f"topic {run.topic!r} partition 1 (truncated): stored next offset {beyond}, partition end {end1}",
                  f"topic {run.topic!r} partition 3 (new_partition): offsets 0 to 40", "ON_DATA_LOSS=skip"):
        assert named in message
    assert "partition 2 (" not in message
    assert (query(run.admin, rows, (run.job,)), run.counts()) == before  # nothing changed

    skipping = run.caught_up_driver("the skipping job to catch up", env={"ON_DATA_LOSS": "skip"})
    run.write(400, seed=74, minutes=20)  # and what comes after is counted on every partition
    run.catch_up(skipping)

    def counted(partition: int, offset: int) -> bool:
        return {0: offset < stored[0] or offset >= stored[0] + 150,
                1: offset < stored[1] or offset >= end1,  # never twice: resumed at the end, not at 0
                2: True, 3: offset >= 40}[partition]
    assert run.counts() == run.produced.counts_where(counted)
    rows = query(run.admin, "SELECT kafka_partition, kind, from_offset, to_offset FROM skipped_offsets WHERE job = %s "
                            "ORDER BY kafka_partition", (run.job,))
    assert [(int(p), k, int(f), int(t)) for p, k, f, t in rows] == [
        (0, "retention", stored[0], stored[0] + 150), (1, "truncated", beyond, end1), (3, "new_partition", 0, 40)]
    assert skipping.stop() == 0
