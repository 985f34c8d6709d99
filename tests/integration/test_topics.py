"""One job over a list of topics (KAFKA_TOPIC=a,b), against the real broker and server: every
topic counted exactly into the same tables, offsets, ledger rows and dead letters kept per topic,
and a listed topic that does not exist refused by name."""

from collections import Counter
from datetime import datetime

import pytest

from errorcount.errors import EXIT_DATA_LOSS
from errorcount.tools import kafka_admin, produce, samples
from tests.support import error_log, query, series_counts, stored_offsets, unique, wait_until

START = datetime(2031, 7, 1, 8, 0)
# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow


def per_topic_ledger(admin, job: str) -> dict[str, tuple[int, int, int]]:
    rows = query(admin, "SELECT topic, SUM(records), SUM(error_lines), SUM(rejected) FROM ingest_batches "
                        "WHERE job = %s GROUP BY topic", (job,))
    return {topic: (int(records), int(errors), int(rejected)) for topic, records, errors, rejected in rows}


def expected_ledger(events: list[samples.Event]) -> tuple[int, int, int]:
    return len(events), sum(1 for e in events if e.error_minute), sum(1 for e in events if e.rejected)


def expected_series(written: dict[str, list[samples.Event]]) -> Counter:
    """GROUP_BY=level,topic from what was written: {(minute, (level, topic)): ERROR lines}."""
    return Counter({(minute, (level, topic)): n for topic, events in written.items()
                    for (minute, (level,)), n in samples.expected_series(events, ("level",)).items()})


def test_a_list_of_two_topics_is_counted_exactly_and_resumes(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    first, second, job = make_topic(partitions=2), make_topic(partitions=3), unique("job")
    written = {first: samples.generate("app", 1500, seed=21, start=START, minutes=30),
               second: samples.generate("app", 1000, seed=22, start=START, minutes=30)}
    for topic, events in written.items():
        produce.produce(topic, events)

    def caught_up(driver) -> bool:
        driver.check_alive()
        return all(stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic) for topic in written)

    # Small batches: most of them hold records of both topics. `topic` is a dimension like any other.
    env = {"GROUP_BY": "topic,level", "ERROR_LEVELS": "ERROR,FATAL"}
    driver = start_driver(job, f"{first}, {second}", env={"MAX_OFFSETS_PER_TRIGGER": "600", **env})
    wait_until(lambda: caught_up(driver), 240, "the job to catch up on both topics")
    assert error_log(admin) == samples.expected_counts(written[first] + written[second])
    assert per_topic_ledger(admin, job) == {topic: expected_ledger(events) for topic, events in written.items()}
    assert series_counts(admin, job, "level,topic") == expected_series(written)
    dead = query(admin, "SELECT topic, COUNT(*) FROM rejected_lines WHERE job = %s GROUP BY topic", (job,))
    assert {topic: int(n) for topic, n in dead} == {topic: expected_ledger(events)[2] for topic, events in written.items()}
    assert driver.stop() == 0, driver.log()[-3000:]

    more = samples.generate("app", 700, seed=23, start=START, minutes=30)  # one topic only, the same minutes
    produce.produce(second, more)
    written[second] = written[second] + more
    restarted = start_driver(job, f"{first},{second}", env=env)
    wait_until(lambda: caught_up(restarted), 240, "the restarted job to catch up")
    assert error_log(admin) == samples.expected_counts(written[first] + written[second])
    assert per_topic_ledger(admin, job) == {topic: expected_ledger(events) for topic, events in written.items()}
    assert series_counts(admin, job, "level,topic") == expected_series(written)
    assert restarted.stop() == 0, restarted.log()[-3000:]


def test_a_listed_topic_that_does_not_exist_is_a_config_error_naming_it(clean_error_log, make_topic, start_driver):
    present, missing = make_topic(partitions=1), unique("no-such-topic")
    driver = start_driver(unique("job"), f"{present},{missing}", create_topic=False)
    assert driver.wait(120) == 2
    assert f"topic '{missing}' does not exist" in driver.log()
    assert error_log(clean_error_log) == {}


def test_a_topic_added_to_the_list_is_counted_from_its_first_record_and_the_first_resumes(
        clean_error_log, make_topic, start_driver):
    """Moving a job from one topic to a list: the first topic resumes where it stood (nothing
    counted twice), the added one is counted from its first record even with STARTING_OFFSETS=latest
    (that setting applies at a job's first start only)."""
    admin = clean_error_log
    first, added, job = make_topic(partitions=2), make_topic(partitions=2), unique("job")
    written = {first: samples.generate("app", 500, seed=31, start=START, minutes=10)}
    produce.produce(first, written[first])
    driver = start_driver(job, first, env={"STARTING_OFFSETS": "earliest"})
    wait_until(lambda: driver.check_alive() or stored_offsets(admin, job, first) == kafka_admin.end_offsets(first), 240,
               "the job to catch up on its one topic")
    assert driver.stop() == 0, driver.log()[-3000:]

    more, other = (samples.generate("app", n, seed=seed, start=START, minutes=10) for n, seed in ((300, 32), (400, 33)))
    produce.produce(first, more)
    produce.produce(added, other)
    written = {first: written[first] + more, added: other}
    moved = start_driver(job, f"{first},{added}", env={"STARTING_OFFSETS": "latest"})
    wait_until(lambda: moved.check_alive() or all(stored_offsets(admin, job, t) == kafka_admin.end_offsets(t) for t in written),
               240, "the job to catch up on both topics")
    assert error_log(admin) == samples.expected_counts(written[first] + written[added])
    assert per_topic_ledger(admin, job) == {topic: expected_ledger(events) for topic, events in written.items()}
    assert f"topic {added!r} partitions 0-1: new to the job, counted from offset 0" in moved.log()  # one line
    assert moved.stop() == 0, moved.log()[-3000:]


