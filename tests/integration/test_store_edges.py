"""The job's transactions at their edges, against the real server without Spark: a COMMIT that
applied late, counts past 2^31, a counts table per job, what the startup check refuses, and a
skip over many partitions with long reasons."""

import pytest

from errorcount import store
from errorcount.errors import ConfigError, FencedError
from errorcount.offsets import Gap
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
    epoch = store.acquire_lease(conn, job, "test")
    batch = BatchSummary(records=3, errors=3, minute_counts={MINUTE: 3}, ranges={0: (0, 2)})
    table = unique("late").replace("-", "_")
    release_counts_table(admin, table)
    try:
        assert store.commit_batch(conn, job, topic, epoch, batch, {}, {0: 3}, table, "ID")
        # The retry of the same batch (its first COMMIT was reported lost, yet applied): no-op, not fenced.
        assert not store.commit_batch(conn, job, topic, epoch, batch, {}, {0: 3}, table, "ID")
        assert query(admin, f"SELECT SUM(log_count) FROM `{table}`")[0][0] == 3
        with pytest.raises(FencedError, match="changed behind this driver"):  # another writer's offsets still fence
            store.commit_batch(conn, job, topic, epoch, batch, {}, {0: 9}, table, "ID")
        # A minute past 2^31 - 1 (a broken producer stamping every event with one time).
        huge = BatchSummary(records=1, errors=2**31, minute_counts={MINUTE: 2**31}, ranges={0: (3, 3)})
        assert store.commit_batch(conn, job, topic, epoch, huge, {0: 3}, {0: 4}, table, "ID")
        assert query(admin, f"SELECT log_count FROM `{table}`")[0][0] == 2**31 + 3
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")


def test_a_counts_table_belongs_to_one_job_unless_all_share_it(conn, admin):
    table = unique("owned").replace("-", "_")
    release_counts_table(admin, table)
    try:
        assert store.claim_counts_table(conn, table, "a", False) == []
        assert store.claim_counts_table(conn, table, "a", False) == []  # its own again: fine
        with pytest.raises(ConfigError, match=f"COUNTS_TABLE {table} belongs to job 'a': job 'b' would add"):
            store.claim_counts_table(conn, table, "b", True)  # a does not share
        assert store.claim_counts_table(conn, table, "a", True) == []  # a now shares
        assert store.claim_counts_table(conn, table, "b", True) == ["a"]
        with pytest.raises(ConfigError, match="belongs to job 'a', 'b'"):
            store.claim_counts_table(conn, table, "c", False)
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def test_the_startup_check_refuses_what_would_fail_or_break_a_batch_later(conn, admin):
    database = local_stack()["MYSQL_DATABASE"]
    store.verify_schema(conn, database)
    case_sensitive = int(query(admin, "SELECT @@lower_case_table_names")[0][0]) == 0
    if case_sensitive:  # Linux's default on both servers: Error_Log is not error_log
        with pytest.raises(ConfigError, match=r"lacks table Error_Log \(names are case-sensitive on this server\)"):
            store.verify_schema(conn, database, "Error_Log")
    table = unique("myisam").replace("-", "_")
    query(admin, f"CREATE TABLE `{table}` (log_time DATETIME NOT NULL PRIMARY KEY, log_count BIGINT NOT NULL) ENGINE=MyISAM")
    try:
        with pytest.raises(ConfigError, match=f"{table} on InnoDB \\(it is myisam"):
            store.verify_schema(conn, database, table)
        query(admin, f"ALTER TABLE `{table}` ENGINE=InnoDB, MODIFY log_count INT NOT NULL")
        with pytest.raises(ConfigError, match=f"{table}.log_count as bigint \\(it is int\\).*make schema"):
            store.verify_schema(conn, database, table)
    finally:
        query(admin, f"DROP TABLE IF EXISTS `{table}`")


def test_a_skip_records_one_row_per_partition_whatever_its_reasons_length(conn, admin):
    job, topic = unique("skip"), unique("t")
    epoch = store.acquire_lease(conn, job, "test")
    stored = {p: 1000 + p for p in range(4)}
    store.settle(conn, job, topic, epoch, {}, stored, "OLD", [])
    why = "topic recreated: " + "x" * 3000
    gaps = [Gap(p, o, 0, why) for p, o in stored.items()]
    target = {p: 0 for p in stored}
    store.settle(conn, job, topic, epoch, stored, target, "NEW", gaps)
    store.settle(conn, job, topic, epoch, stored, target, "NEW", gaps)  # a retry after a lost COMMIT: applied
    rows = query(admin, "SELECT kafka_partition, from_offset, to_offset, CHAR_LENGTH(reason) FROM skipped_offsets "
                        "WHERE job = %s ORDER BY kafka_partition", (job,))
    assert [(int(p), int(f), int(t), int(n)) for p, f, t, n in rows] == [(p, 1000 + p, 0, store.REASON_CHARS) for p in range(4)]
    assert store.load_position(conn, job, topic) == (target, {"NEW"})
