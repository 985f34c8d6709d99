"""Per-batch aggregation: one Spark job yields everything the MySQL transaction needs
(errorcount/summary.py folds its rows into the batch's BatchSummary)."""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from errorcount.columns import once_per_app


@once_per_app
def _summary_columns() -> tuple[list[Column], list[Column]]:
    keys = [F.col("topic"), F.col("partition"), F.when(F.col("is_error"), F.col("minute")).alias("error_minute"), F.col("series")]
    return keys, [F.count(F.lit(1)).alias("records"), F.count("reject_reason").alias("rejected"),
                  F.min("offset").alias("min_offset"), F.max("offset").alias("max_offset"),
                  F.min_by("reject_reason", "offset").alias("reject_reason"),
                  F.min_by("raw_value", "offset").alias("raw_value")]


def dead_letter_slots(limit: int, partitions: int) -> int:
    """Slots per partition for dead letters: together about `limit` (DEAD_LETTER_LIMIT) over
    `partitions` (of every topic read)."""
    return -(-limit // max(partitions, 1)) if limit > 0 else 0


def batch_summary_df(classified: DataFrame, slots: int = 0) -> DataFrame:
    """In: classify_lines_df output (topic, partition, offset, minute, is_error, reject_reason, raw_value, series).
    Out: topic, partition, error_minute (epoch minute of ERROR rows, null for all other rows), series
    (an ERROR row's GROUP_BY values, else null), dead_slot, records, rejected, min_offset,
    max_offset, reject_reason, raw_value, and newest_ms (the newest Kafka timestamp, epoch ms)
    when the input has a timestamp.

    Rejected rows group by dead_slot = offset mod `slots`: each such group is a dead letter, its
    lowest offset (min_offset) with that row's reason and raw value. With slots 0, dead_slot,
    reject_reason and raw_value are null. So one job yields counts, offset ranges and the dead
    letters, at most partitions x (ERROR minutes x series + 1 + slots) rows; a partition whose
    batch spans at most `slots` offsets keeps every rejected row, a longer one keeps a sample spread over the batch."""
    keys, aggregates = _summary_columns()
    dead_slot = (F.when(F.col("reject_reason").isNotNull(), F.pmod(F.col("offset"), F.lit(slots))) if slots
                 else F.lit(None).cast("long"))
    if not slots:  # no dead letters (DEAD_LETTER_LIMIT=0): skip picking each group's first reject
        aggregates = aggregates[:4] + [F.lit(None).cast("string").alias("reject_reason"),
                                       F.lit(None).cast("binary").alias("raw_value")]
    newest = _newest() if "timestamp" in classified.columns else []
    return (classified.groupBy(*keys, dead_slot.alias("dead_slot")).agg(*aggregates, *newest)
            .select("topic", "partition", "error_minute", "series", "dead_slot", "records", "rejected", "min_offset",
                    "max_offset", "reject_reason", "raw_value", *(["newest_ms"] if newest else [])))


@once_per_app
def _newest() -> list[Column]:
    return [F.max(F.unix_millis("timestamp")).alias("newest_ms")]


def rejected_rows_df(classified: DataFrame) -> DataFrame:
    """In: classify_lines_df output. Out: topic, partition, offset, reject_reason, raw_value of every
    rejected row: the dead letters of a batch whose rejects fit under DEAD_LETTER_LIMIT but whose
    slot picks (batch_summary_df) collided, collected in a second, bounded job."""
    return (classified.where(F.col("reject_reason").isNotNull())
            .select("topic", "partition", "offset", "reject_reason", "raw_value"))
