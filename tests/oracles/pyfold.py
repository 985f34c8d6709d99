"""The driver's fold of the one pass's rows in plain Python, row by row (the job's before it
folded with Arrow, errorcount/pipeline/fold.py): the second implementation the tests compare the
job's fold with, and the fold of Spark SQL's counting (catalyst.py) whose rows come as pyspark
Rows. summary_table makes the Arrow table the job's fold reads from such rows."""

from collections.abc import Callable, Iterable
from typing import Any

import pyarrow as pa

from errorcount.offsets import TopicPartition
from errorcount.pipeline.summary import FIELDS, BatchSummary, DeadLetter

# one_pass_summary_df's schema (OnePass.SCHEMA) as Arrow types
SCHEMA = pa.schema([("topic", pa.string()), ("partition", pa.int32()), ("minute", pa.int64()), ("series", pa.string()),
                    ("dead_slot", pa.int64()), ("records", pa.int64()), ("log_records", pa.int64()), ("errors", pa.int64()),
                    ("rejected", pa.int64()), ("min_offset", pa.int64()), ("max_offset", pa.int64()),
                    ("reject_reason", pa.string()), ("raw_value", pa.binary()), ("newest_ms", pa.int64()),
                    ("reject_minute", pa.int64())])


def summary_table(rows: Iterable[Any]) -> pa.Table:
    """Rows of summary.FIELDS (Rows or dicts; a field a row lacks is null, log_records its records)
    as the Arrow table the tasks send."""
    found = [row.asDict() if hasattr(row, "asDict") else dict(row) for row in rows]
    for row in found:
        row.setdefault("log_records", row.get("records"))
    return pa.Table.from_pylist([{name: row.get(name) for name in FIELDS} for row in found], schema=SCHEMA)


def summarize(rows: Iterable[Any], dead_letter_limit: int | None = None, every_line: bool = False) -> BatchSummary:
    """Folds rows of summary.FIELDS (pyspark Rows, or tuples in FIELDS' order) into one BatchSummary, keeping at
    most `dead_letter_limit` dead letters (None: all), lowest (topic, partition, offset) first.
    The offset ranges come from the rows with a partition. `every_line`: the rows were grouped
    with every line's minute (COUNT_LINES): lines are counted too.
    A batch of many minutes and series has tens of thousands of rows: each is unpacked once and
    added to per-partition accumulators, the totals are made from those at the end."""
    minute_counts: dict[int, int] = {}
    series_counts: dict[tuple[int, str], int] = {}
    minute_lines: dict[int, int] = {}
    series_lines: dict[tuple[int, str], int] = {}
    # (topic, partition): [records, errors, rejected, low offset, high offset, log records]
    partitions: dict[tuple[str, int | None], list[int]] = {}
    dead_letters: list[DeadLetter] = []
    collided = False
    newest_ms: int | None = None
    minute_rejects: dict[tuple[str, int], int] = {}
    values: Callable[[Any], tuple] | None = None
    for row in rows:
        values = values or reader(row)
        (topic, partition, minute, series, slot, count, logged, errors, rejects, low, high, reason, raw, newest,
         reject_minute) = values(row)
        if reject_minute is not None:  # the rejects of a row counted above, by their Kafka minute: nothing else
            minute_rejects[topic, reject_minute] = minute_rejects.get((topic, reject_minute), 0) + rejects
            continue
        logged = count if logged is None else logged  # rows without the column: one log record per record
        seen = partitions.get((topic, partition))
        if seen is None:
            seen = partitions[topic, partition] = [0, 0, 0, low, high, 0]
        seen[0] += count
        seen[2] += rejects
        seen[5] += logged
        if low < seen[3]:
            seen[3] = low
        if high > seen[4]:
            seen[4] = high
        if minute is not None:  # a group of lines: `logged` lines, `errors` of them ERROR lines
            seen[1] += errors
            minute_counts[minute] = minute_counts.get(minute, 0) + errors
            if every_line:
                minute_lines[minute] = minute_lines.get(minute, 0) + logged
            if series is not None:
                series_counts[minute, series] = series_counts.get((minute, series), 0) + errors
                if every_line:
                    series_lines[minute, series] = series_lines.get((minute, series), 0) + logged
        elif slot is not None:
            dead_letters.append((topic, partition, low, reason, None if raw is None else bytes(raw)))
            collided = collided or low != high
        if newest is not None and (newest_ms is None or newest > newest_ms):
            newest_ms = newest
    per_topic: dict[str, tuple[int, int, int, int]] = {}
    for (topic, _partition), (records, errors, rejected, _low, _high, logged) in partitions.items():
        was = per_topic.get(topic, (0, 0, 0, 0))
        per_topic[topic] = (was[0] + records, was[1] + errors, was[2] + rejected, was[3] + logged)
    # partition None: lines inside the batch's planned offsets (one_pass_summary_df's bounds),
    # counted across partitions; they bound no partition's range
    ranges = {TopicPartition(topic, partition): (seen[3], seen[4]) for (topic, partition), seen in partitions.items()
              if partition is not None}
    kept = tuple(sorted(dead_letters, key=lambda letter: letter[:3])[:dead_letter_limit])
    records, logged = sum(t[0] for t in per_topic.values()), sum(t[3] for t in per_topic.values())
    return BatchSummary(records, sum(t[1] for t in per_topic.values()), sum(t[2] for t in per_topic.values()), minute_counts,
                        ranges, kept, newest_ms, series_counts, per_topic, minute_lines, series_lines,
                        None if logged == records else logged, collided, minute_rejects)


def reader(row: Any) -> Callable[[Any], Any]:
    """How to unpack rows shaped like `row` into FIELDS' values: as they are when they are plain
    tuples (FIELDS in order) or pyspark Rows of FIELDS in order (tuple
    unpacking, no per-field call), else by position, None for a field the rows do not have
    (newest_ms and reject_minute without timestamps)."""
    names = getattr(row, "__fields__", FIELDS)
    if tuple(names) == FIELDS:
        return lambda r: r
    index = {name: position for position, name in enumerate(names)}
    return lambda r: tuple(tuple.__getitem__(r, index[name]) if name in index else None for name in FIELDS)
