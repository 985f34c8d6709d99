"""No statement the job runs raises a warning, on MariaDB and on MySQL 8 (where VALUES() in an
upsert is deprecated, warning 1287): every statement of the job's store, series, schema check,
retention and session set-up runs against the real server through a cursor that reads SHOW
WARNINGS after each one; the test also fails when one of those statements was not run."""

import datetime
import re

import pymysql
import pytest

from errorcount import store
from errorcount.config.load import load_config
from errorcount.counted_through import Through
from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.summary import BatchSummary
from errorcount.start_plan import TopicState, plan_start
from errorcount.store import changes, marks, mysql, retention, schema, series, transactions
from errorcount.store.connection import Connection
from errorcount.store.series import SeriesStore
from tests.harness.admin_db import drop_counts_table
from tests.support import app_password, local_stack, query, release_counts_table, unique

pytestmark = pytest.mark.mysql
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|SET)\b", re.I)
MINUTE = 35_000_000
EARLY = 28_000_000  # a minute in 2023, complete under the marks below: a late line changes it (changes.py)


class Watching(pymysql.cursors.Cursor):
    """Records every statement and, where the server counted a warning, what SHOW WARNINGS says."""

    executed: list[str] = []
    warnings: list[tuple[str, tuple]] = []

    def execute(self, query, args=None):
        result = super().execute(query, args)
        Watching.executed.append(query if isinstance(query, str) else query.decode("utf-8", "replace"))
        if self._result is not None and self._result.warning_count:
            rows = self._rows  # SHOW WARNINGS replaces the result of this cursor's connection
            with self.connection.cursor(pymysql.cursors.Cursor) as probe:
                probe.execute("SHOW WARNINGS")
                Watching.warnings.append((query, probe.fetchall()))
            self._rows = rows
        return result

    def executemany(self, query, args):
        Watching.executed.append(query)
        return super().executemany(query, args)


def job_statements(counts_table: str, mariadb: bool) -> set[str]:
    """Every SQL statement constant of the modules the job writes and reads through, as it runs on this server."""
    found = set()
    for module in (transactions, series, schema, retention, marks, changes):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str) and SQL.match(value):  # {keys}: one minute's (below)
                found.add(mysql.for_server(value.replace("{table}", counts_table).replace("{keys}", "%s"), mariadb))
    return found


def test_no_statement_of_the_job_raises_a_warning(admin):
    job, topic, gone, table = unique("warn"), unique("t"), unique("gone"), unique("warn").replace("-", "_")
    release_counts_table(admin, table)
    cfg = load_config([], {"MYSQL_PASSWORD": app_password(), "MYSQL_PORT": local_stack()["MYSQL_PORT"]})
    Watching.executed, Watching.warnings = [], []
    conn = Connection(mysql.opener(cfg, cursorclass=Watching))
    try:
        job_store = store.Store(conn, job, [topic, gone], table, series=SeriesStore(job, "level", max_series=1))
        job_store.verify_schema(cfg.mysql_database)
        job_store.claim_counts_table(False)
        job_store.acquire_lease("host pid 1 app application_1_0001")
        job_store.acquire_lease("host pid 2 app application_1_0001", store.Reattempt("application_1_0001", 0))  # YARN's
        assert (job_store.earlier_lease() or "").startswith("epoch 2 taken ")  # what a first start's warning names
        # For retention (below): two ledger rows of one old epoch and day, which it merges.
        old = datetime.datetime(2000, 1, 1, 12)
        for first in (0, 4):
            query(admin, "INSERT INTO ingest_batches (job, topic, epoch, records, error_lines, rejected, offsets_before, "
                         "offsets_after, committed_at) VALUES (%s, %s, 1, 4, 3, 1, %s, %s, %s)",
                  (job, topic, f'{{"0": {first}}}', f'{{"0": {first + 4}}}', old))
        two = [0, 1]
        start = job_store.load_start()
        plan = plan_start(start.rows, {topic: TopicState(two, {0: 0, 1: 0}, {0: 10, 1: 10}, "T"),
                                       gone: TopicState([0], {0: 0}, {0: 0}, "G")}, start.first_start, "earliest", False)
        job_store.settle(start, plan)
        after = {**plan.offsets, TP(topic, 0): 4}
        batch = BatchSummary(records=4, errors=3, rejected=1, minute_counts={MINUTE: 3}, ranges={TP(topic, 0): (0, 3)},
                             dead_letters=((topic, 0, 3, "bad_level", b"x"),),
                             series_counts={(MINUTE, "ERROR"): 2, (MINUTE, "FATAL"): 1},  # FATAL overflows MAX_SERIES=1
                             minute_rejects={(topic, MINUTE): 1})
        ids = plan.topic_ids
        through = Through({TP(topic, 0): 1_700_000_000_000}, {topic: 1_700_000_000_000}, 1_700_000_000_000)
        assert job_store.commit_batch(batch, plan.offsets, after, ids, {TP(topic, 0): 10}, through)
        assert not job_store.commit_batch(batch, plan.offsets, after, ids)  # found applied: nothing written
        # A later batch on the kept series registry (refreshed with what others registered: SELECT_SINCE).
        later = {**after, TP(topic, 0): 5}
        assert job_store.commit_batch(BatchSummary(records=1, errors=1, minute_counts={MINUTE: 1, EARLY: 1},
                                                   series_counts={(MINUTE, "ERROR"): 1, (EARLY, "ERROR"): 1}),
                                      after, later, ids)
        assert query(admin, "SELECT series_id = 0, errors_before, errors_after FROM changed_minutes WHERE job = %s "
                            "ORDER BY series_id", (job,)) == [(1, 0, 1), (0, 0, 1)]
        after = later
        # a heartbeat, with the ends seen of partitions whose batch is not due: raised, never lowered
        job_store.store_marks(after, Through({}, {topic: 1_700_000_001_000}, 1_700_000_001_000),
                              {TP(topic, 0): 12, TP(topic, 1): 3}, ids)
        assert dict(query(admin, "SELECT kafka_partition, seen_end FROM kafka_offsets WHERE job = %s AND topic = %s",
                          (job, topic))) == {0: 12, 1: 10}
        assert job_store.load_marks() == ({topic: 1_700_000_001_000}, 1_700_000_001_000)
        job_store.load_holder()
        # A later start: the topic gone (retired), retention's gap on another partition skipped.
        start = job_store.load_start()
        plan = plan_start(start.rows, {topic: TopicState(two, {0: 6, 1: 0}, {0: 10, 1: 10}, "T")}, start.first_start,
                          "earliest", True)
        assert {event.kind for event in plan.events} == {"retention", "retired"}
        job_store.settle(start, plan)
        kept = retention.Retention(30, series_days=30)
        retention.check_ready(job_store, kept)
        result = retention.run_pass(job_store, topic, 30, series_days=30)
        assert result.removed == 1
    finally:
        conn.close()
        drop_counts_table(admin, table)
    assert Watching.warnings == []
    mariadb = "mariadb" in query(admin, "SELECT VERSION()")[0][0].lower()
    missing = [s for s in job_statements(table, mariadb) if not any(run.startswith(s) for run in Watching.executed)]
    assert missing == []
    assert [s for s in mysql.session_settings(cfg) if s not in Watching.executed] == []
