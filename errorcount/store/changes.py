"""Complete minutes that changed afterwards (changed_minutes, docs/operations.md "Complete minutes
that changed"). A batch's lines whose minute was already complete when the batch began (it ends at
or before the job's stored complete_before) are late: for each such minute, and each of its series
with GROUP_BY, the batch's transaction writes a row with the minute's errors and lines before and
after the batch. Only late lines cost anything beyond one read of the job's mark per batch with
minutes; the rows are read back locked (the upserts hold them already), so before = after - added
whatever other writers added earlier."""

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from errorcount.offsets import minute_key
from errorcount.store.mysql import with_table

SELECT_COMPLETE_BEFORE = "SELECT complete_before FROM counted_through WHERE job = %s AND topic = %s"
SELECT_TOTALS = "SELECT log_time, log_count, line_count FROM `{table}` WHERE log_time IN ({keys}) FOR UPDATE"
# By the (job, log_time, series_id) key: the series the batch changed, not every series of the minute
SELECT_SERIES = ("SELECT log_time, series_id, log_count, line_count FROM error_series_counts "
                 "WHERE job = %s AND log_time = %s AND series_id IN ({keys}) FOR UPDATE")
INSERT_CHANGED = ("INSERT INTO changed_minutes (job, log_time, series_id, ledger_id, epoch, errors_before, errors_after, "
                  "lines_before, lines_after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)")
TOTAL = 0  # series_id of a minute's row in the counts table: error_series ids start at 1
CHUNK = 500  # minutes (or one minute's series) per read-back statement

Counts = Mapping[tuple[int, int], tuple[int, int]]  # (epoch minute, series id or TOTAL): (errors, lines)


def epoch_minute(value: datetime) -> int:
    """A DATETIME read from MySQL (UTC, the session's zone; naive) as an epoch minute."""
    return int(value.replace(tzinfo=UTC).timestamp()) // 60


def late(minutes: Iterable[int], complete_before: datetime | None) -> list[int]:
    """The epoch minutes of `minutes` already complete under `complete_before` (the stored mark:
    a minute is complete when it ends at or before it), in order."""
    if complete_before is None:
        return []
    mark_s = complete_before.replace(tzinfo=UTC).timestamp()
    return sorted(m for m in minutes if (m + 1) * 60 <= mark_s)


def changed_rows(job: str, epoch: int, ledger_id: int, added: Counts, after: Counts) -> list[tuple]:
    """changed_minutes rows, in key order: for each (minute, series) the batch `added` (errors,
    lines) to, its values `after` the batch and before it (after - added)."""
    rows = []
    for key in sorted(added):
        errors, lines = after[key]
        plus_errors, plus_lines = added[key]
        rows.append((job, minute_key(key[0]), key[1], ledger_id, epoch, errors - plus_errors, errors,
                     lines - plus_lines, lines))
    return rows


def stored_mark(cursor, job: str, topic: str = "") -> datetime | None:
    """The job's complete_before as stored, or one of its topics' (None before its first mark)."""
    cursor.execute(SELECT_COMPLETE_BEFORE, (job, topic))
    row = cursor.fetchone()
    return row[0] if row else None


def chunks(items: Sequence[int]) -> Iterable[Sequence[int]]:
    return (items[i:i + CHUNK] for i in range(0, len(items), CHUNK))


def read_back(cursor, job: str, table: str, added: Counts) -> dict[tuple[int, int], tuple[int, int]]:
    """The stored (errors, lines) of the keys in `added`, locked for the transaction: the counts
    table's rows of its minutes (TOTAL) and the job's rows of its series. As many reads as the
    batch changed minutes (and series), whatever the job's series in those minutes."""
    found: dict[tuple[int, int], tuple[int, int]] = {}
    series_of: dict[int, list[int]] = {}
    for minute, series in sorted(added):
        if series != TOTAL:
            series_of.setdefault(minute, []).append(series)
    for part in chunks(sorted({minute for minute, _series in added})):
        cursor.execute(with_table(SELECT_TOTALS, table).replace("{keys}", ", ".join(["%s"] * len(part))),
                       [minute_key(m) for m in part])
        found.update({(epoch_minute(t), TOTAL): (int(e), int(n)) for t, e, n in cursor.fetchall()})
    for minute, ids in series_of.items():
        for part in chunks(ids):
            cursor.execute(SELECT_SERIES.replace("{keys}", ", ".join(["%s"] * len(part))), [job, minute_key(minute), *part])
            found.update({(epoch_minute(t), int(i)): (int(e), int(n)) for t, i, e, n in cursor.fetchall()})
    return found


def record(cursor, job: str, epoch: int, ledger_id: int, table: str, added: Counts) -> None:
    """Writes the changed_minutes rows of what a batch `added` to complete minutes (totals under
    TOTAL, series under their ids)."""
    if added:
        cursor.executemany(INSERT_CHANGED, changed_rows(job, epoch, ledger_id, added, read_back(cursor, job, table, added)))
