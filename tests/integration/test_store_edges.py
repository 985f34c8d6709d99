"""The job's transactions at their edges, against the real server without Spark: a COMMIT that
applied late, counts past 2^31, a counts table per job, what the startup check refuses, a skip
over many partitions with long reasons, a full table, a connection the server dropped, a server
that hangs and one that turned read-only."""

import time
from collections import Counter
from dataclasses import replace
from datetime import date, datetime, timedelta

import pymysql
import pytest

from errorcount import store
from errorcount.config.load import load_config
from errorcount.errors import ConfigError, FencedError
from errorcount.faults import Faults
from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.summary import BatchSummary
from errorcount.start_plan import Plan, TopicState, plan_start
from errorcount.store import failures, mysql
from errorcount.store.connection import Connection
from errorcount.store.mysql import CommitOutcomeUnknown
from errorcount.store.series import SeriesStore
from tests.harness import admin_db
from tests.harness.admin_db import drop_counts_table
from tests.support import (
    app_password,
    job_connection,
    local_stack,
    query,
    release_counts_table,
    series_counts,
    series_totals,
    sql_server_paused,
    unique,
    wait_until,
)

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
        drop_counts_table(admin, table)


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
        drop_counts_table(admin, table)
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
        drop_counts_table(admin, table)


def settle(job_store: store.Store, topics: dict[str, TopicState], skip: bool = False) -> Plan:
    """A start as the driver plans and stores it (without Spark): what MySQL holds, against `topics`."""
    start = job_store.load_start()
    plan = plan_start(start.rows, topics, start.first_start, "earliest", skip)
    job_store.settle(start, plan)
    return plan


def test_a_skip_records_one_row_per_partition_whatever_its_reasons_length(conn, admin):
    job, topic = unique("skip"), unique("t")
    job_store = store.Store(conn, job, [topic])
    job_store.acquire_lease("test")
    four = [0, 1, 2, 3]
    settle(job_store, {topic: TopicState(four, {p: 1000 + p for p in four}, {p: 1000 + p for p in four}, "OLD")})
    query(admin, "UPDATE kafka_offsets SET seen_end = seen_end + 1 WHERE job = %s", (job,))  # records never read
    start = job_store.load_start()
    plan = plan_start(start.rows, {topic: TopicState(four, dict.fromkeys(four, 0), dict.fromkeys(four, 0), "NEW")},
                      start.first_start, "earliest", skip=True)
    plan = replace(plan, events=[replace(event, why="topic recreated: " + "x" * 3000) for event in plan.events])
    job_store.settle(start, plan)
    job_store.settle(start, plan)  # a retry after a lost COMMIT that applied: finds the plan stored, writes nothing
    rows = query(admin, "SELECT kafka_partition, from_offset, to_offset, kind, CHAR_LENGTH(reason) FROM skipped_offsets "
                        "WHERE job = %s ORDER BY kafka_partition", (job,))
    assert [tuple(map(int, row[:3])) + tuple(row[3:]) for row in rows] == [
        (p, 1000 + p, 1001 + p, "recreated", store.REASON_CHARS) for p in four]
    assert job_store.load_offsets() == {TP(topic, p): 0 for p in four}


