"""One micro-batch's result, folded on the driver from the aggregate's few rows (pure Python:
the store and the bench's pure-Python consumer use it without Spark)."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class BatchSummary:
    """What one micro-batch contributes: totals, ERROR counts per epoch minute, the offset range
    seen per partition (inclusive) and dead letters (partition, offset, reason, raw value). The
    one batch result from the aggregate (summarize) to the transaction (store.commit_batch)."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)
    dead_letters: list[tuple[int, int, str, bytes | None]] = field(default_factory=list)
    newest_ms: int | None = None  # the newest Kafka record timestamp (epoch ms), when the rows carry it


def summarize(rows: Iterable[Any], dead_letter_limit: int | None = None) -> BatchSummary:
    """Folds batch_summary_df rows (collected to the driver) into one BatchSummary, keeping at
    most `dead_letter_limit` dead letters (None: all), lowest (partition, offset) first."""
    summary = BatchSummary()
    for row in rows:
        summary.records += row["records"]
        summary.rejected += row["rejected"]
        if row["error_minute"] is not None:
            summary.errors += row["records"]
            minute = row["error_minute"]
            summary.minute_counts[minute] = summary.minute_counts.get(minute, 0) + row["records"]
        if row["dead_slot"] is not None:
            raw = row["raw_value"]
            summary.dead_letters.append((row["partition"], row["min_offset"], row["reject_reason"],
                                         None if raw is None else bytes(raw)))
        newest = optional(row, "newest_ms")
        if newest is not None and (summary.newest_ms is None or newest > summary.newest_ms):
            summary.newest_ms = newest
        low, high = summary.ranges.get(row["partition"], (row["min_offset"], row["max_offset"]))
        summary.ranges[row["partition"]] = (min(low, row["min_offset"]), max(high, row["max_offset"]))
    summary.dead_letters = sorted(summary.dead_letters, key=lambda letter: letter[:2])[:dead_letter_limit]
    return summary


def optional(row: Any, name: str):
    """row[name], or None when the row has no such field (a pyspark Row raises ValueError)."""
    try:
        return row[name]
    except (KeyError, ValueError):
        return None


def every_dead_letter(rows: Iterable[Any]) -> list[tuple[int, int, str, bytes | None]]:
    """rejected_rows_df rows as dead letters (partition, offset, reason, raw value), in order."""
    return sorted((row["partition"], row["offset"], row["reject_reason"],
                   None if row["raw_value"] is None else bytes(row["raw_value"])) for row in rows)
