"""A batch's rows for error_series_counts (sql/schema.sql) as Arrow columns, and their upsert:
pure functions of the batch's (minute, series) counts and its series' ids, and the one statement
that adds them (errorcount/store/series.py calls it in the batch's transaction)."""

from collections.abc import Collection

import pyarrow as pa
import pyarrow.compute as pc

# A batch's (minute, series) rows as one JSON array of [epoch minute, series_id, log_count, line_count]
# per statement, read by the server's JSON_TABLE (MariaDB 10.6+, MySQL 8.0.4+): PyMySQL's executemany
# formats every parameter of every row in Python (~3.5 us a row, 16 380 rows a batch counting every
# line of the bench's access corpus by path,status); the array is written by Arrow's kernels from the
# batch's columns (rows_json), the server's work is the same (docs/performance.md, "Counting every
# line"). The minute is sent as its number and made a DATETIME by the server from a DATETIME
# literal: no session or server time zone takes part (TIMESTAMPADD on a DATETIME is calendar
# arithmetic), and the array is digits only.
UPSERT_SERIES_COUNTS = ("INSERT INTO error_series_counts (job, log_time, series_id, log_count, line_count) "
                        "SELECT %s, TIMESTAMPADD(MINUTE, j.minute, TIMESTAMP'1970-01-01 00:00:00'), j.series_id, "
                        "j.log_count, j.line_count FROM JSON_TABLE(%s, '$[*]' "
                        "COLUMNS (minute BIGINT PATH '$[0]', series_id BIGINT PATH '$[1]', log_count BIGINT PATH '$[2]', "
                        "line_count BIGINT PATH '$[3]')) AS j ON DUPLICATE KEY UPDATE "
                        "log_count = error_series_counts.log_count + j.log_count, "
                        "line_count = error_series_counts.line_count + j.line_count")
ROWS_PER_UPSERT = 20_000  # ~0.4 MB of JSON: far under max_allowed_packet (16 MB on MariaDB, 64 MB on MySQL 8)
ROW_COLUMNS = ("minute", "series_id", "log_count", "line_count")  # a row of the upsert's JSON, in its order


def series_rows(batch: pa.Table, ids: pa.Array, shared: bool) -> pa.Table:
    """Pure: a batch's rows for error_series_counts, ROW_COLUMNS (epoch minute, series id, ERROR
    lines, lines), in (minute, series id) order. `batch`: series_columns.SCHEMA's table (a row per
    (minute, series)); `ids`: each row's series id. With `shared` (series that overflow share the
    overflow series' id) the rows of one (minute, id) are added up. Arrow's kernels: no Python per row."""
    rows = pa.table([batch["minute"], ids, batch["errors"], batch["lines"]], names=list(ROW_COLUMNS))
    if shared and rows.num_rows:
        added = rows.group_by(["minute", "series_id"], use_threads=False).aggregate([("log_count", "sum"), ("line_count", "sum")])
        rows = pa.table([added["minute"], added["series_id"], added["log_count_sum"], added["line_count_sum"]],
                        names=list(ROW_COLUMNS))
    return rows.sort_by([("minute", "ascending"), ("series_id", "ascending")])


def rows_json(rows: pa.Table) -> str:
    """`rows` (series_rows's) as the upsert's JSON array, [[minute,id,errors,lines],...] without blanks
    (json.dumps's compact text of the same numbers), written by Arrow: each number cast to its
    decimal text, each row's joined by commas, the rows by "],["."""
    if not rows.num_rows:
        return "[]"
    text = pc.binary_join_element_wise(*(pc.cast(rows[name], pa.string()) for name in ROW_COLUMNS), ",").combine_chunks()
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(text)], pa.int32()), text), "],[")
    return f"[[{joined[0].as_py()}]]"


def upsert(cursor, job: str, rows: pa.Table) -> None:
    """Adds series_rows's `rows` to the job's error_series_counts, ROWS_PER_UPSERT rows a statement."""
    for at in range(0, rows.num_rows, ROWS_PER_UPSERT):
        cursor.execute(UPSERT_SERIES_COUNTS, (job, rows_json(rows.slice(at, ROWS_PER_UPSERT))))


def changed_rows(rows: pa.Table, late: Collection[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """{(minute, series id): (ERROR lines, lines)} of series_rows's `rows` whose minute is in `late`."""
    if not late or not rows.num_rows:
        return {}
    picked = rows.filter(pc.is_in(rows["minute"], value_set=pa.array(sorted(late), pa.int64())))
    found = zip(*(picked[name].to_pylist() for name in ROW_COLUMNS), strict=True)
    return {(minute, series_id): (errors, lines) for minute, series_id, errors, lines in found}