def test_a_batch_of_two_topics_stores_each_ones_offsets_id_and_ledger_row(conn, admin):
    job, first, second, unread = unique("two"), unique("a"), unique("b"), unique("c")
    earlier = store.Store(conn, job, [unread, first, second])
    earlier.acquire_lease("test")
    settle(earlier, {unread: TopicState([0], {0: 7}, {0: 7}, "ID-C"),  # a topic the job read before
                     first: TopicState([0], {0: 10}, {0: 10}, "ID-A"),
                     second: TopicState([0, 1], {0: 0, 1: 4}, {0: 0, 1: 4}, "ID-B")})
    job_store = store.Store(conn, job, [first, second])
    job_store.acquire_lease("test")
    before = {TP(first, 0): 10, TP(second, 0): 0, TP(second, 1): 4}
    assert job_store.load_offsets() == before  # the topic no longer read is not the job's position
    after = {**before, TP(first, 0): 15, TP(second, 1): 6}
    batch = BatchSummary(records=7, errors=3, rejected=1, minute_counts={MINUTE: 3},
                         ranges={TP(first, 0): (10, 14), TP(second, 1): (4, 5)},
                         dead_letters=((second, 1, 5, "bad_level", b"x"),),
                         per_topic={first: (5, 3, 0, 5), second: (2, 0, 1, 9)}, log_records=14)
    assert job_store.commit_batch(batch, before, after, {first: "ID-A", second: "ID-B"})
    assert job_store.load_offsets() == after
    assert {tp.topic: row.topic_id for tp, row in job_store.load_start().rows.items()} == {first: "ID-A", second: "ID-B"}
    ledger = query(admin, "SELECT topic, records, log_records, error_lines, rejected, offsets_before, offsets_after "
                          "FROM ingest_batches WHERE job = %s ORDER BY topic", (job,))
    assert [tuple(row) for row in ledger] == sorted([(first, 5, 5, 3, 0, '{"0": 10}', '{"0": 15}'),
                                                     (second, 2, 9, 0, 1, '{"0": 0, "1": 4}', '{"0": 0, "1": 6}')])
    assert [tuple(r) for r in query(admin, "SELECT topic, kafka_partition, kafka_offset FROM rejected_lines WHERE job = %s",
                                    (job,))] == [(second, 1, 5)]
    assert store.Store(conn, job, [unread]).load_offsets() == {TP(unread, 0): 7}  # left as it was


def test_a_topic_created_again_under_the_running_query_starts_its_rows_history_anew(conn, admin):
    """A pattern's topic deleted (its rows given up) and created again while the query runs: the batch
    that stores the new topic's offsets sets where counting began (a recount reads from there) and
    the end seen anew; rows of the topic the batch read keep theirs."""
    job, topic = unique("again"), unique("t")
    job_store = store.Store(conn, job, [topic])
    job_store.acquire_lease("test")
    # p0: the old topic's, first started at 'latest' (counted from 1000), given up when deleted;
    # p1: this topic's own, given up; p2: stored before topic IDs were kept; p3: this topic's own.
    query(admin, "INSERT INTO kafka_offsets (job, topic, kafka_partition, next_offset, topic_id, seen_end, counted_from) "
                 "VALUES (%s, %s, 0, 1200, 'deleted:OLD', 1200, 1000), (%s, %s, 1, 50, 'deleted:NEW', 80, 40), "
                 "(%s, %s, 2, 10, NULL, 12, 7), (%s, %s, 3, 20, 'NEW', 25, 5)", (job, topic) * 4)
    before = {TP(topic, 2): 10, TP(topic, 3): 20}  # the live rows
    after = {TP(topic, 0): 3, TP(topic, 1): 60, TP(topic, 2): 12, TP(topic, 3): 22}
    batch = BatchSummary(records=15, ranges={TP(topic, 0): (0, 2), TP(topic, 1): (50, 59), TP(topic, 2): (10, 11),
                                             TP(topic, 3): (20, 21)})
    assert job_store.commit_batch(batch, before, after, {topic: "NEW"})
    rows = query(admin, "SELECT kafka_partition, next_offset, topic_id, counted_from, seen_end FROM kafka_offsets "
                        "WHERE job = %s ORDER BY kafka_partition", (job,))
    assert [tuple(int(v) if isinstance(v, int) else v for v in row) for row in rows] == [
        (0, 3, "NEW", 0, 3), (1, 60, "NEW", 40, 80), (2, 12, "NEW", 7, 12), (3, 22, "NEW", 5, 25)]


