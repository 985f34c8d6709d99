"""Retention (RETENTION_DAYS): old ledger rows are merged, old dead letters and rows of complete
minutes that changed (changed_minutes) deleted, so the job's
own tables stop growing without bound; with GROUP_BY, per-dimension counts of minutes older than
SERIES_RETENTION_DAYS are deleted. error_log, offsets, leases, the series registry and skipped
ranges are kept.

A job run for months writes one ingest_batches row per batch (86,400 a day at a 1 s trigger)
and up to DEAD_LETTER_LIMIT rejected_lines rows per batch. A pass runs on the batch thread after
a batch commits, when due: at most PASS_ROWS rows of each table per pass, one transaction each,
so a backlog is worked off over a few batches without ever holding locks for long.

Ledger rows of a UTC day wholly older than the cutoff are merged per (job, topic, epoch, day)
into the day's last row: the sums of records, error_lines, rejected and batches are kept, with
the first row's offsets_before, so SUM(records) over the ledger still is everything consumed.
"""

import datetime
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from errorcount import store
from errorcount.errors import ConfigError

log = logging.getLogger(__name__)
PASS_ROWS = 5000     # rows read or deleted per table per pass
IDLE_SECONDS = 3600  # between passes once nothing is left to do

SELECT_CUTOFF = "SELECT CURRENT_TIMESTAMP(3) - INTERVAL %s DAY"  # the session runs in UTC
# In id order from where the last pass stopped, by the (job, topic, id) key: oldest rows first,
# and a pass never scans the young rows it leaves alone.
SELECT_LEDGER = ("SELECT id, epoch, committed_at, records, error_lines, rejected, batches, offsets_before, "
                 "COALESCE(log_records, records) "
                 "FROM ingest_batches WHERE job = %s AND topic = %s AND id >= %s ORDER BY id LIMIT %s")
UPDATE_MERGED = ("UPDATE ingest_batches SET records = %s, error_lines = %s, rejected = %s, batches = %s, "
                 "offsets_before = %s, log_records = %s WHERE id = %s AND job = %s AND topic = %s")
# Between the first and the kept row of a group there are only that group's rows of this job
# and topic: the group is a run of consecutive ids of that (job, topic) read in id order.
DELETE_MERGED = "DELETE FROM ingest_batches WHERE job = %s AND topic = %s AND id >= %s AND id < %s"
# job '' holds dead letters stored before rejected_lines had a job column: any job on the topic prunes them.
DELETE_DEAD_LETTERS = ("DELETE FROM rejected_lines WHERE job IN (%s, '') AND topic = %s AND seen_at < %s "
                       "ORDER BY seen_at LIMIT %s")
# By changed_at's index: rows of complete minutes that changed, kept as long as the dead letters.
DELETE_CHANGED = "DELETE FROM changed_minutes WHERE job = %s AND changed_at < %s ORDER BY changed_at LIMIT %s"
# By the (job, log_time, series_id) key; minute keys are UTC, as is the session.
DELETE_SERIES_COUNTS = "DELETE FROM error_series_counts WHERE job = %s AND log_time < %s ORDER BY log_time LIMIT %s"
# Privileges are checked even when no row matches: a startup probe that changes nothing.
PROBE_DELETES = ("DELETE FROM ingest_batches WHERE 1 = 0", "DELETE FROM rejected_lines WHERE 1 = 0",
                 "DELETE FROM changed_minutes WHERE 1 = 0")
PROBE_SERIES_DELETE = "DELETE FROM error_series_counts WHERE 1 = 0"


@dataclass(frozen=True)
class LedgerRow:
    id: int
    epoch: int
    committed_at: datetime.datetime
    records: int
    error_lines: int
    rejected: int
    batches: int
    offsets_before: str
    log_records: int | None = None  # None: as many as records (rows stored before the column)


@dataclass(frozen=True)
class Merge:
    """Rows first_id .. merged.id of one (epoch, UTC day) become the one row `merged`."""

    first_id: int
    merged: LedgerRow


