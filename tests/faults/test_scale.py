"""Exact where the job knows many partitions and topics: a topic of 512 partitions and a pattern over
50 topics, each counted exactly through a SIGKILL of its driver right after its second commit
(ERRORCOUNT_FAULT=after_commit@2) and a restart. The expectations are the written lines' own counts;
the ledger accounts for every record. Kept short: a few lines per partition."""

from datetime import datetime

import pytest

from errorcount.tools import kafka_admin, produce, samples
from tests.support import error_log, query, stored_offsets, unique, wait_until

START = datetime(2035, 3, 3, 3, 0)
SIGKILLED = 128 + 9
SMALL_BATCHES = {"MAX_OFFSETS_PER_TRIGGER": "1500"}
pytestmark = pytest.mark.slow


def test_a_topic_of_512_partitions_is_counted_exactly_through_a_kill(scenario):
    run = scenario(512, START)
    run.write(4000, seed=71, minutes=20)  # ~8 records a partition: every batch spans hundreds of them
    killed = run.driver(env={**SMALL_BATCHES, "ERRORCOUNT_FAULT": "after_commit@2"})
    assert killed.wait(240) == SIGKILLED, killed.log()[-3000:]
    stored = run.offsets()
    assert 0 < sum(stored.values()) < 4000 and run.counts() == run.produced.counts_below(stored)
    assert run.ledger()[1] == sum(stored.values())

    run.write(1000, seed=72, minutes=20)
    restarted = run.caught_up_driver("the restarted job to catch up on 512 partitions", env=SMALL_BATCHES)
    assert run.counts() == run.produced.total() and run.ledger()[1] == 5000
    assert len(run.offsets()) == 512
    assert restarted.stop() == 0, restarted.log()[-3000:]


def test_a_pattern_over_50_topics_is_counted_exactly_through_a_kill(clean_error_log, start_driver):
    admin, prefix, job = clean_error_log, unique("wide"), unique("job")
    topics = [f"{prefix}.t{number:02d}" for number in range(50)]
    written: dict[str, list[samples.Event]] = {}
    try:
        kafka_admin.create_topics(dict.fromkeys(topics, 2))  # one request: a topic at a time took ~0.6 s each
        writers = [produce.Writer(topic, 2) for topic in topics]
        for number, (topic, writer) in enumerate(zip(topics, writers, strict=True)):
            written[topic] = samples.generate("app", 60, seed=100 + number, start=START, minutes=10)
            for index, event in enumerate(written[topic]):
                writer.send(event.value, index)
        for writer in writers:
            writer.flush()
        env = {"MAX_OFFSETS_PER_TRIGGER": "500", "KAFKA_TOPIC_PATTERN": rf"{prefix}\.t\d+"}  # 6 batches: the kill lands mid-way
        killed = start_driver(job, "", env={**env, "ERRORCOUNT_FAULT": "after_commit@2"}, create_topic=False)
        assert killed.wait(240) == SIGKILLED, killed.log()[-3000:]
        assert killed.log().count("STARTING_OFFSETS=earliest") == 1, killed.log()[-3000:]  # one line for 50 topics
        records = query(admin, "SELECT COALESCE(SUM(records), 0) FROM ingest_batches WHERE job = %s", (job,))[0][0]
        assert 0 < records < 3000

        for topic in topics[::7]:  # more while it was down, to some of them
            more = samples.generate("app", 20, seed=200 + topics.index(topic), start=START, minutes=10)
            produce.produce(topic, more, 2)
            written[topic] += more
        restarted = start_driver(job, "", env=env, create_topic=False)
        wait_until(lambda: restarted.check_alive() or all(
            stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic) for topic in topics), 240,
            "the restarted job to catch up on 50 topics")
        everything = [event for events in written.values() for event in events]
        assert error_log(admin) == samples.expected_counts(everything)
        ledger = query(admin, "SELECT topic, SUM(records) FROM ingest_batches WHERE job = %s GROUP BY topic", (job,))
        assert {topic: int(n) for topic, n in ledger} == {topic: len(events) for topic, events in written.items()}
        assert "50 topics (100 partitions)" in restarted.log()  # the start's summary line, not one per topic
        assert restarted.stop() == 0, restarted.log()[-3000:]
    finally:
        for topic in topics:
            kafka_admin.delete_topic_if_exists(topic)
