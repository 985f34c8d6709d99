"""The job's transactions at their edges, against the real server without Spark: a COMMIT that
applied late, counts past 2^31, a counts table per job, what the startup check refuses, and a
skip over many partitions with long reasons."""

import pytest

from errorcount import store
from errorcount.errors import ConfigError, FencedError
from errorcount.offsets import Gap
from errorcount.offsets import TopicPartition as TP
from errorcount.summary import BatchSummary
from tests.support import job_connection, local_stack, query, release_counts_table, unique

pytestmark = pytest.mark.mysql
MINUTE = 35_000_000  # an epoch minute in 2036


@pytest.fixture
def conn():
    connection = job_connection()
    yield connection
    connection.close()


def test_a_commit_found_applied_on_retry_is_not_taken_for_another_instance(conn, admin):
    job, topic = unique("late"), unique("t")
    table = unique("late").replace("-", "_")
    job_store = store.Store(conn, job, [topic], table)
    job_store.acquire_lease("test")
    batch = BatchSummary(records=3, errors=3, minute_counts={MINUTE: 3}, ranges={TP(topic, 0): (0, 2)})
    release_counts_table(admin, table)
    ids = {topic: "ID"}
    try:
        assert job_store.commit_batch(batch, {}, {TP(topic, 0): 3}, ids)
        # The retry of the same batch (its first COMMIT was reported lost, yet applied): no-op, not fenced.
        assert not job_store.commit_batch(batch, {}, {TP(topic, 0): 3}, ids)
        assert query(admin, f"SELECT SUM(log_count) FROM `{table}`")[0][0] == 3
        with pytest.raises(FencedError, match="changed behind this driver"):  # another writer's offsets still fence
            job_store.commit_batch(batch, {}, {TP(topic, 0): 9}, ids)
        # A minute past 2^31 - 1 (a broken producer stamping every event with one time).
        huge = BatchSummary(records=1, errors=2**31, minute_counts={MINUTE: 2**31}, ranges={TP(topic, 0): (3, 3)})
        assert job_store.commit_batch(huge, {TP(topic, 0): 3}, {TP(topic, 0): 4}, ids)
        assert query(admin, f"SELECT log_count FROM `{table}`")[0][0] == 2**31 + 3
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")


def test_a_counts_table_belongs_to_one_job_unless_all_share_it(conn, admin):
    table = unique("owned").replace("-", "_")
    release_counts_table(admin, table)
    try:
        assert store.Store(conn, "a", ["t"], table).claim_counts_table(False) == []
        assert store.Store(conn, "a", ["t"], table).claim_counts_table(False) == []  # its own again: fine
        with pytest.raises(ConfigError, match=f"COUNTS_TABLE {table} belongs to job 'a': job 'b' would add"):
            store.Store(conn, "b", ["t"], table).claim_counts_table(True)  # a does not share
        assert store.Store(conn, "a", ["t"], table).claim_counts_table(True) == []  # a now shares
        assert store.Store(conn, "b", ["t"], table).claim_counts_table(True) == ["a"]
        with pytest.raises(ConfigError, match="belongs to job 'a', 'b'"):
            store.Store(conn, "c", ["t"], table).claim_counts_table(False)
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def test_the_startup_check_refuses_what_would_fail_or_break_a_batch_later(conn, admin):
    database = local_stack()["MYSQL_DATABASE"]
    store.Store(conn, "j", ["t"]).verify_schema(database)
    case_sensitive = int(query(admin, "SELECT @@lower_case_table_names")[0][0]) == 0
    if case_sensitive:  # Linux's default on both servers: Error_Log is not error_log
        with pytest.raises(ConfigError, match=r"lacks table Error_Log \(names are case-sensitive on this server\)"):
            store.Store(conn, "j", ["t"], "Error_Log").verify_schema(database)
    table = unique("myisam").replace("-", "_")
    query(admin, f"CREATE TABLE `{table}` (log_time DATETIME NOT NULL PRIMARY KEY, log_count BIGINT NOT NULL) ENGINE=MyISAM")
    try:
        with pytest.raises(ConfigError, match=f"{table} on InnoDB \\(it is myisam"):
            store.Store(conn, "j", ["t"], table).verify_schema(database)
        query(admin, f"ALTER TABLE `{table}` ENGINE=InnoDB, MODIFY log_count INT NOT NULL")
        with pytest.raises(ConfigError, match=f"{table}.log_count as bigint \\(it is int\\).*make schema"):
            store.Store(conn, "j", ["t"], table).verify_schema(database)
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")