def test_offsets_are_never_stored_without_the_id_of_their_topic(conn, admin):
    job, topic = unique("noid"), unique("t")
    job_store = store.Store(conn, job, [topic])
    job_store.acquire_lease("test")
    batch = BatchSummary(records=1, ranges={TP(topic, 0): (0, 0)})
    with pytest.raises(ValueError, match="no topic ID for topic"):
        job_store.commit_batch(batch, {}, {TP(topic, 0): 1}, {})
    assert query(admin, "SELECT COUNT(*) FROM kafka_offsets WHERE job = %s", (job,))[0][0] == 0
    assert query(admin, "SELECT COUNT(*) FROM ingest_batches WHERE job = %s", (job,))[0][0] == 0


def test_lines_are_stored_beside_errors_per_minute_and_series_and_the_overflow_counts_both(conn, admin):
    """COUNT_LINES in one transaction: line_count beside log_count in the counts table and per series;
    a series with lines and no ERROR line is registered after those with errors; a series past
    MAX_SERIES adds both of its counts to the overflow series. Expectations written out by hand."""
    job, topic = unique("lines"), unique("t")
    table = unique("lines").replace("-", "_")
    release_counts_table(admin, table)
    job_store = store.Store(conn, job, [topic], table, series=SeriesStore(job, "level", max_series=2))
    job_store.acquire_lease("test")
    batch = BatchSummary(records=20, errors=4, minute_counts={MINUTE: 4, MINUTE + 1: 0},
                         minute_lines={MINUTE: 15, MINUTE + 1: 5}, ranges={TP(topic, 0): (0, 19)},
                         series_counts={(MINUTE, "ERROR"): 4, (MINUTE, "INFO"): 0, (MINUTE, "WARN"): 0,
                                        (MINUTE + 1, "INFO"): 0},
                         series_lines={(MINUTE, "ERROR"): 4, (MINUTE, "INFO"): 10, (MINUTE, "WARN"): 1,
                                       (MINUTE + 1, "INFO"): 5})
    try:
        assert job_store.commit_batch(batch, {}, {TP(topic, 0): 20}, {topic: "ID"})
        rows = query(admin, f"SELECT log_time, log_count, line_count FROM `{table}` ORDER BY log_time")
        assert [(int(n), int(lines)) for _t, n, lines in rows] == [(4, 15), (0, 5)]
        # ERROR first (4 errors), then INFO (10 lines) under MAX_SERIES=2; WARN into the overflow series
        assert series_counts(admin, job, "level") == Counter({(minute_text(MINUTE), ("ERROR",)): 4})
        assert series_counts(admin, job, "level", "line_count") == Counter({
            (minute_text(MINUTE), ("ERROR",)): 4, (minute_text(MINUTE), ("INFO",)): 10,
            (minute_text(MINUTE), (None,)): 1, (minute_text(MINUTE + 1), ("INFO",)): 5})
        assert series_totals(admin, job, "line_count") == Counter({minute_text(MINUTE): 15, minute_text(MINUTE + 1): 5})
    finally:
        drop_counts_table(admin, table)