def test_a_pattern_counts_every_topic_after_its_first_start_retires_deleted_ones_and_names_lost_records(
        clean_error_log, start_driver):
    """KAFKA_TOPIC_PATTERN with STARTING_OFFSETS=latest: the first start matches nothing and is
    stopped; every record of the topics created after it is counted ('latest' applied once, at the
    job's first start). Topics matching the whole pattern are counted, those created while it runs
    from their first record; a topic whose name only contains a match is not read. A topic deleted
    under the job after it was counted to its end is retired (recorded), and the job goes on with the
    others. A topic that appears with its first records already deleted is data loss (exit 4 naming
    them) until ON_DATA_LOSS=skip. Triggers every 10 s: the test acts between two of them."""
    admin, prefix, job = clean_error_log, unique("pat"), unique("job")
    names = {key: f"{prefix}.{key}" for key in ("a", "b", "c", "d")}
    near_miss = f"{prefix}.a.dlq"  # the pattern is found in it, but does not match it whole
    try:
        env = {"KAFKA_TOPIC_PATTERN": rf"{prefix}\.[a-z]+", "TRIGGER_INTERVAL": "10 seconds",
               "STARTING_OFFSETS": "latest"}
        written: dict[str, list[samples.Event]] = {}

        def caught_up(driver) -> bool:
            driver.check_alive()
            return all(stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic) for topic in written)

        first = start_driver(job, "", env=env, create_topic=False)
        wait_until(lambda: first.check_alive() or "matches no topic yet" in first.log() and "query 1:" in first.log(),
                   120, "the job to start on a pattern that matches nothing")
        assert first.stop() == 0, first.log()[-3000:]
        kafka_admin.create_topic(near_miss, 1)
        produce.produce(near_miss, samples.generate("app", 300, seed=40, start=START, minutes=10))
        for key, seed in (("a", 41), ("b", 42)):  # while the job is stopped, after its first start
            kafka_admin.create_topic(names[key], 2)
            written[names[key]] = samples.generate("app", 400, seed=seed, start=START, minutes=10)
            produce.produce(names[key], written[names[key]])
        driver = start_driver(job, "", env=env, create_topic=False)
        wait_until(lambda: caught_up(driver), 240, "the job to count the topics created after its first start")
        kafka_admin.create_topic(names["c"], 3)  # while it runs
        written[names["c"]] = samples.generate("app", 500, seed=43, start=START, minutes=10)
        produce.produce(names["c"], written[names["c"]])
        wait_until(lambda: caught_up(driver), 240, "the job to read the topic created while it runs")
        assert error_log(admin) == samples.expected_counts([e for events in written.values() for e in events])
        assert per_topic_ledger(admin, job) == {topic: expected_ledger(events) for topic, events in written.items()}
        assert stored_offsets(admin, job, near_miss) == {}

        kafka_admin.delete_topic(names["b"])  # under the running job, counted to its end: retired
        counted = written.pop(names["b"])
        more = samples.generate("app", 50, seed=44, start=START, minutes=10)
        produce.produce(names["a"], more)
        written[names["a"]] = written[names["a"]] + more
        wait_until(lambda: caught_up(driver), 240, "the job to go on with the other topics")
        retired = query(admin, "SELECT topic, kafka_partition, kind FROM skipped_offsets WHERE job = %s", (job,))
        assert sorted(tuple(row) for row in retired) == [(names["b"], 0, "retired"), (names["b"], 1, "retired")]
        assert error_log(admin) == samples.expected_counts([e for events in written.values() for e in events] + counted)

        # Right after a commit, ten seconds before the next trigger: a topic appears whose first 40
        # records are gone before the job first sees it. Spark's query fails; the restart names them.
        kafka_admin.create_topic(names["d"], 1)
        late = samples.generate("app", 100, seed=45, start=START, minutes=10)
        produce.produce(names["d"], late)
        kafka_admin.delete_records(names["d"], {0: 40})
        assert driver.wait(180) == EXIT_DATA_LOSS, driver.log()[-3000:]
        assert f"topic '{names['d']}' partition 0 (new_partition): offsets 0 to 40" in driver.log()

        written[names["d"]] = late[40:]
        # (the test no longer acts between its triggers: the default test trigger of 1 s)
        skipping = start_driver(job, "", env={**env, "ON_DATA_LOSS": "skip", "TRIGGER_INTERVAL": "1 second"})
        wait_until(lambda: caught_up(skipping), 240, "the job to count what is left of the new topic")
        assert error_log(admin) == samples.expected_counts([e for events in written.values() for e in events] + counted)
        lost = query(admin, "SELECT topic, kind, from_offset, to_offset FROM skipped_offsets WHERE job = %s AND kind != "
                            "'retired'", (job,))
        assert [tuple(row) for row in lost] == [(names["d"], "new_partition", 0, 40)]
        assert skipping.stop() == 0, skipping.log()[-3000:]
    finally:
        for topic in (*names.values(), near_miss):
            kafka_admin.delete_topic_if_exists(topic)