def test_a_skip_records_one_row_per_partition_whatever_its_reasons_length(conn, admin):
    job, topic = unique("skip"), unique("t")
    job_store = store.Store(conn, job, [topic])
    job_store.acquire_lease("test")
    stored = {TP(topic, p): 1000 + p for p in range(4)}
    job_store.settle({}, stored, {topic: "OLD"}, [])
    why = "topic recreated: " + "x" * 3000
    gaps = [Gap(topic, tp.partition, o, 0, why) for tp, o in stored.items()]
    target = {tp: 0 for tp in stored}
    job_store.settle(stored, target, {topic: "NEW"}, gaps)
    job_store.settle(stored, target, {topic: "NEW"}, gaps)  # a retry after a lost COMMIT: applied
    rows = query(admin, "SELECT kafka_partition, from_offset, to_offset, CHAR_LENGTH(reason) FROM skipped_offsets "
                        "WHERE job = %s ORDER BY kafka_partition", (job,))
    assert [(int(p), int(f), int(t), int(n)) for p, f, t, n in rows] == [(p, 1000 + p, 0, store.REASON_CHARS) for p in range(4)]
    assert job_store.load_position() == (target, {topic: {"NEW"}})


def test_a_batch_of_two_topics_stores_each_ones_offsets_id_and_ledger_row(conn, admin):
    job, first, second, unread = unique("two"), unique("a"), unique("b"), unique("c")
    earlier = store.Store(conn, job, [unread])
    earlier.acquire_lease("test")
    earlier.settle({}, {TP(unread, 0): 7}, {unread: "ID-C"}, [])  # a topic the job read before
    job_store = store.Store(conn, job, [first, second])
    job_store.acquire_lease("test")
    assert job_store.load_position() == ({}, {})  # the topic no longer read is not the job's position
    before = {TP(first, 0): 10, TP(second, 0): 0, TP(second, 1): 4}
    job_store.settle({}, before, {first: "ID-A", second: "ID-B"}, [])
    after = {**before, TP(first, 0): 15, TP(second, 1): 6}
    batch = BatchSummary(records=7, errors=3, rejected=1, minute_counts={MINUTE: 3},
                         ranges={TP(first, 0): (10, 14), TP(second, 1): (4, 5)},
                         dead_letters=((second, 1, 5, "bad_level", b"x"),),
                         per_topic={first: (5, 3, 0), second: (2, 0, 1)})
    assert job_store.commit_batch(batch, before, after, {first: "ID-A", second: "ID-B"})
    assert job_store.load_position() == (after, {first: {"ID-A"}, second: {"ID-B"}})
    ledger = query(admin, "SELECT topic, records, error_lines, rejected, offsets_before, offsets_after FROM ingest_batches "
                          "WHERE job = %s ORDER BY topic", (job,))
    assert [tuple(row) for row in ledger] == sorted([(first, 5, 3, 0, '{"0": 10}', '{"0": 15}'),
                                                     (second, 2, 0, 1, '{"0": 0, "1": 4}', '{"0": 0, "1": 6}')])
    assert [tuple(r) for r in query(admin, "SELECT topic, kafka_partition, kafka_offset FROM rejected_lines WHERE job = %s",
                                    (job,))] == [(second, 1, 5)]
    assert store.Store(conn, job, [unread]).load_offsets() == {TP(unread, 0): 7}  # left as it was