@dataclass(frozen=True)
class Plan:
    """What one pass merges; `resume_id`: where the next pass reads from (the last group seen
    may go on past the rows read); `reached_young`: a row too young to merge was seen, so all
    older rows are planned."""

    merges: list[Merge]
    resume_id: int
    reached_young: bool


def plan_merges(rows: Sequence[LedgerRow], cutoff: datetime.datetime, from_id: int = 0) -> Plan:
    """In: ledger rows of one job and topic in id order, from `from_id` on. Out: a Merge for
    every run of two or more consecutive rows of the same epoch and UTC day, for days that ended
    before `cutoff`'s day began. The first row of a later day ends the plan."""
    merges: list[Merge] = []
    run: list[LedgerRow] = []
    for row in rows:
        if run and row.epoch == run[0].epoch and row.committed_at.date() == run[0].committed_at.date():
            run.append(row)
            continue
        if len(run) > 1:
            merges.append(merge_of(run))
        if row.committed_at.date() >= cutoff.date():
            return Plan(merges, row.id, True)
        run = [row]
    if len(run) > 1:
        merges.append(merge_of(run))
    return Plan(merges, run[-1].id if run else from_id, False)


def merge_of(run: Sequence[LedgerRow]) -> Merge:
    last = run[-1]
    return Merge(run[0].id, LedgerRow(last.id, last.epoch, last.committed_at, sum(r.records for r in run),
                                      sum(r.error_lines for r in run), sum(r.rejected for r in run),
                                      sum(r.batches for r in run), run[0].offsets_before,
                                      sum(r.records if r.log_records is None else r.log_records for r in run)))


def check_ready(job_store: "store.Store", retention: "Retention") -> None:
    """Startup check for RETENTION_DAYS > 0 or SERIES_RETENTION_DAYS > 0 (with GROUP_BY): the DELETE
    grants (store.verify_schema checks the index). Raises ConfigError saying what to run."""
    probes = [*(PROBE_DELETES if retention.days else ()), *((PROBE_SERIES_DELETE,) if retention.series_days else ())]
    def run_probes(cursor) -> None:
        for probe in probes:
            cursor.execute(probe)

    try:
        job_store.run(run_probes)
    except Exception as error:
        if getattr(error, "args", None) and error.args[0] in (1142, 1143):  # command denied
            wanted = [*(["RETENTION_DAYS needs DELETE on ingest_batches, rejected_lines and changed_minutes"]
                        if retention.days else []),
                      *(["SERIES_RETENTION_DAYS (with GROUP_BY) needs DELETE on error_series_counts"]
                        if retention.series_days else [])]
            zero = " and ".join(name for name, days in (("RETENTION_DAYS=0", retention.days),
                                                        ("SERIES_RETENTION_DAYS=0", retention.series_days)) if days)
            raise ConfigError(f"{', '.join(wanted)} for the job's MySQL user ({error.args[-1]}): apply sql/grants.sql "
                              f"(make schema on the local stack), or set {zero} to keep every row") from None
        raise


@dataclass(frozen=True)
class PassResult:
    removed: int      # ledger rows merged away
    deleted: int      # dead letters deleted (and per-dimension counts)
    resume_id: int    # where the next pass reads the ledger from
    more: bool        # a table may hold more to do: the next pass need not wait


