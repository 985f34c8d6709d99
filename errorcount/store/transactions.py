"""The job's MySQL transactions, as the methods of one Store per job: the schema check, the counts
table's claim, the one transaction per batch and counted_through's (the lease, the start and the
fencing are its base's, lease.py; retention's pruning statements live in errorcount/store/retention.py
and run through transaction() too).

Statements are always parameterized. Writes happen only inside transaction(), which rolls back
on any exception (errorcount/store/mysql.py), so a batch's counts, offsets, dead letters and ledger row are committed together
or not at all.
"""

from collections.abc import Mapping

from errorcount.counted_through import Through
from errorcount.offsets import Position, minute_key
from errorcount.pipeline.summary import BatchSummary
from errorcount.store import changes, schema
from errorcount.store import marks as counted_marks
from errorcount.store.lease import LeaseStore, Reattempt
from errorcount.store.mysql import AlreadyApplied, transaction, with_table
from errorcount.store.rows import ledger_rows, rejected_minute_rows
from errorcount.store.statements import (
    INSERT_LEDGER,
    INSERT_REJECTED,
    RAISE_SEEN,
    UPSERT_COUNTS,
    UPSERT_OFFSETS,
    UPSERT_REJECTED_MINUTES,
)

__all__ = ["Reattempt", "Store"]


class Store(LeaseStore):
    """The job's MySQL transactions, one method each (the lease, the start and the fencing: LeaseStore)."""

    def verify_schema(self, database: str) -> None:
        """Raises ConfigError naming every missing table, column, index, engine or type (schema.verify)."""
        with transaction(self.conn) as cursor:
            schema.verify(cursor, database, self.counts_table)

    def claim_counts_table(self, share: bool) -> list[str]:
        """Makes the counts table this job's, or raises ConfigError (schema.claim_counts_table);
        returns the other jobs that share it."""
        with transaction(self.conn) as cursor:
            return schema.claim_counts_table(cursor, self.counts_table, self.job, share)

    def commit_batch(self, batch: BatchSummary, before: Position, after: Position, topic_ids: Mapping[str, str],
                     seen: Position | None = None, marks: Through | None = None) -> bool:
        """One transaction: check that MySQL holds `before` under this epoch, add the batch's counts
        to the counts table (and per series, with GROUP_BY), store `after` (each topic's under its ID
        in `topic_ids`: never an offset without one) with the end offsets `seen` (raised, never
        lowered), its rejects per minute, its dead letters, its ledger rows (ledger_rows), the complete minutes it changed
        (changes.py) and counted_through (`marks`, as `after` allows them:
        errorcount/counted_through.py). Keys are written in sorted order
        so concurrent writers cannot deadlock. False when MySQL already held `after` under this
        epoch (an earlier attempt's COMMIT applied late): nothing written."""
        job, seen = self.job, seen or {}
        rows = sorted(tp for tp, o in after.items() if before.get(tp) != o or tp in seen)
        unknown = sorted({tp.topic for tp in rows if not topic_ids.get(tp.topic)})
        if unknown:
            raise ValueError(f"no topic ID for topic(s) {unknown}: offsets are never stored without the ID of their topic")
        written = None
        try:
            with transaction(self.conn, self.hooks) as cursor:
                self.check_owner(cursor, before, applied=after)
                minutes = sorted(batch.minute_counts.keys() | batch.minute_lines.keys())
                late = changes.late(minutes, changes.stored_mark(cursor, job)) if minutes else []
                if minutes:
                    cursor.executemany(with_table(UPSERT_COUNTS, self.counts_table),
                                       [(minute_key(m), batch.minute_counts.get(m, 0), batch.minute_lines.get(m, 0))
                                        for m in minutes])
                if self.series and batch.series_counts:
                    written = self.series.write(cursor, batch.series_counts, batch.series_lines, frozenset(late))
                cursor.executemany(UPSERT_OFFSETS, [(job, *tp, after[tp], topic_ids[tp.topic],
                                                     max(after[tp], seen.get(tp, 0)), 0) for tp in rows])
                if batch.minute_rejects:
                    cursor.executemany(UPSERT_REJECTED_MINUTES, rejected_minute_rows(job, batch.minute_rejects))
                if batch.dead_letters:
                    cursor.executemany(INSERT_REJECTED, [(job, *letter) for letter in sorted(batch.dead_letters)])
                series = (written.new_series, written.overflow_lines) if written else (0, 0)
                cursor.executemany(INSERT_LEDGER, ledger_rows(job, self.epoch, batch, before, after, series))
                if late:  # lastrowid: the first row of the ledger's one multi-row INSERT
                    added = {(m, changes.TOTAL): (batch.minute_counts.get(m, 0), batch.minute_lines.get(m, 0)) for m in late}
                    changes.record(cursor, job, self.epoch, cursor.lastrowid, self.counts_table,
                                   {**added, **(written.changed if written else {})})
                if marks is not None:
                    counted_marks.write(cursor, job, self.lateness_s, marks)
        except AlreadyApplied:
            return False
        except BaseException:
            if self.series:
                self.series.forget()
            raise
        if written and self.series:
            self.series.committed(written)
        return True

    def store_marks(self, stored: Position, marks: Through, seen: Position | None = None,
                    topic_ids: Mapping[str, str] | None = None) -> None:
        """counted_through alone (the topics idle, no batch to carry it), and the end offsets `seen`
        of partitions whose batch is not due yet (raised, never lowered; each only on the row of
        its topic's ID in `topic_ids`): in one transaction, under this epoch's lease, with MySQL
        holding `stored`, the offsets `marks` were derived from (FencedError otherwise)."""
        with transaction(self.conn) as cursor:
            self.check_owner(cursor, stored)
            counted_marks.write(cursor, self.job, self.lateness_s, marks)
            ids = topic_ids or {}
            cursor.executemany(RAISE_SEEN, [(end, self.job, *tp, ids[tp.topic])
                                            for tp, end in sorted((seen or {}).items()) if ids.get(tp.topic)])

    def load_marks(self) -> tuple[dict[str, int], int | None]:
        """The stored counted_through (epoch ms): per topic, and the job's."""
        with transaction(self.conn) as cursor:
            return counted_marks.read(cursor, self.job)
