"""The driver's fold of the one pass's rows (one_pass_summary_df) into one BatchSummary, done by
Arrow's C++ kernels on the record batches the tasks sent (pyarrow.compute, hash aggregation): no
Python object per row. A batch counting every line by a GROUP_BY has a row per (minute, series)
and task, tens of thousands of them; their groups stay Arrow columns (series_columns.py) to the
store, and Python builds only the dicts of minutes and partitions.

tests/oracles/pyfold.summarize is the same fold in plain Python, row by row, over pyspark Rows: the tests
fold Spark SQL's counting of the same batch with it (tests/oracles/catalyst.py) and compare."""

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from errorcount.offsets import TopicPartition
from errorcount.pipeline import series_columns
from errorcount.pipeline.summary import FIELDS, BatchSummary


def fold(table: pa.Table, dead_letter_limit: int | None = None, every_line: bool = False) -> BatchSummary:
    """`table`: one_pass_summary_df's rows (every column of summary.FIELDS), as summarize reads
    them: the groups of lines per minute (and series), the per-partition totals and offset ranges
    (rows with a partition), dead letters (rows with a dead slot, at most `dead_letter_limit`
    kept, lowest (topic, partition, offset) first; None: all) and the rejects per topic and
    minute of their Kafka time (rows with reject_minute, nothing else counted in them)."""
    missing = [name for name in FIELDS if name not in table.column_names]
    if missing:
        raise ValueError(f"the one pass's rows lack {missing}: fold takes one_pass_summary_df's columns")
    # Each filter copies every column it keeps, and a batch counting every line by a GROUP_BY has
    # tens of thousands of rows with a series string each: every step keeps only the columns it
    # reads, and a filter that would keep every row is not run.
    per_minute = _where(table.select(["topic", "reject_minute", "rejected"]), pc.is_valid(table["reject_minute"]))
    rows = _where(table, pc.is_null(table["reject_minute"]))
    logged = pc.coalesce(rows["log_records"], rows["records"])  # without the column: one log record per record
    counted = pc.is_valid(rows["minute"])
    rows = rows.append_column("logged", logged).append_column("line_errors", pc.if_else(counted, rows["errors"], 0))
    partitions = _grouped(rows.select(["topic", "partition", "records", "line_errors", "rejected", "min_offset", "max_offset",
                                       "logged"]),
                          ["topic", "partition"], [("records", "sum"), ("line_errors", "sum"), ("rejected", "sum"),
                                                   ("min_offset", "min"), ("max_offset", "max"), ("logged", "sum")])
    lines = _where(rows.select(["minute", "series", "errors", "logged"]), counted)
    minutes = _grouped(lines, ["minute"], [("errors", "sum"), ("logged", "sum")])
    series = _series(_where(lines, pc.is_valid(lines["series"])))
    letters, collided = _dead_letters(_where(rows, pc.and_(pc.invert(counted), pc.is_valid(rows["dead_slot"]))))
    per_topic: dict[str, tuple[int, int, int, int]] = {}
    ranges = {}
    for topic, partition, records, errors, rejected, low, high, log_records in zip(*partitions, strict=True):
        was = per_topic.get(topic, (0, 0, 0, 0))
        per_topic[topic] = (was[0] + records, was[1] + errors, was[2] + rejected, was[3] + log_records)
        if partition is not None:  # partition None: lines inside the batch's bounds, counted across partitions
            ranges[TopicPartition(topic, partition)] = (low, high)
    records, log_records = sum(t[0] for t in per_topic.values()), sum(t[3] for t in per_topic.values())
    rejects = _grouped(per_minute, ["topic", "reject_minute"], [("rejected", "sum")])
    minute_keys = minutes[0]
    series_counts, series_lines = series_columns.views(series)
    return BatchSummary(
        records=records, errors=sum(t[1] for t in per_topic.values()), rejected=sum(t[2] for t in per_topic.values()),
        minute_counts=dict(zip(minute_keys, minutes[1], strict=True)), ranges=ranges,
        dead_letters=tuple(letters[:dead_letter_limit]),
        newest_ms=pc.max(rows["newest_ms"]).as_py() if rows.num_rows else None,
        series_counts=series_counts, per_topic=per_topic,
        minute_lines=dict(zip(minute_keys, minutes[2], strict=True)) if every_line else {},
        series_lines=series_lines if every_line else {},
        log_records=None if log_records == records else log_records, collided=collided,
        minute_rejects=dict(zip(zip(rejects[0], rejects[1], strict=True), rejects[2], strict=True)))


def _where(table: pa.Table, keep: pa.ChunkedArray | pa.Array) -> pa.Table:
    """The rows of `table` where `keep` is true (a null is not): the table itself when that is
    every row, else a filtered copy."""
    if keep.null_count == 0 and pc.all(keep).as_py():
        return table
    return table.filter(keep)


def _grouped(table: pa.Table, keys: list[str], sums: list[tuple[str, str]]) -> list[list[Any]]:
    """The groups of `table` by `keys` (a null key is a key of its own), as Python lists: the keys'
    columns, then each aggregate's, in the order asked."""
    if not table.num_rows:
        return [[] for _ in (*keys, *sums)]
    found = table.group_by(keys, use_threads=False).aggregate(list(sums))
    return [found[name].to_pylist() for name in (*keys, *(f"{column}_{how}" for column, how in sums))]


def _series(lines: pa.Table) -> pa.Table:
    """The lines' groups by (minute, series) as series_columns.SCHEMA's table: stays columns."""
    if not lines.num_rows:
        return series_columns.SCHEMA.empty_table()
    found = lines.group_by(list(series_columns.KEYS), use_threads=False).aggregate([("errors", "sum"), ("logged", "sum")])
    columns = [found[name] for name in ("minute", "series", "errors_sum", "logged_sum")]
    return pa.table([column.cast(field.type) for column, field in zip(columns, series_columns.SCHEMA, strict=True)],
                    schema=series_columns.SCHEMA)


def _dead_letters(table: pa.Table) -> tuple[list[tuple], bool]:
    """The dead-slot rows as dead letters (topic, partition, offset, reason, raw value), lowest
    (topic, partition, offset) first; whether two rejects fell on one slot (its offsets differ)."""
    if not table.num_rows:
        return [], False
    table = table.sort_by([("topic", "ascending"), ("partition", "ascending"), ("min_offset", "ascending")])
    raws = [None if raw is None else bytes(raw) for raw in table["raw_value"].to_pylist()]
    letters = list(zip(table["topic"].to_pylist(), table["partition"].to_pylist(), table["min_offset"].to_pylist(),
                       table["reject_reason"].to_pylist(), raws, strict=True))
    return letters, bool(pc.any(pc.not_equal(table["min_offset"], table["max_offset"])).as_py())
