"""One micro-batch's result, folded on the driver from the aggregate's few rows (pure Python:
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
    one batch result from counting (batch.count) to the transaction (store.Store.commit_batch):
    complete when made, never changed after."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)
    ranges: dict[TopicPartition, tuple[int, int]] = field(default_factory=dict)
    dead_letters: tuple[DeadLetter, ...] = ()
    newest_ms: int | None = None  # the newest Kafka record timestamp (epoch ms), when the rows carry it
    series_counts: dict[tuple[int, str], int] = field(default_factory=dict)  # (minute, series): ERROR lines, GROUP_BY
    per_topic: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # topic: (records, errors, rejected)


def summarize(rows: Iterable[Any], dead_letter_limit: int | None = None) -> BatchSummary:
    """Folds batch_summary_df rows (collected to the driver) into one BatchSummary, keeping at
    most `dead_letter_limit` dead letters (None: all), lowest (topic, partition, offset) first."""
    records = errors = rejected = 0
    minute_counts: dict[int, int] = {}
    series_counts: dict[tuple[int, str], int] = {}
    ranges: dict[TopicPartition, tuple[int, int]] = {}
    dead_letters: list[DeadLetter] = []
    newest_ms: int | None = None
    per_topic: dict[str, tuple[int, int, int]] = {}
    get: Callable[[Any, str], Any] | None = None
    for row in rows:
        get = get or reader(row)
        partition = TopicPartition(get(row, "topic"), get(row, "partition"))
        minute, count, low, high = get(row, "error_minute"), get(row, "records"), get(row, "min_offset"), get(row, "max_offset")
        records += count
        rejects = get(row, "rejected")
        rejected += rejects
        topic_records, topic_errors, topic_rejected = per_topic.get(partition.topic, (0, 0, 0))
        per_topic[partition.topic] = (topic_records + count, topic_errors + (count if minute is not None else 0),
                                      topic_rejected + rejects)
        if minute is not None:
            errors += count
            minute_counts[minute] = minute_counts.get(minute, 0) + count
            series = get(row, "series")
            if series is not None:
                series_counts[minute, series] = series_counts.get((minute, series), 0) + count
        elif get(row, "dead_slot") is not None:
            raw = get(row, "raw_value")
            dead_letters.append((*partition, low, get(row, "reject_reason"), None if raw is None else bytes(raw)))
        newest = get(row, "newest_ms")
        if newest is not None and (newest_ms is None or newest > newest_ms):
            newest_ms = newest
        low_seen, high_seen = ranges.get(partition, (low, high))
        ranges[partition] = (min(low_seen, low), max(high_seen, high))
    kept = tuple(sorted(dead_letters, key=lambda letter: letter[:3])[:dead_letter_limit])
    return BatchSummary(records, errors, rejected, minute_counts, ranges, kept, newest_ms, series_counts, per_topic)


def reader(row: Any) -> Callable[[Any, str], Any]:
    """How to read a field of pyspark Rows shaped like `row` by position (a batch of many minutes
    and series has tens of thousands of rows; Row's lookup by name scans its fields), None for a
    field the rows do not have."""
    index = {name: position for position, name in enumerate(row.__fields__)}
    return lambda r, name: r[index[name]] if name in index else None


def every_dead_letter(rows: Iterable[Any]) -> tuple[DeadLetter, ...]:
    """rejected_rows_df rows as dead letters (topic, partition, offset, reason, raw value), in order."""
    return tuple(sorted((row["topic"], row["partition"], row["offset"], row["reject_reason"],
                         None if row["raw_value"] is None else bytes(row["raw_value"])) for row in rows))