def test_series_met_again_count_under_the_ids_committed_not_those_of_a_batch_that_rolled_back(conn, admin):
    """The store keeps the registry and the ids of committed series between batches (Registry.ids,
    SeriesStore.named): a batch whose COMMIT never reached the server registered nothing, so its
    new series register again when it is retried and count under the ids the database holds; a
    later batch of known, new and overflowing series adds to the right rows. Expectations from
    the batches as written here."""
    job, topic = unique("named"), unique("t")
    table = unique("named").replace("-", "_")
    release_counts_table(admin, table)
    series = SeriesStore(job, "level", max_series=3)
    job_store = store.Store(conn, job, [topic], table, hooks=Faults("commit_lost_unapplied", nth=2), series=series)
    job_store.acquire_lease("test")
    tp = TP(topic, 0)
    first = BatchSummary(records=2, errors=2, minute_counts={MINUTE: 2}, ranges={tp: (0, 1)},
                         series_counts={(MINUTE, "ERROR"): 2})
    second = BatchSummary(records=2, errors=2, minute_counts={MINUTE: 2}, ranges={tp: (2, 3)},
                          series_counts={(MINUTE, "ERROR"): 1, (MINUTE, "FATAL"): 1})
    later = {(MINUTE + 1, "ERROR"): 1, (MINUTE + 1, "WARN"): 5, (MINUTE + 1, "INFO"): 1, (MINUTE + 1, "DEBUG"): 1}
    third = BatchSummary(records=8, errors=8, minute_counts={MINUTE + 1: 8}, ranges={tp: (4, 11)}, series_counts=later)
    try:
        assert job_store.commit_batch(first, {}, {tp: 2}, {topic: "ID"})
        with pytest.raises(CommitOutcomeUnknown):
            job_store.commit_batch(second, {tp: 2}, {tp: 4}, {topic: "ID"})
        assert query(admin, "SELECT COUNT(*) FROM error_series WHERE job = %s", (job,)) == [(1,)]
        assert job_store.commit_batch(second, {tp: 2}, {tp: 4}, {topic: "ID"})
        assert job_store.commit_batch(third, {tp: 4}, {tp: 12}, {topic: "ID"})
        one, two = minute_text(MINUTE), minute_text(MINUTE + 1)
        # MAX_SERIES=3: ERROR and FATAL, then WARN (most lines); INFO and DEBUG into the overflow series
        assert series_counts(admin, job, "level") == Counter({(one, ("ERROR",)): 3, (one, ("FATAL",)): 1,
                                                              (two, ("ERROR",)): 1, (two, ("WARN",)): 5, (two, (None,)): 2})
        stored = query(admin, "SELECT l.value, s.series_id FROM error_series s JOIN error_series_labels l "
                              "ON l.series_id = s.series_id WHERE s.job = %s AND NOT s.overflow", (job,))
        assert series.named == {value: int(series_id) for value, series_id in stored}
    finally:
        drop_counts_table(admin, table)


def test_series_with_any_value_register_their_labels_exactly_over_several_statements(conn, admin):
    """A first batch of 20 003 new series of a two-dimension GROUP_BY (~2 MB of rows each for the
    registry and the labels: more than one statement holds), values with quotes, backslashes,
    accents, emoji and 64 bytes: every label stored as given, the two lightest series past
    MAX_SERIES in the overflow series (its labels NULL). Expectations from the batch as written here."""
    job, topic = unique("labels"), unique("t")
    table = unique("labels").replace("-", "_")
    release_counts_table(admin, table)
    job_store = store.Store(conn, job, [topic], table, series=SeriesStore(job, "path,status", max_series=20_001))
    job_store.acquire_lease("test")
    odd = ['/a"b', "/c\\d", "/it's", "/caf\u00e9/\u00fc", "/\U0001F600/\u2603", "/" + "x" * 63, "/\u00e9" * 21 + "/",
           "/\\\"\\'"]
    series = {f"{path}\x1f{status}": 2 for path in odd for status in ("500", "503")}
    series.update({f"/p{i:05d}\x1f500": 2 for i in range(20_003 - len(series))})
    lightest = sorted(series)[-2:]  # ties by value: the last two values of the lightest weight overflow
    for name in lightest:
        series[name] = 1
    batch = BatchSummary(records=sum(series.values()), errors=sum(series.values()), minute_counts={MINUTE: sum(series.values())},
                         ranges={TP(topic, 0): (0, sum(series.values()) - 1)},
                         series_counts={(MINUTE, name): count for name, count in series.items()})
    try:
        assert job_store.commit_batch(batch, {}, {TP(topic, 0): sum(series.values())}, {topic: "ID"})
        minute = minute_text(MINUTE)
        expected = Counter({(minute, tuple(name.split("\x1f"))): count for name, count in series.items() if name not in lightest})
        expected[minute, (None, None)] = 2
        assert series_counts(admin, job, "path,status") == expected
        assert query(admin, "SELECT COUNT(*) FROM error_series_labels l JOIN error_series s ON s.series_id = l.series_id "
                            "WHERE s.job = %s", (job,))[0][0] == 2 * (20_001 + 1)
    finally:
        drop_counts_table(admin, table)

