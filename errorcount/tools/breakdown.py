"""Per-dimension counts (GROUP_BY) as people read them: one dimension's values per minute, from
the error_counts_by_label view (sql/schema.sql), the biggest values first and the rest as one
"other". Used by make counts BY=... and make report."""

from collections.abc import Mapping
from datetime import datetime

from errorcount.config import dimensions
from errorcount.store import changes

# Every value with a line or an ERROR line (a series with lines and no ERROR line, COUNT_LINES, has
# log_count 0).
SELECT_BY_LABEL = ("SELECT log_time, value, SUM(log_count), SUM(line_count) FROM error_counts_by_label "
                   "WHERE job = %s AND dimension = %s AND log_time BETWEEN %s AND %s GROUP BY log_time, value "
                   "HAVING SUM(log_count) > 0 OR SUM(line_count) > 0")
SELECT_NEWEST = "SELECT MAX(log_time) FROM error_series_counts WHERE job = %s"
OVERFLOW = "(over MAX_SERIES)"  # the overflow series' value (NULL in the tables)
EMPTY = "(none)"                # a record without the value (stored as '')
OTHER = "(other values)"


def dimension_of(by: str, group_by: str) -> str:
    """The dimension BY names: as written (level, field:service.name, resource:service.name), or
    a JSON field's name alone (service.name) when that is no dimension. Empty BY: GROUP_BY's first."""
    by = by.strip()
    if not by:
        return dimensions.names(group_by)[0] if group_by else ""
    return by if dimensions.is_dimension(by) else dimensions.FIELD + by


def read(conn, job: str, dimension: str, since: datetime, until: datetime) -> dict[str, dict[datetime, int]]:
    """{value: {minute: ERROR lines}} of one dimension of a job's series, minutes since..until: the
    values with an ERROR line."""
    errors = {value: {minute: counted[0] for minute, counted in minutes.items() if counted[0]}
              for value, minutes in read_lines(conn, job, dimension, since, until).items()}
    return {value: minutes for value, minutes in errors.items() if minutes}


def read_lines(conn, job: str, dimension: str, since: datetime, until: datetime) -> dict[str, dict[datetime, tuple[int, int]]]:
    """{value: {minute: (ERROR lines, lines)}} of one dimension of a job's series, minutes
    since..until: every value with a line or an ERROR line (COUNT_LINES)."""
    with conn.cursor() as cursor:
        cursor.execute(SELECT_BY_LABEL, (job, dimension, since, until))
        rows = cursor.fetchall()
    found: dict[str, dict[datetime, tuple[int, int]]] = {}
    for minute, value, errors, lines in rows:
        name = OVERFLOW if value is None else value or EMPTY
        was = found.setdefault(name, {}).get(minute, (0, 0))
        found[name][minute] = (was[0] + int(errors), was[1] + int(lines))
    return found


def complete_before(conn, job: str, topic: str = "") -> datetime | None:
    """The job's own complete_before (docs/operations.md, "Complete minutes"), or one of its topics'
    (make counts TOPIC=); None before its first mark."""
    with conn.cursor() as cursor:
        return changes.stored_mark(cursor, job, topic)  # the job's own query


def newest_minute(conn, job: str) -> datetime | None:
    with conn.cursor() as cursor:
        cursor.execute(SELECT_NEWEST, (job,))
        row = cursor.fetchone()
    return row[0] if row else None


def top(values: Mapping[str, Mapping[datetime, int]], count: int) -> dict[str, dict[datetime, int]]:
    """The `count` values with most lines (ties by name), the others summed into OTHER."""
    ranked = sorted(values, key=lambda value: (-sum(values[value].values()), value))
    kept = {value: dict(values[value]) for value in ranked[:count]}
    rest: dict[datetime, int] = {}
    for value in ranked[count:]:
        for minute, lines in values[value].items():
            rest[minute] = rest.get(minute, 0) + lines
    return {**kept, OTHER: rest} if rest else kept
