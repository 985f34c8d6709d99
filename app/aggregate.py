"""Per-batch aggregation: one Spark job yields everything the MySQL transaction needs."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql import functions as F

from app.columns import once_per_app


@once_per_app
def _summary_columns() -> tuple[list[Column], list[Column]]:
    keys = [F.col("partition"), F.when(F.col("is_error"), F.col("minute")).alias("error_minute")]
    return keys, [F.count(F.lit(1)).alias("records"), F.count("reject_reason").alias("rejected"),
                  F.min("offset").alias("min_offset"), F.max("offset").alias("max_offset")]


def batch_summary_df(classified: DataFrame) -> DataFrame:
    """In: classify_lines_df output (partition, offset, minute, is_error, reject_reason).
    Out: partition, error_minute (epoch minute of ERROR rows, null for all other rows),
    records, rejected, min_offset, max_offset. At most partitions x (ERROR minutes + 1) rows."""
    keys, aggregates = _summary_columns()
    return (classified.groupBy(*keys).agg(*aggregates)
            .select("partition", "error_minute", "records", "rejected", "min_offset", "max_offset"))


@dataclass
class BatchSummary:
    """What one micro-batch contributes: totals, ERROR counts per epoch minute and the offset
    range seen per partition (inclusive)."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)


def summarize(rows: Iterable[Row]) -> BatchSummary:
    """Folds batch_summary_df rows (collected to the driver) into one BatchSummary."""
    summary = BatchSummary()
    for row in rows:
        summary.records += row["records"]
        summary.rejected += row["rejected"]
        if row["error_minute"] is not None:
            summary.errors += row["records"]
            minute = row["error_minute"]
            summary.minute_counts[minute] = summary.minute_counts.get(minute, 0) + row["records"]
        low, high = summary.ranges.get(row["partition"], (row["min_offset"], row["max_offset"]))
        summary.ranges[row["partition"]] = (min(low, row["min_offset"]), max(high, row["max_offset"]))
    return summary
