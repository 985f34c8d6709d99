"""Exact where the job knows many partitions and topics: a pattern over 50 topics, one of them of 512
partitions, counted exactly through a SIGKILL of its driver right after its first commit
(ERRORCOUNT_FAULT=after_commit) and a restart. The expectations are the written lines' own counts;
the ledger accounts for every record of every topic. One driver pair for both sizes, kept short: a
few lines per partition."""

from datetime import datetime

import pytest

from errorcount.tools import kafka_admin, produce, samples
from tests.support import error_log, query, stored_offsets, unique, wait_until

START = datetime(2035, 3, 3, 3, 0)
SIGKILLED = 128 + 9
WIDE = 512  # partitions of one of the topics
pytestmark = pytest.mark.slow


def test_a_pattern_over_50_topics_one_of_512_partitions_is_counted_exactly_through_a_kill(clean_error_log, start_driver):
    admin, prefix, job = clean_error_log, unique("wide"), unique("job")
    topics = [f"{prefix}.t{number:02d}" for number in range(50)]
    partitions = {topic: WIDE if number == 0 else 2 for number, topic in enumerate(topics)}
    written: dict[str, list[samples.Event]] = {}
    try:
        kafka_admin.create_topics(partitions)  # one request: a topic at a time took ~0.6 s each
        writers = [produce.Writer(topic, partitions[topic]) for topic in topics]
        for number, (topic, writer) in enumerate(zip(topics, writers, strict=True)):
            lines = 4 * WIDE if partitions[topic] == WIDE else 60  # the wide topic: 4 a partition
            written[topic] = samples.generate("app", lines, seed=100 + number, start=START, minutes=10)
            for index, event in enumerate(written[topic]):
                writer.send(event.value, index)
        for writer in writers:
            writer.flush()
        total = sum(map(len, written.values()))
        env = {"MAX_OFFSETS_PER_TRIGGER": "2500", "KAFKA_TOPIC_PATTERN": rf"{prefix}\.t\d+"}  # 2 batches: killed after the first
        killed = start_driver(job, "", env={**env, "ERRORCOUNT_FAULT": "after_commit"}, create_topic=False)
        assert killed.wait(240) == SIGKILLED, killed.log()[-3000:]
        assert killed.log().count("STARTING_OFFSETS=earliest") == 1, killed.log()[-3000:]  # one line for 50 topics
        records = query(admin, "SELECT COALESCE(SUM(records), 0) FROM ingest_batches WHERE job = %s", (job,))[0][0]
        assert 0 < records < total

        for topic in topics[::7]:  # more while it was down, to some of them (the wide one: one a partition)
            more = samples.generate("app", partitions[topic] if topic == topics[0] else 20,
                                    seed=200 + topics.index(topic), start=START, minutes=10)
            produce.produce(topic, more, partitions[topic])
            written[topic] += more
        restarted = start_driver(job, "", env=env, create_topic=False)
        wait_until(lambda: restarted.check_alive() or all(
            stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic) for topic in topics), 240,
            "the restarted job to catch up on 50 topics")
        everything = [event for events in written.values() for event in events]
        assert error_log(admin) == samples.expected_counts(everything)
        ledger = query(admin, "SELECT topic, SUM(records) FROM ingest_batches WHERE job = %s GROUP BY topic", (job,))
        assert {topic: int(n) for topic, n in ledger} == {topic: len(events) for topic, events in written.items()}
        assert len(stored_offsets(admin, job, topics[0])) == WIDE
        assert f"50 topics ({WIDE + 49 * 2} partitions)" in restarted.log()  # the start's summary line, not one per topic
        # 2 500 records a batch over 610 partitions: the start warns that Spark's per-partition cost dominates
        assert f"MAX_OFFSETS_PER_TRIGGER=2500 over {WIDE + 49 * 2} partitions reads at most {2500 // (WIDE + 49 * 2)} " \
               "records per partition" in restarted.log()
        assert restarted.stop() == 0, restarted.log()[-3000:]
    finally:
        for topic in topics:
            kafka_admin.delete_topic_if_exists(topic)
