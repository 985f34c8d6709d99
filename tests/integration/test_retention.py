"""Retention (RETENTION_DAYS) against the real MariaDB: old ledger rows merge per epoch and UTC
day with every sum kept, old dead letters go, nothing else is touched; the schema migration for
databases made by earlier versions; the startup check of the grants; and a real driver pruning."""

import itertools
import uuid
from datetime import date, datetime, time, timedelta

import pytest

from errorcount import store
from errorcount.errors import ConfigError
from errorcount.store import retention
from errorcount.store.connection import Connection
from errorcount.tools import produce, samples
from tests.support import admin_connect, apply_schema, catch_up, job_connection, ledger, local_stack, query, unique, wait_until

pytestmark = pytest.mark.mysql

DAYS = 30


def utc_today(admin) -> date:
    return query(admin, "SELECT UTC_DATE()")[0][0]


def seed_ledger(admin, job: str, topic: str, rows: list[tuple[int, datetime, int]]) -> list[tuple]:
    """Inserts (epoch, committed_at, records) rows in order with a continuous offset chain;
    returns them as (epoch, committed_at, records, error_lines, rejected, before, after)."""
    seeded, offset = [], 0
    for epoch, at, records in rows:
        before, after = store.as_json({0: offset}), store.as_json({0: offset + records})
        values = (epoch, at, records, records // 3, records % 4, before, after)
        query(admin, "INSERT INTO ingest_batches (job, topic, epoch, committed_at, records, error_lines, rejected, "
                     "offsets_before, offsets_after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", (job, topic, *values))
        seeded.append(values)
        offset += records
    return seeded


def merged_by_day(seeded: list[tuple], today: date) -> list[tuple]:
    """The expected ledger: rows of days older than the cutoff's, summed per run of epoch and day."""
    cutoff_day = today - timedelta(days=DAYS)
    out = []
    for (epoch, day), group in itertools.groupby(seeded, key=lambda r: (r[0], r[1].date())):
        group = list(group)
        runs = [group] if day < cutoff_day else [[r] for r in group]
        out += [(epoch, day, sum(r[2] for r in g), sum(r[3] for r in g), sum(r[4] for r in g), len(g), g[0][5], g[-1][6])
                for g in runs]
    return out


def stored_ledger(admin, job: str) -> list[tuple]:
    rows = query(admin, "SELECT epoch, committed_at, records, error_lines, rejected, batches, offsets_before, "
                        "offsets_after FROM ingest_batches WHERE job = %s ORDER BY id", (job,))
    return [(int(e), at.date(), int(r), int(el), int(rj), int(b), ob, oa) for e, at, r, el, rj, b, ob, oa in rows]


def test_passes_merge_old_days_keep_every_sum_and_delete_only_old_dead_letters(admin):
    job, other_job, topic, other_topic = unique("ret"), unique("ret"), unique("ret"), unique("ret")
    today = utc_today(admin)
    at = lambda days_ago, second: datetime.combine(today - timedelta(days=days_ago), time(1, 0, second))  # noqa: E731
    query(admin, "INSERT INTO job_leases (job, epoch, owner) VALUES (%s, 2, 'test')", (job,))
    seeded = seed_ledger(admin, job, topic, [(1, at(40, s), 7 * s + 1) for s in range(5)]
                         + [(2, at(40, 30 + s), 11 * s + 2) for s in range(3)]
                         + [(2, at(39, s), 13 * s + 3) for s in range(4)]
                         + [(2, at(2, s), 5 + s) for s in range(3)] + [(2, at(1, s), 9 + s) for s in range(2)])
    others = seed_ledger(admin, other_job, topic, [(1, at(40, s), 4) for s in range(3)])
    # Dead letters: this job's old and young ones, another job's on the same topic, this job's on
    # another topic, and old ones from before rejected_lines had a job column (job '').
    for owner, name, days_ago, offsets in ((job, topic, 40, range(4)), (job, topic, 1, range(4, 6)),
                                           (job, other_topic, 40, range(2)), (other_job, topic, 40, range(2)),
                                           ("", topic, 40, range(10, 12))):
        for offset in offsets:
            query(admin, "INSERT INTO rejected_lines (job, topic, kafka_partition, kafka_offset, reason, raw_value, "
                         "seen_at) VALUES (%s, %s, 0, %s, 'bad_level', 'x', %s)", (owner, name, offset, at(days_ago, 0)))
    # Changed minutes: this job's 4 old and 2 young rows, another job's old ones (5 per pass: cut up too)
    for owner, days_ago, ledger_ids in ((job, 40, range(4)), (job, 1, range(4, 6)), (other_job, 40, range(2))):
        for ledger_id in ledger_ids:
            query(admin, "INSERT INTO changed_minutes (job, log_time, series_id, ledger_id, epoch, errors_before, "
                         "errors_after, lines_before, lines_after, changed_at) VALUES (%s, %s, 0, %s, 1, 0, 1, 0, 1, %s)",
                  (owner, at(days_ago + 1, 0), ledger_id, at(days_ago, 0)))
    conn = job_connection()
    try:
        unmerged = merged_by_day(seeded, today - timedelta(days=9999))  # a cutoff before every row
        holder = store.Store(conn, job, [topic], epoch=2)
        stale = retention.run_pass(store.Store(conn, job, [topic], epoch=1), topic, days=DAYS)  # fenced: changes nothing
        assert (stale.removed, stale.deleted, stored_ledger(admin, job)) == (0, 0, unmerged)
        resume, passes = 0, 0
        while True:  # 3 rows per pass: every day's run is cut up and merged across passes
            result = retention.run_pass(holder, topic, days=DAYS, from_id=resume, limit=3)
            resume, passes = result.resume_id, passes + 1
            if not result.more:
                break
            assert passes < 20, "retention passes never finished"
    finally:
        conn.close()
    assert stored_ledger(admin, job) == merged_by_day(seeded, today)
    assert len(stored_ledger(admin, job)) == 3 + 5
    assert ledger(admin, job)[1:] == (sum(r[2] for r in seeded), sum(r[3] for r in seeded), sum(r[4] for r in seeded))
    assert stored_ledger(admin, other_job) == merged_by_day(others, today - timedelta(days=9999))
    dead = query(admin, "SELECT job, topic, kafka_offset FROM rejected_lines WHERE topic IN (%s, %s)", (topic, other_topic))
    assert sorted((j, t, int(o)) for j, t, o in dead) == sorted(
        [(job, topic, 4), (job, topic, 5), (job, other_topic, 0), (job, other_topic, 1), (other_job, topic, 0),
         (other_job, topic, 1)])
    kept = query(admin, "SELECT job, ledger_id FROM changed_minutes WHERE job IN (%s, %s)", (job, other_job))
    assert sorted((j, int(i)) for j, i in kept) == sorted([(job, 4), (job, 5), (other_job, 0), (other_job, 1)])


def test_a_pass_deletes_old_per_dimension_counts_of_its_own_job_only(admin):
    job, other_job = unique("ret-series"), unique("ret-series")
    today = utc_today(admin)
    query(admin, "INSERT INTO job_leases (job, epoch, owner) VALUES (%s, 2, 'test')", (job,))
    minutes = [datetime.combine(today - timedelta(days=days_ago), time(hour, 0)) for days_ago in (120, 91, 89, 0)
               for hour in (0, 23)]
    for owner in (job, other_job):
        for series_id, minute in enumerate(minutes):
            query(admin, "INSERT INTO error_series_counts (job, log_time, series_id, log_count) VALUES (%s, %s, %s, 1)",
                  (owner, minute, series_id))
    conn = job_connection()
    try:
        stale = retention.run_pass(store.Store(conn, job, ["t"], epoch=1), "t", days=0, series_days=90)  # fenced: changes nothing
        assert (stale.deleted, stale.more) == (0, False)
        holder = store.Store(conn, job, ["t"], epoch=2)
        first = retention.run_pass(holder, "t", days=0, series_days=90, limit=3)
        second = retention.run_pass(holder, "t", days=0, series_days=90, limit=3)
    finally:
        conn.close()
    assert (first.deleted, first.more, second.deleted, second.more) == (3, True, 1, False)
    kept = query(admin, "SELECT log_time FROM error_series_counts WHERE job = %s ORDER BY log_time", (job,))
    assert [t for (t,) in kept] == minutes[4:]  # 89 days old and today's; 120 and 91 days old gone
    assert query(admin, "SELECT COUNT(*) FROM error_series_counts WHERE job = %s", (other_job,)) == [(len(minutes),)]


def test_the_startup_check_wants_the_delete_grants(admin):
    conn = job_connection()
    try:
        # the stack grants them
        retention.check_ready(store.Store(conn, unique("ret"), []), retention.Retention(30, series_days=90))
    finally:
        conn.close()
    user, password = f"noret{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    query(admin, f"CREATE USER '{user}'@'%%' IDENTIFIED BY %s", (password,))
    try:
        query(admin, f"GRANT SELECT, INSERT, UPDATE ON `{local_stack()['MYSQL_DATABASE']}`.* TO '{user}'@'%%'")
        conn = job_connection(MYSQL_USER=user, MYSQL_PASSWORD=password)
        try:
            with pytest.raises(ConfigError, match="RETENTION_DAYS needs DELETE.*grants.sql.*RETENTION_DAYS=0"):
                retention.check_ready(store.Store(conn, unique("ret"), []), retention.Retention(30))
        finally:
            conn.close()
    finally:
        query(admin, f"DROP USER '{user}'@'%%'")


def test_schema_sql_migrates_a_database_made_by_an_earlier_version(admin):
    database = "migration_" + uuid.uuid4().hex[:8]
    query(admin, f"CREATE DATABASE `{database}`")
    try:
        conn = admin_connect(database)
        checker = Connection(lambda: admin_connect(database))  # the startup check's own, as the job's
        apply_schema(conn)
        # The shape before RETENTION_DAYS: no batches column, no index on dead letters' age; and
        # before COUNTS_TABLE: no job in rejected_lines' key.
        query(admin, f"ALTER TABLE `{database}`.ingest_batches DROP COLUMN batches, DROP COLUMN new_series, "
                     "DROP COLUMN overflow_lines")  # and before GROUP_BY
        query(admin, f"DROP VIEW `{database}`.error_counts_by_label")
        for table in ("error_series", "error_series_labels", "error_series_counts"):
            query(admin, f"DROP TABLE `{database}`.{table}")
        query(admin, f"ALTER TABLE `{database}`.job_leases DROP COLUMN metrics_endpoint")  # before METRICS_PORT
        query(admin, f"DROP TABLE `{database}`.rejected_lines")
        query(admin, f"CREATE TABLE `{database}`.rejected_lines (topic VARCHAR(249) NOT NULL, kafka_partition INT "
                     "NOT NULL, kafka_offset BIGINT NOT NULL, reason VARCHAR(32) NOT NULL, raw_value VARBINARY(1024) "
                     "NULL, seen_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), "
                     "PRIMARY KEY (topic, kafka_partition, kafka_offset)) ENGINE = InnoDB")
        query(admin, f"INSERT INTO `{database}`.rejected_lines (topic, kafka_partition, kafka_offset, reason, "
                     "raw_value) VALUES ('t', 0, 7, 'bad_level', 'old')")
        query(admin, f"INSERT INTO `{database}`.ingest_batches (job, topic, epoch, records, error_lines, rejected, "
                     "offsets_before, offsets_after) VALUES ('j', 't', 1, 10, 2, 1, '{}', '{\"0\": 10}')")
        # Before topic IDs, the widened count, per-partition skip reasons and counts_tables.
        query(admin, f"ALTER TABLE `{database}`.kafka_offsets DROP COLUMN topic_id")
        query(admin, f"ALTER TABLE `{database}`.error_log MODIFY log_count INT NOT NULL DEFAULT 0")
        query(admin, f"ALTER TABLE `{database}`.skipped_offsets MODIFY reason VARCHAR(255) NOT NULL")
        query(admin, f"DROP TABLE `{database}`.counts_tables")
        query(admin, f"INSERT INTO `{database}`.kafka_offsets (job, topic, kafka_partition, next_offset) "
                     "VALUES ('j', 't', 0, 10)")
        # Before the start planner: no end seen, no first start, skips told apart by their reason only.
        query(admin, f"ALTER TABLE `{database}`.kafka_offsets DROP COLUMN seen_end")
        query(admin, f"ALTER TABLE `{database}`.job_leases DROP COLUMN first_planned_at")
        query(admin, f"ALTER TABLE `{database}`.job_leases DROP COLUMN rules_digest, DROP COLUMN rules")  # before rules
        # Before the recounts' ledger kept rejects: a row of then keeps NULL (not known), not 0.
        query(admin, f"ALTER TABLE `{database}`.recounts DROP COLUMN rejects_before, DROP COLUMN rejects_after")
        query(admin, f"INSERT INTO `{database}`.recounts (job, first_minute, end_minute, offsets_from, offsets_to, "
                     "errors_before, lines_before, errors_after, lines_after, minutes_changed, rules_digest, epoch, "
                     "recounted_by) VALUES ('j', '2026-01-01 00:00', '2026-01-01 01:00', '{}', '{}', 1, 2, 3, 4, 5, "
                     "REPEAT('0', 64), 1, 'r')")
        query(admin, f"ALTER TABLE `{database}`.skipped_offsets DROP INDEX skipped_offsets_job, DROP COLUMN kind, "
                     "DROP COLUMN epoch")
        reasons = {"retention": "ON_DATA_LOSS=skip: 150 records deleted before they were counted (retention?)",
                   "truncated": "ON_DATA_LOSS=skip: stored offset beyond the partition's end 10 (topic recreated?)",
                   "recreated": "ON_DATA_LOSS=skip: topic recreated: its ID was A, now B; what the old topic held",
                   "given_up": "ON_DATA_LOSS=skip: topic deleted while the job had offsets of it; given up"}
        for partition, reason in enumerate(reasons.values()):
            query(admin, f"INSERT INTO `{database}`.skipped_offsets (job, topic, kafka_partition, from_offset, to_offset, "
                         "reason) VALUES ('j', 't', %s, 1, 2, %s)", (partition, reason))
        with pytest.raises(ConfigError, match=r"kafka_offsets\.seen_end, kafka_offsets\.topic_id, "
                                              r"job_leases\.first_planned_at, job_leases\.metrics_endpoint, "
                                              r"job_leases\.rules, job_leases\.rules_digest, "
                                              r"ingest_batches\.batches, ingest_batches\.new_series, "
                                              r"ingest_batches\.overflow_lines, "
                                              r"rejected_lines\.job, skipped_offsets\.epoch, skipped_offsets\.kind, "
                                              r"table counts_tables, table error_series, "
                                              r"table error_series_labels, table error_series_counts, "
                                              r"recounts\.rejects_after, recounts\.rejects_before, "
                                              r"error_log\.log_count as bigint "
                                              r"\(it is int\), skipped_offsets\.reason as text \(it is varchar\), "
                                              r"rejected_lines\.rejected_lines_seen \(index\)"):
            store.Store(checker, "j", ["t"]).verify_schema(database)
        apply_schema(conn)
        apply_schema(conn)  # and again: a no-op
        store.Store(checker, "j", ["t"]).verify_schema(database)
        assert query(admin, f"SELECT records, batches, new_series, overflow_lines FROM `{database}`.ingest_batches") == [
            (10, 1, 0, 0)]
        assert query(admin, f"SELECT COUNT(*) FROM `{database}`.error_counts_by_label") == [(0,)]
        assert query(admin, f"SELECT errors_after, rejects_before, rejects_after FROM `{database}`.recounts") == [
            (3, None, None)]
        assert query(admin, f"SELECT next_offset, topic_id, seen_end FROM `{database}`.kafka_offsets") == [
            (10, None, None)]  # the ID adopted at start; the end seen unknown until then (never retired on it)
        kinds = query(admin, f"SELECT kind FROM `{database}`.skipped_offsets ORDER BY kafka_partition")
        assert [k for (k,) in kinds] == list(reasons)
        index = query(admin, "SELECT column_name FROM information_schema.statistics WHERE table_schema = %s "
                             "AND index_name = 'rejected_lines_seen' ORDER BY seq_in_index", (database,))
        assert [c for (c,) in index] == ["job", "topic", "seen_at"]
        key = query(admin, "SELECT column_name FROM information_schema.statistics WHERE table_schema = %s "
                           "AND table_name = 'rejected_lines' AND index_name = 'PRIMARY' ORDER BY seq_in_index", (database,))
        assert [c for (c,) in key] == ["job", "topic", "kafka_partition", "kafka_offset"]
        assert query(admin, f"SELECT job, topic, kafka_offset, raw_value FROM `{database}`.rejected_lines") == [
            ("", "t", 7, b"old")]
        conn.close()
        checker.close()
    finally:
        query(admin, f"DROP DATABASE `{database}`")


@pytest.mark.slow
def test_a_running_job_merges_old_ledger_rows_and_deletes_old_dead_letters(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=1), unique("job")
    today = utc_today(admin)
    old = datetime.combine(today - timedelta(days=45), time(12))
    seeded = seed_ledger(admin, job, topic, [(0, old + timedelta(seconds=s), 5) for s in range(3)])
    query(admin, "INSERT INTO rejected_lines (topic, kafka_partition, kafka_offset, reason, raw_value, seen_at) "
                 "VALUES (%s, 0, 1000000, 'bad_level', 'old', %s)", (topic, old))
    events = [samples.Event(b"2036-01-01 10:00:00 ERROR x", "2036-01-01 10:00:00", False)] * 8 + \
        [samples.Event(b"garbage", None, True)] * 2
    produce.produce(topic, events, partitions=1)
    driver = start_driver(job, topic, env={"RETENTION_DAYS": str(DAYS)})
    catch_up(admin, job, topic, driver)

    def pruned():
        rows = stored_ledger(admin, job)
        return rows[0] == (0, old.date(), 15, 3, 3, 3, seeded[0][5], seeded[-1][6]) and len(rows) >= 2
    wait_until(pruned, 60, "the old ledger rows to be merged")
    dead = query(admin, "SELECT kafka_offset FROM rejected_lines WHERE topic = %s ORDER BY kafka_offset", (topic,))
    assert [int(o) for (o,) in dead] == [8, 9]
    assert ledger(admin, job)[1:] == (15 + 10, 3 + 8, 3 + 2)
    assert driver.stop() == 0
