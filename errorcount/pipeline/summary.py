"""One micro-batch's result, folded on the driver from the one pass's few rows (pure Python:
the store and the bench's pure-Python consumer use it without Spark)."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from errorcount.offsets import TopicPartition

DeadLetter = tuple[str, int, int, str, bytes | None]  # topic, partition, offset, reject reason, the value's first KiB


@dataclass(frozen=True)
class BatchSummary:
    """What one micro-batch contributes: totals, ERROR counts per epoch minute (and per minute and
    series with GROUP_BY), the offset range
    seen per topic and partition (inclusive) and dead letters (topic, partition, offset, reason, raw value). The
    one batch result from counting (count.count) to the transaction (store.Store.commit_batch):
    complete when made, never changed after."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)  # epoch minute: ERROR lines
    ranges: dict[TopicPartition, tuple[int, int]] = field(default_factory=dict)
    dead_letters: tuple[DeadLetter, ...] = ()
    newest_ms: int | None = None  # the newest Kafka record timestamp (epoch ms), when the rows carry it
    series_counts: dict[tuple[int, str], int] = field(default_factory=dict)  # (minute, series): ERROR lines, GROUP_BY
    # topic: (records, errors, rejected, log_records): Kafka records, ERROR lines and rejects among
    # their log records, and the log records (as many as records but for LOG_FORMAT=otlp)
    per_topic: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    # COUNT_LINES: every line (error or not, rejects not) per minute, and per (minute, series) with
    # GROUP_BY; a minute or series with lines and no ERROR line is in minute_counts/series_counts
    # with 0. Empty without COUNT_LINES.
    minute_lines: dict[int, int] = field(default_factory=dict)
    series_lines: dict[tuple[int, str], int] = field(default_factory=dict)
    log_records: int | None = None  # the log records in `records` (None: as many, one per record)
    # two rejected records fell on one dead-letter slot, so dead_letters holds only one of them
    # (the rejected log records of one OTLP request share their record's slot: no collision)
    collided: bool = False
    # rejected log records per (topic, epoch minute of their Kafka record's timestamp), when the rows
    # carry timestamps: rejects have no minute of their own (rejected_minutes, docs/operations.md)
    minute_rejects: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def lines(self) -> int:
        """The lines counted (COUNT_LINES; 0 without it): every minute's, the error ratio's denominator."""
        return sum(self.minute_lines.values())

    @property
    def records_logged(self) -> int:
        """The log records: `records` but for LOG_FORMAT=otlp, whose records hold many (or none)."""
        return self.records if self.log_records is None else self.log_records


# one_pass_summary_df's columns, in its order (OnePass.java emits them so; tests/oracles/catalyst.py
# selects them from here): summarize() unpacks rows in this order without a per-field lookup
FIELDS = ("topic", "partition", "minute", "series", "dead_slot", "records", "log_records", "errors", "rejected", "min_offset",
          "max_offset", "reject_reason", "raw_value", "newest_ms", "reject_minute")


def dead_letter_slots(limit: int, partitions: int) -> int:
    """Slots per partition for dead letters: together about `limit` (DEAD_LETTER_LIMIT) over
    `partitions` (of every topic read)."""
    return -(-limit // max(partitions, 1)) if limit > 0 else 0


def summarize(rows: Iterable[Any], dead_letter_limit: int | None = None, every_line: bool = False) -> BatchSummary:
    """Folds one_pass_summary_df rows (collected to the driver: one_pass.collect_fields' tuples, or
    pyspark Rows) into one BatchSummary, keeping at
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
    tuples (one_pass.collect_fields: FIELDS in order) or pyspark Rows of FIELDS in order (tuple
    unpacking, no per-field call), else by position, None for a field the rows do not have
    (newest_ms and reject_minute without timestamps)."""
    names = getattr(row, "__fields__", FIELDS)
    if tuple(names) == FIELDS:
        return lambda r: r
    index = {name: position for position, name in enumerate(names)}
    return lambda r: tuple(tuple.__getitem__(r, index[name]) if name in index else None for name in FIELDS)


def every_dead_letter(rows: Iterable[Any]) -> tuple[DeadLetter, ...]:
    """rejected_rows_df rows as dead letters (topic, partition, offset, reason, raw value), in
    order, one per record (an OTLP request's rejected log records share theirs: its first reason)."""
    letters = sorted((row["topic"], row["partition"], row["offset"], row["reject_reason"],
                      None if row["raw_value"] is None else bytes(row["raw_value"])) for row in rows)
    return tuple(letter for i, letter in enumerate(letters) if i == 0 or letter[:3] != letters[i - 1][:3])
