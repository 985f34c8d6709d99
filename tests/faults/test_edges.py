"""Exactly once at the edges of a real deployment, each against the real broker and SQL server:
transactional producers (aborted, open and committed transactions), STARTING_OFFSETS=latest with a
quiet partition across a restart, a topic deleted and recreated (stopped and running), a skip
over four partitions, and records that arrive while no batch is due. The expectation is a
plain-Python count of the committed lines."""

from datetime import datetime

import pytest

from errorcount.errors import EXIT_DATA_LOSS
from errorcount.tools import kafka_admin, produce, samples
from errorcount.tools.produce import TransactionalWriter, Writer
from tests.support import query, wait_until

START = datetime(2037, 3, 3, 3, 0)
PARTITIONS = 4
LATEST = {"STARTING_OFFSETS": "latest"}
# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow


def errors(count: int, seed: int) -> list[samples.Event]:
    """`count` lines that all count (ERROR, valid minute): every loss or double shows."""
    events = [e for e in samples.generate("app", count * 12 + 100, seed=seed, start=START, minutes=10) if e.error_minute]
    assert len(events) >= count
    return events[:count]


def to_partition(topic: str, partition: int, events: list[samples.Event], writer: Writer | None = None) -> None:
    """Writes events, in order, to one partition (through `writer`'s producer, e.g. in its transaction)."""
    writer = writer or Writer(topic)
    for event in events:
        produce.send(writer.producer, topic, event.value, partition, writer._delivered)
    writer.flush()


def seen_to(run, driver, ends: dict[int, int]) -> bool:
    """Whether the job's stored seen_end (kafka_offsets) reached `ends` on every partition in it
    (`driver` checked alive first: a dead one fails at once, with its log)."""
    driver.check_alive()
    seen = dict(query(run.admin, "SELECT kafka_partition, seen_end FROM kafka_offsets WHERE job = %s", (run.job,)))
    return all(int(seen.get(p) or 0) >= end for p, end in ends.items())


