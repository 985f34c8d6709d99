"""Per-batch aggregation: one Spark job yields everything the MySQL transaction needs."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql import functions as F

from errorcount.columns import once_per_app


@once_per_app
def _summary_columns() -> tuple[list[Column], list[Column]]:
    keys = [F.col("partition"), F.when(F.col("is_error"), F.col("minute")).alias("error_minute")]
    return keys, [F.count(F.lit(1)).alias("records"), F.count("reject_reason").alias("rejected"),
                  F.min("offset").alias("min_offset"), F.max("offset").alias("max_offset"),
                  F.min_by("reject_reason", "offset").alias("reject_reason"),
                  F.min_by("raw_value", "offset").alias("raw_value")]


def dead_letter_slots(limit: int, partitions: int) -> int:
    """Slots per partition for dead letters: together about `limit` (DEAD_LETTER_LIMIT)."""
    return -(-limit // max(partitions, 1)) if limit > 0 else 0


def batch_summary_df(classified: DataFrame, slots: int = 0) -> DataFrame:
    """In: classify_lines_df output (partition, offset, minute, is_error, reject_reason, raw_value).
    Out: partition, error_minute (epoch minute of ERROR rows, null for all other rows),
    dead_slot, records, rejected, min_offset, max_offset, reject_reason, raw_value.

    Rejected rows group by dead_slot = offset mod `slots`: each such group is a dead letter, its
    lowest offset (min_offset) with that row's reason and raw value. With slots 0, dead_slot,
    reject_reason and raw_value are null. So
    one job yields counts, offset ranges and the dead letters, at most partitions x (ERROR
    minutes + 1 + slots) rows; a partition whose batch spans at most `slots` offsets keeps every
    rejected row, a longer one keeps a sample spread over the batch."""
    keys, aggregates = _summary_columns()
    dead_slot = (F.when(F.col("reject_reason").isNotNull(), F.pmod(F.col("offset"), F.lit(slots))) if slots
                 else F.lit(None).cast("long"))
    if not slots:  # no dead letters (DEAD_LETTER_LIMIT=0): skip picking each group's first reject
        aggregates = aggregates[:4] + [F.lit(None).cast("string").alias("reject_reason"),
                                       F.lit(None).cast("binary").alias("raw_value")]
    return (classified.groupBy(*keys, dead_slot.alias("dead_slot")).agg(*aggregates)
            .select("partition", "error_minute", "dead_slot", "records", "rejected", "min_offset", "max_offset",
                    "reject_reason", "raw_value"))


@dataclass
class BatchSummary:
    """What one micro-batch contributes: totals, ERROR counts per epoch minute, the offset range
    seen per partition (inclusive) and dead letters (partition, offset, reason, raw value)."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)
    dead_letters: list[tuple[int, int, str, bytes | None]] = field(default_factory=list)


def summarize(rows: Iterable[Row], dead_letter_limit: int | None = None) -> BatchSummary:
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
        low, high = summary.ranges.get(row["partition"], (row["min_offset"], row["max_offset"]))
        summary.ranges[row["partition"]] = (min(low, row["min_offset"]), max(high, row["max_offset"]))
    summary.dead_letters = sorted(summary.dead_letters, key=lambda letter: letter[:2])[:dead_letter_limit]
    return summary