FIRST_MINUTE = (date(1000, 1, 1) - date(1970, 1, 1)).days * 1440  # the first and last minute a DATETIME holds
LAST_MINUTE = (date(9999, 12, 31) - date(1970, 1, 1)).days * 1440 + 23 * 60 + 59


def test_series_minutes_are_stored_as_the_same_utc_minute_at_the_ends_of_the_datetime_range_whatever_the_session_zone(
        conn, admin):
    """The series rows carry epoch minutes the server turns into DATETIMEs: the first and last
    minute MySQL's DATETIME holds, one before 1970, a leap day, and two minutes of one series, stored
    as the UTC minute Python's calendar gives, with the session's time zone set far from UTC,
    whatever order the batch lists them in."""
    job, topic = unique("ends"), unique("t")
    table = unique("ends").replace("-", "_")
    release_counts_table(admin, table)
    job_store = store.Store(conn, job, [topic], table, series=SeriesStore(job, "level", max_series=10))
    job_store.acquire_lease("test")
    leap_day = (date(2024, 2, 29) - date(1970, 1, 1)).days * 1440 + 13 * 60 + 7
    minutes = [LAST_MINUTE, -1, leap_day, FIRST_MINUTE, leap_day + 1]
    batch = BatchSummary(records=10, errors=5, minute_counts=dict.fromkeys(minutes, 1), minute_lines=dict.fromkeys(minutes, 2),
                         ranges={TP(topic, 0): (0, 9)}, series_counts={(m, "ERROR"): 1 for m in minutes},
                         series_lines={(m, "ERROR"): 2 for m in minutes})
    try:
        with conn.raw.cursor() as cursor:
            cursor.execute("SET time_zone = '+12:45'")
        assert job_store.commit_batch(batch, {}, {TP(topic, 0): 10}, {topic: "ID"})
        expected = {(minute_text(m), ("ERROR",)): 1 for m in minutes}
        assert series_counts(admin, job, "level") == Counter(expected)
        assert series_counts(admin, job, "level", "line_count") == Counter({key: 2 for key in expected})
    finally:
        drop_counts_table(admin, table)


def minute_text(minute: int) -> str:
    return (datetime(1970, 1, 1) + timedelta(minutes=minute)).strftime("%Y-%m-%d %H:%M:00")


def test_the_servers_own_table_full_error_is_waited_out_as_out_of_space():
    """A real 1114 ("The table ... is full") from this server, as a disk that filled gives: a
    MEMORY table over the session's max_heap_table_size (its minimum, 16 KiB; the admin account,
    the job's has no CREATE TEMPORARY TABLES). The job's transaction helper rolls it back, and the
    error reads as the server out of space, retried."""
    conn = Connection(admin_db.connect)
    with mysql.transaction(conn) as cursor:
        cursor.execute("SET SESSION max_heap_table_size = 16384")
        cursor.execute("CREATE TEMPORARY TABLE filling (v VARCHAR(255)) ENGINE=MEMORY")
    with pytest.raises(pymysql.MySQLError) as full, mysql.transaction(conn) as cursor:
        for _ in range(1000):  # 255-byte rows: the table is full after about 60
            cursor.execute("INSERT INTO filling VALUES (REPEAT('x', 255))")
    assert full.value.args[0] == 1114, full.value
    assert failures.is_transient(full.value)
    env = local_stack()
    said = failures.failure_text("127.0.0.1", int(env["MYSQL_PORT"]))(full.value)
    assert said.startswith(f"the SQL server at 127.0.0.1:{env['MYSQL_PORT']} is out of disk space or memory"), said
    with mysql.transaction(conn) as cursor:  # the connection goes on
        cursor.execute("DROP TEMPORARY TABLE filling")
    conn.close()