def test_transactions_a_quiet_partition_and_recreated_topics(scenario):
    run = scenario(PARTITIONS, START)
    counted: list[samples.Event] = []
    to_partition(run.topic, 3, errors(40, seed=1))  # before the first start: 'latest' leaves them out
    first = run.driver(env=LATEST)
    ends = kafka_admin.end_offsets(run.topic)
    wait_until(lambda: run.offsets() == ends, 120, "STARTING_OFFSETS=latest resolved and stored for every partition")

    # Row 1: an aborted transaction, a committed one, plain records; then a transaction left open.
    tx = TransactionalWriter(run.topic, 1)
    for events, commit in ((errors(50, seed=2), False), (errors(30, seed=3), True)):
        tx.begin()
        to_partition(run.topic, 0, events, tx)
        tx.end(commit)
        counted += events if commit else []
    plain = errors(20, seed=4)
    to_partition(run.topic, 0, plain)
    counted += plain
    run.catch_up(first, "the job to pass the transaction markers")  # stored == end offsets, markers included
    assert run.counts() == samples.expected_counts(counted)
    open_tx, after_open = errors(10, seed=5), errors(5, seed=6)
    before_open = run.offsets()[0]
    tx.begin()
    to_partition(run.topic, 0, open_tx, tx)
    to_partition(run.topic, 2, after_open)
    wait_until(lambda: run.offsets()[2] == kafka_admin.end_offsets(run.topic)[2], 120, "a batch after the open transaction")
    assert run.counts() == samples.expected_counts(counted + after_open)  # nothing of the open transaction
    assert run.offsets()[0] == before_open  # at the last stable offset: the open transaction's first record
    tx.end(True)
    counted += open_tx + after_open
    run.catch_up(first, "the job to count the transaction once committed")
    assert run.counts() == samples.expected_counts(counted)
    assert first.stop() == 0

    # Row 2: 'latest' is never resolved again: what reached the quiet partition 1 meanwhile counts.
    quiet, busy = errors(100, seed=7), errors(5, seed=8)
    to_partition(run.topic, 1, quiet)
    to_partition(run.topic, 0, busy)
    counted += quiet + busy
    # Offsets as a version that kept no topic IDs stored them: adopted at this start, not taken for a recreation.
    query(run.admin, "UPDATE kafka_offsets SET topic_id = NULL WHERE job = %s", (run.job,))
    # Rate-limited (100 records a batch) for rows 3 and 4 below, which need a job left behind the topic's end.
    second = run.caught_up_driver("the restarted job to read the quiet partition",
                                  env={**LATEST, "MAX_OFFSETS_PER_TRIGGER": "100"})
    assert run.counts() == samples.expected_counts(counted)
    current_id = kafka_admin.topic_id(run.topic)
    assert f"adopting its current topic ID {current_id}" in second.log()
    assert {i for (i,) in query(run.admin, "SELECT DISTINCT topic_id FROM kafka_offsets WHERE job = %s", (run.job,))} \
        == {current_id}

    # Rows 3 and 4: the topic deleted and recreated with four partitions while the job was behind it
    # (records that arrived after its start, which its commits stored as seen; the rate limit kept it
    # from reading them all); the stored offsets lie inside the new topic's range. Data loss (exit 4,
    # nothing moved), unless skipped.
    run.produced.add(errors(2000, seed=11))
    ends = kafka_admin.end_offsets(run.topic)
    wait_until(lambda: seen_to(run, second, ends), 120, "a rate-limited batch to store the new ends as seen")
    assert second.stop() == 0
    stored, old_id = run.offsets(), kafka_admin.topic_id(run.topic)
    assert all(stored[p] < ends[p] for p in range(PARTITIONS))  # behind on every partition
    counted += [e for p, o, e in run.produced.placed if o < stored[p]]
    assert run.counts() == samples.expected_counts(counted)
    kafka_admin.recreate_topic(run.topic, PARTITIONS)
    new_id = kafka_admin.topic_id(run.topic)
    renewed = errors(2000, seed=9)
    produce.produce(run.topic, renewed)
    refused = run.driver(env=LATEST)
    assert refused.wait(120) == EXIT_DATA_LOSS, refused.log()[-3000:]
    assert f"the topic was recreated: its ID was {old_id}, now {new_id}" in refused.log()
    assert (run.offsets(), run.counts()) == (stored, samples.expected_counts(counted))
    skipping = run.caught_up_driver("the skipping job to count the new topic", env={**LATEST, "ON_DATA_LOSS": "skip"})
    counted += renewed
    assert run.counts() == samples.expected_counts(counted)  # every record of the new topic, none of the old twice
    rows = query(run.admin, "SELECT kafka_partition, kind, from_offset, to_offset, reason FROM skipped_offsets "
                            "WHERE job = %s ORDER BY kafka_partition", (run.job,))
    # From the stored offset to the end the job last saw: what it knows it never counted.
    assert [(int(p), k, int(f), int(t)) for p, k, f, t, _r in rows] == [
        (p, "recreated", stored[p], ends[p]) for p in range(PARTITIONS)]
    assert {i for (i,) in query(run.admin, "SELECT DISTINCT topic_id FROM kafka_offsets WHERE job = %s", (run.job,))} \
        == {new_id}

    # Recreated under the running query with fewer partitions, counted to its end: retired, and the new
    # topic counted from its start, never resumed mid-topic.
    recreated_id = new_id
    kafka_admin.recreate_topic(run.topic, 2)
    third = errors(3000, seed=10)  # more than the stored offsets: Spark alone could resume mid-topic
    produce.produce(run.topic, third)
    counted += third
    def counted_from_the_start() -> bool:
        skipping.check_alive()
        return run.offsets() == kafka_admin.end_offsets(run.topic) and run.counts() == samples.expected_counts(counted)
    wait_until(counted_from_the_start, 240, "the running job to count the topic recreated under it from its start")
    assert "now has ID" in skipping.log() or "retired" in skipping.log()
    # Partitions 2 and 3, which the new topic lacks, are given up (history), never stored under its ID.
    history = query(run.admin, "SELECT kafka_partition, topic_id FROM kafka_offsets WHERE job = %s AND kafka_partition >= 2",
                    (run.job,))
    assert sorted(tuple(row) for row in history) == [(2, f"deleted:{recreated_id}"), (3, f"deleted:{recreated_id}")]
    assert skipping.stop() == 0
    assert run.ledger()[1] == len(counted)  # records read: never an aborted one, never one twice

    # Every later start works, without ON_DATA_LOSS=skip: nothing of the old topic stands in its way.
    last = errors(200, seed=12)
    produce.produce(run.topic, last)
    counted += last
    # Spark's processing-time trigger fires at multiples of its interval since the epoch (a 10-minute
    # one at every hh:x0:00 of the wall clock, which once fell inside the check below): past the
    # query's first batch, none falls due for weeks.
    again = run.caught_up_driver("a later start to go on", env={"TRIGGER_INTERVAL": "100000 minutes"})
    assert run.counts() == samples.expected_counts(counted)

    # Records that arrive while no batch is due (a long TRIGGER_INTERVAL): their ends are stored as
    # seen without a batch (the heartbeat, after two of the end observer's looks), so that a job
    # stopped before that batch, the topic recreated meanwhile, reports them as never counted (rows 3
    # and 4 above) instead of retiring the partitions as counted to their end: a silent loss.
    stored = run.offsets()
    produce.produce(run.topic, errors(100, seed=13))
    ends = kafka_admin.end_offsets(run.topic)
    assert all(ends[p] > stored[p] for p in ends)
    wait_until(lambda: seen_to(run, again, ends), 90, "the new ends stored as seen while no batch is due")
    assert run.offsets() == stored  # no batch ran: the heartbeat stored them
    assert again.stop() == 0