def run_pass(job_store: "store.Store", topic: str, days: int, from_id: int = 0,
             limit: int = PASS_ROWS, series_days: int = 0) -> PassResult:
    """Merges old ledger rows (read from id `from_id` on) and deletes old dead letters of this
    topic (days > 0), then old per-dimension counts of this job (series_days > 0), each in its own
    transaction, while this instance holds the lease (else it does nothing: the next batch commit
    reports the takeover)."""
    job, series_deleted = job_store.job, 0
    if series_days:
        deleted = job_store.under_lease(
            lambda cursor: cursor.execute(DELETE_SERIES_COUNTS, (job, cutoff_of(cursor, series_days), limit)))
        if deleted is None:
            return PassResult(0, 0, from_id, False)
        series_deleted = deleted
    if not days:
        return PassResult(0, series_deleted, from_id, series_deleted == limit)
    merged = job_store.under_lease(lambda cursor: merge_ledger(cursor, job, topic, days, from_id, limit))
    if merged is None:
        return PassResult(0, series_deleted, from_id, False)
    cutoff, rows, plan, removed = merged
    deleted = job_store.run(lambda cursor: cursor.execute(DELETE_DEAD_LETTERS, (job, topic, cutoff, limit)))
    changed = job_store.run(lambda cursor: cursor.execute(DELETE_CHANGED, (job, cutoff, limit)))
    deleted += changed
    more = (rows == limit and not plan.reached_young) or deleted - changed == limit or changed == limit \
        or series_deleted == limit
    return PassResult(removed, deleted + series_deleted, plan.resume_id, more)


def merge_ledger(cursor, job: str, topic: str, days: int, from_id: int, limit: int) -> tuple[datetime.datetime, int, Plan, int]:
    """One pass over up to `limit` ledger rows: (the cutoff, rows read, the plan, rows merged away)."""
    cutoff = cutoff_of(cursor, days)
    cursor.execute(SELECT_LEDGER, (job, topic, from_id, limit))
    rows = [LedgerRow(*row) for row in cursor.fetchall()]
    plan = plan_merges(rows, cutoff, from_id)
    removed = 0
    for merge in plan.merges:
        kept = merge.merged
        cursor.execute(UPDATE_MERGED, (kept.records, kept.error_lines, kept.rejected, kept.batches,
                                       kept.offsets_before, kept.log_records, kept.id, job, topic))
        removed += cursor.execute(DELETE_MERGED, (job, topic, merge.first_id, kept.id))
    return cutoff, len(rows), plan, removed


def cutoff_of(cursor, days: int) -> datetime.datetime:
    cursor.execute(SELECT_CUTOFF, (days,))
    row = cursor.fetchone()
    assert row is not None, "a SELECT of an expression returns one row"
    return row[0]


class Retention:
    """Runs a pass after a batch commit when one is due: at once after a pass that had more to
    do, else IDLE_SECONDS later. A failed pass is logged and tried again later: it rolled back,
    and the batch it follows is already committed."""

    def __init__(self, days: int, clock=time.monotonic, series_days: int = 0):
        self.days, self.clock, self.series_days = days, clock, series_days
        self.due = clock()
        self.resume_ids: dict[str, int] = {}  # per topic, where its next pass reads the ledger from
        self.turn = 0  # passes go round the job's topics, one topic each

    def after_commit(self, job_store: store.Store, topics: list[str]) -> None:
        """`topics`: those the job has offsets of (a pass prunes one topic's ledger rows and dead letters)."""
        if not (self.days or self.series_days) or self.clock() < self.due or not topics:
            return
        try:
            topic = topics[self.turn % len(topics)]
            result = run_pass(job_store, topic, self.days, self.resume_ids.get(topic, 0), series_days=self.series_days)
        except Exception as error:
            log.warning("retention pass failed (%s); it changed nothing and counting carries on; next try in %d s",
                        error, IDLE_SECONDS)
            self.due = self.clock() + IDLE_SECONDS
            return
        if result.removed or result.deleted:
            log.info("retention (%d days, per-dimension counts %d days): merged away %d ledger rows, deleted %d dead "
                     "letters and per-dimension counts", self.days, self.series_days, result.removed, result.deleted)
        self.resume_ids[topic] = result.resume_id
        if not result.more:
            self.turn += 1  # the next topic's turn; a round over every topic waits IDLE_SECONDS
        self.due = self.clock() + (0 if result.more or self.turn % len(topics) else IDLE_SECONDS)
