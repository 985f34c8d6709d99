"""OVERLAP_COMMIT against the real server, without Spark: a counted batch handed over to the
committing thread frees the caller (Spark's next batch) while its transaction waits on MySQL; the
next batch's hand-over waits for that commit; a failed commit stops every later batch, uncommitted."""

import contextlib
import json
import threading
from datetime import datetime, timedelta

import pytest

from errorcount import store
from errorcount.batch.commit import Counted
from errorcount.batch.handler import BatchCommitter, BatchSettings
from errorcount.config.load import load_config
from errorcount.errors import FencedError
from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.summary import BatchSummary
from errorcount.start_plan import Resume
from errorcount.store import failures
from errorcount.store.retention import Retention
from tests.harness.admin_db import drop_counts_table
from tests.support import admin_connect, job_connection, query, release_counts_table, unique, wait_until

pytestmark = pytest.mark.mysql
MINUTE = 35_000_000  # an epoch minute in 2036
LOCK_WAITS = "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'"


def at_minute(epoch_minute: int) -> datetime:
    return datetime(1970, 1, 1) + timedelta(minutes=epoch_minute)  # UTC, as the job stores minutes


def counted(batch_id: int, topic: str, start: int, end: int) -> Counted:
    """Batch `batch_id`: offsets start..end-1 of partition 0, each an ERROR line of minute MINUTE + batch_id."""
    summary = BatchSummary(records=end - start, errors=end - start, minute_counts={MINUTE + batch_id: end - start},
                           ranges={TP(topic, 0): (start, end - 1)})
    return Counted(batch_id, summary, {TP(topic, 0): start} if start else {}, {TP(topic, 0): end}, {}, "parallel", 0.0,
                   0.0)


@pytest.fixture
def job(admin, tmp_path):
    """A job's Store on its own counts table, its lease taken, and an overlapping BatchCommitter on it."""
    name, topic, table = unique("overlap"), unique("t"), unique("overlap").replace("-", "_")
    release_counts_table(admin, table)
    conn = job_connection()
    job_store = store.Store(conn, name, [topic], table)
    job_store.acquire_lease("test")
    cfg = load_config([], {"KAFKA_TOPIC": topic, "OVERLAP_COMMIT": "true", "RETRY_SECONDS": "5"})
    committer = BatchCommitter(BatchSettings.of(cfg), job_store, Resume({}, 1, "", {topic: "ID"}), Retention(0), str(tmp_path),
                               describe=failures.failure_text(cfg.mysql_host, cfg.mysql_port))
    yield name, topic, table, committer
    with contextlib.suppress(FencedError):  # a test's failed commit raises again
        committer.close()
    conn.close()
    drop_counts_table(admin, table)


def test_a_batch_commits_behind_the_caller_and_the_next_waits_for_it(admin, job):
    name, topic, table, committer = job
    blocker = admin_connect()
    blocker.begin()  # an admin's transaction holding the job's lease row: the batch's locking read waits
    query(blocker, "SELECT epoch FROM job_leases WHERE job = %s FOR UPDATE", (name,))
    waits_before = query(admin, LOCK_WAITS)[0][0]
    committer.hand_over(counted(0, topic, 0, 10))  # returns while its transaction waits
    wait_until(lambda: query(admin, LOCK_WAITS)[0][0] > waits_before, 30, "batch 0's transaction waiting on the lock")
    assert committer.expected == {TP(topic, 0): 10} and committer.stored == {}

    seen_at_hand_over: list[int] = []

    def next_batch() -> None:
        committer.hand_over(counted(1, topic, 10, 25))
        reader = admin_connect()
        seen_at_hand_over.append(query(reader, "SELECT COUNT(*) FROM ingest_batches WHERE job = %s", (name,))[0][0])
        reader.close()

    second = threading.Thread(target=next_batch)
    second.start()
    second.join(2)  # a hand-over that did not wait for batch 0 would be back by now, before batch 0 committed
    assert second.is_alive(), f"batch 1 was handed over while batch 0 was not committed (ledger rows then: {seen_at_hand_over})"
    blocker.rollback()
    blocker.close()
    second.join(60)
    assert seen_at_hand_over and seen_at_hand_over[0] >= 1  # batch 0's row was there when batch 1 went ahead
    committer.close()
    assert committer.stored == {TP(topic, 0): 25} and committer.ended_by() is None
    assert query(admin, f"SELECT log_time, log_count FROM `{table}` ORDER BY log_time") == [
        (at_minute(MINUTE), 10), (at_minute(MINUTE + 1), 15)]
    ledger = query(admin, "SELECT offsets_before, offsets_after FROM ingest_batches WHERE job = %s ORDER BY id", (name,))
    assert [(json.loads(before), json.loads(after)) for before, after in ledger] == [({}, {"0": 10}), ({"0": 10}, {"0": 25})]


def test_after_a_failed_commit_no_later_batch_commits(admin, job):
    name, topic, table, committer = job
    query(admin, "UPDATE job_leases SET epoch = epoch + 1, owner = 'another' WHERE job = %s", (name,))
    committer.hand_over(counted(0, topic, 0, 10))  # fenced on the committing thread
    wait_until(lambda: committer.ended_by() is not None, 30, "batch 0's commit to fail")
    assert isinstance(committer.ended_by(), FencedError)
    with pytest.raises(FencedError, match="taken over by another instance"):
        committer.hand_over(counted(1, topic, 10, 25))  # raised to Spark: the query fails, batch 1 uncommitted
    with pytest.raises(FencedError):
        committer.close()  # the driver's exit code is owed
    assert committer.stored == {}
    assert query(admin, "SELECT COUNT(*) FROM ingest_batches WHERE job = %s", (name,)) == [(0,)]
    assert query(admin, "SELECT COUNT(*) FROM kafka_offsets WHERE job = %s", (name,)) == [(0,)]
    assert query(admin, f"SELECT COUNT(*) FROM `{table}`") == [(0,)]
