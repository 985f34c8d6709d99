"""make counts' calendar of minutes, its CHANGED=1 listing and TOPIC='s marks (errorcount/tools/counts.py
prints them). A minute with no row between the first and the newest row had no line at all: the
calendar shows it as quiet, 0 lines, so a ratio over a range has the range's every minute
(docs/operations.md, "Quiet minutes")."""

from collections.abc import Mapping
from datetime import datetime, timedelta

MINUTE = timedelta(minutes=1)
SELECT_SPAN = "SELECT MIN(log_time), MAX(log_time) FROM `{table}`"
SELECT_RANGE = "SELECT log_time, log_count, line_count FROM `{table}` WHERE log_time BETWEEN %s AND %s"
SELECT_REJECTED = ("SELECT log_time, SUM(rejected) FROM rejected_minutes WHERE job = %s AND (%s = '' OR topic = %s) "
                   "AND log_time BETWEEN %s AND %s GROUP BY log_time")
SELECT_TOPICS = "SELECT topic, through_at, complete_before, holds_back_job FROM complete_by_topic WHERE job = %s ORDER BY topic"
# A series by its labels (dimension=value, in dimension order; the overflow series' values are NULL)
SELECT_CHANGED = ("SELECT c.log_time, c.series_id, "
                  "(SELECT GROUP_CONCAT(CONCAT(l.dimension, '=', COALESCE(l.value, '(overflow)')) ORDER BY l.dimension "
                  "SEPARATOR ' ') FROM error_series_labels l WHERE l.series_id = c.series_id), "
                  "c.errors_before, c.errors_after, c.lines_before, c.lines_after, c.changed_at, c.ledger_id "
                  "FROM changed_minutes c WHERE c.job = %s ORDER BY c.changed_at DESC, c.log_time DESC, c.series_id LIMIT %s")


def window(first: datetime | None, newest: datetime | None, rows: int, complete_before: datetime | None,
           only_complete: bool = False) -> tuple[datetime, datetime] | None:
    """The calendar's minutes [start, end]: `rows` minutes ending at the newest row (`only_complete`:
    at the newest minute that ends at or before `complete_before`), none before the first row;
    None when there is no such minute."""
    if first is None or newest is None or (only_complete and complete_before is None):
        return None
    end = newest
    if only_complete and complete_before is not None:
        end = min(newest, complete_before.replace(second=0, microsecond=0) - MINUTE)
    start = max(first, end - (rows - 1) * MINUTE)
    return (start, end) if start <= end else None


def calendar(found: Mapping[datetime, tuple[int, int]], start: datetime, end: datetime) -> list[tuple[datetime, int, int, bool]]:
    """Every minute from `end` back to `start`: (minute, ERROR lines, lines, had a row); a minute
    without a row is (minute, 0, 0, False)."""
    minutes, minute = [], end
    while minute >= start:
        errors, lines = found.get(minute, (0, 0))
        minutes.append((minute, errors, lines, minute in found))
        minute -= MINUTE
    return minutes


def changed_table(rows: list[tuple]) -> list[str]:
    """make counts CHANGED=1's lines: newest change first, each row's minute, series (the minute's
    total, or its GROUP_BY values), errors and lines before -> after, when and in which batch."""
    shown = [f"{'minute':<18}{'series':<34}{'ERROR lines':>20}{'lines':>24}  changed at (UTC)         batch"]
    for log_time, series_id, labels, errors_before, errors_after, lines_before, lines_after, changed_at, ledger_id in rows:
        series = "(minute total)" if series_id == 0 else (labels or f"series {series_id}")
        shown.append(f"{log_time:%Y-%m-%d %H:%M}  {series[:32]:<32}{f'{errors_before} -> {errors_after}':>20}"
                     f"{f'{lines_before} -> {lines_after}':>24}  {changed_at:%Y-%m-%d %H:%M:%S.%f}"[:-3]
                     + f"  {ledger_id}")
    if len(shown) == 1:
        shown.append("no complete minute changed: late lines would be listed here (docs/operations.md, "
                     "'Complete minutes that changed')")
    return shown


def show_changed(conn, job: str, rows: int) -> int:
    with conn.cursor() as cursor:
        cursor.execute(SELECT_CHANGED, (job, rows))
        found = cursor.fetchall()
    print(f"job {job}: complete minutes that changed afterwards, newest first")
    print("\n".join(changed_table(list(found))))
    return 0


def topic_marks(conn, job: str) -> list[str]:
    """Each topic's marks (complete_by_topic), for make counts TOPIC=."""
    with conn.cursor() as cursor:
        cursor.execute(SELECT_TOPICS, (job,))
        found = cursor.fetchall()
    return [f"  {topic}: counted through {through:%Y-%m-%d %H:%M:%S} UTC, complete before {complete:%Y-%m-%d %H:%M:%S} UTC"
            + (" (holds the job's mark back)" if holds else "") for topic, through, complete, holds in found]


def rejected(conn, job: str, topic: str, start: datetime, end: datetime) -> dict[datetime, int]:
    """The job's rejects per minute of their Kafka timestamp in [start, end]: of `topic`, or of every topic ('')."""
    with conn.cursor() as cursor:
        cursor.execute(SELECT_REJECTED, (job, topic, topic, start, end))
        return {log_time: int(count) for log_time, count in cursor.fetchall()}