def test_a_connection_the_server_dropped_is_replaced_before_the_next_transaction(conn, admin):
    """The server ended the job's idle connection (its idle limit, a KILL, a restart): the next
    transaction opens a new one first and runs; nothing fails, nothing is retried."""
    with mysql.transaction(conn) as cursor:
        cursor.execute("SELECT CONNECTION_ID()")
        (first,) = cursor.fetchone()
    query(admin, f"KILL CONNECTION {int(first)}")
    wait_until(lambda: not query(admin, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID = %s", (first,)),
               30, "the killed connection to be gone")
    with mysql.transaction(conn) as cursor:
        cursor.execute("SELECT CONNECTION_ID()")
        (second,) = cursor.fetchone()
    assert second != first and conn.made == 2


def test_a_hung_server_costs_one_read_timeout_per_attempt():
    """A SQL server that hangs (SIGSTOP: it accepts connections and says nothing). An attempt waits
    once, in its first statement, and opens no connection inside it; its error reads as a server
    that did not answer, not as a lost connection. The next attempt's new connection waits once
    more in its handshake, read the same way; when the server goes on, the next transaction runs.
    (A short read timeout here; the job's is MYSQL_IDLE_TIMEOUT plus a margin, unit-tested.)"""
    read_s, env = 3, local_stack()
    cfg = load_config([], {"MYSQL_PASSWORD": app_password(), "MYSQL_PORT": env["MYSQL_PORT"]})
    opened = Counter()
    open_raw = mysql.opener(cfg, read_timeout=read_s)

    def make():
        opened["tries"] += 1
        return open_raw()

    conn, said = Connection(make), failures.failure_text("127.0.0.1", int(env["MYSQL_PORT"]))
    with sql_server_paused():
        for tries in (1, 2):  # the statement on the open connection; then the new connection's handshake
            began = time.monotonic()
            with pytest.raises(pymysql.err.OperationalError) as hung, mysql.transaction(conn) as cursor:
                cursor.execute("SELECT 1")
            waited = time.monotonic() - began
            assert said(hung.value).startswith(f"MySQL at 127.0.0.1:{env['MYSQL_PORT']} did not answer"), hung.value
            assert failures.is_transient(hung.value)
            assert opened["tries"] == tries, "a connection was opened inside a failed attempt"
            assert waited < 2 * read_s, f"{waited:.1f} s: more than one read timeout ({read_s} s) in one attempt"
    with mysql.transaction(conn) as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert opened["tries"] == 3
    conn.close()


def test_a_server_that_turned_read_only_is_waited_out_on_a_new_connection(conn, admin):
    """A failover demoted the job's server (read_only; the job's account has neither SUPER nor
    CONNECTION_ADMIN, so it may not write): the write fails as a server that takes no writes,
    tried again, and the connection is dropped, so that the next attempt opens a new one (which a
    failover's DNS name or proxy takes to the new primary). Writable again, the transaction runs."""
    job_store, env = store.Store(conn, unique("ro"), [unique("t")]), local_stack()
    job_store.acquire_lease("before")
    made = conn.made
    query(admin, "SET GLOBAL read_only = ON")
    try:
        with pytest.raises(pymysql.MySQLError) as refused:
            job_store.acquire_lease("demoted")
    finally:
        query(admin, "SET GLOBAL read_only = OFF")
    assert failures.is_transient(refused.value), refused.value
    said = failures.failure_text("127.0.0.1", int(env["MYSQL_PORT"]))(refused.value)
    assert said.startswith(f"the SQL server at 127.0.0.1:{env['MYSQL_PORT']} takes no writes"), said
    job_store.acquire_lease("promoted")
    assert conn.made == made + 1, "the read-only server's connection was kept"
