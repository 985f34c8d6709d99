"""The micro-batch's counting in Spark SQL: the classifier's rows (classify_lines_df) grouped by
Spark's aggregate into summary.FIELDS rows. The job counted so until the one JVM pass replaced it
(java/errorcount/OnePass.java, docs/design.md "One pass"); kept here as the second, independent
implementation the one pass is checked against (tests/unit/pipeline/test_one_pass.py, make
differential), and as the naive job's counting (bench/naive_job.py)."""

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from errorcount.pipeline.columns import once_per_app
from errorcount.pipeline.one_pass import Bounds, bounds_listed
from errorcount.pipeline.summary import FIELDS

KEYS = ("topic", "partition", "minute", "series", "dead_slot")  # a summary row's group


@once_per_app
def _summary_columns() -> tuple[Column, Column, list[Column]]:
    """The group's hash, the ERROR-only minute, and the aggregates. The hash leads the grouping (a function of the keys,
    so the groups are the same): the sort-based aggregate (dead letters pick a reject's value,
    which hash aggregation cannot hold) sorts by it first, and its 8-byte sort prefix then tells
    nearly every pair of groups apart without reading the rows. Led by the topic, the prefix was
    that name's first bytes, the same for every row, and each comparison compared whole rows,
    series strings included (docs/performance.md, "Counting by dimension")."""
    return F.xxhash64(*KEYS).alias("group_hash"), F.when(F.col("is_error"), F.col("minute")), [
        F.count_if("is_error").alias("errors"), F.count("reject_reason").alias("rejected"),
        F.min("offset").alias("min_offset"), F.max("offset").alias("max_offset"),
        F.min_by("reject_reason", "offset").alias("reject_reason"),
        F.min_by("raw_value", "offset").alias("raw_value")]


@once_per_app
def _record_counts() -> tuple[list[Column], list[Column]]:
    """records and log_records: each row is a record and a log record, except with LOG_FORMAT=otlp
    (classify_lines_df's first and log_record). The same count twice is computed once."""
    return ([F.count(F.lit(1)).alias("records"), F.count(F.lit(1)).alias("log_records")],
            [F.count_if("first").alias("records"), F.count_if("log_record").alias("log_records")])


def batch_summary_df(classified: DataFrame, slots: int = 0, bounds: Bounds | None = None,
                     every_line: bool = False) -> DataFrame:
    """In: classify_lines_df output (topic, partition, offset, minute, is_error, reject_reason, raw_value, series).
    Out: topic, partition, minute (epoch minute of every line with `every_line` (COUNT_LINES), else
    of ERROR lines only; null for rejects), series (its GROUP_BY values, else null), dead_slot,
    records (Kafka records), log_records (the log records in them: as many but for LOG_FORMAT=otlp),
    errors (the ERROR lines among them), rejected, min_offset, max_offset, reject_reason,
    raw_value, and newest_ms (the newest Kafka timestamp, epoch ms) when the input has a timestamp.
    A group with a minute holds lines only: its log records are its lines.

    Rejected rows group by dead_slot = offset mod `slots`: each such group is a dead letter, its
    lowest offset (min_offset) with that row's reason and raw value. With slots 0, dead_slot,
    reject_reason and raw_value are null. So one job yields counts, offset ranges and the dead
    letters, at most partitions x (ERROR minutes x series + 1 + slots) rows; a partition whose
    batch spans at most `slots` offsets keeps every rejected row, a longer one keeps a sample spread over the batch.

    With `bounds` (the batch's planned offsets), a row with a minute inside its partition's bounds is
    counted with partition null: such rows group by topic, minute and series across partitions
    (partitions times fewer rows to shuffle, collect and fold). Every other row keeps its
    partition, so the offset ranges the driver checks (no record before the stored offset, none
    past the plan) still see each row that could break them."""
    group_hash, error_minute, aggregates = _summary_columns()
    keys = {"minute": F.col("minute") if every_line else error_minute,
            "dead_slot": (F.when(F.col("reject_reason").isNotNull(), F.pmod(F.col("offset"), F.lit(slots))) if slots
                          else F.lit(None).cast("long"))}
    if bounds:
        counted = F.col("minute").isNotNull() if every_line else F.col("is_error")
        keys["partition"] = F.when(counted & _inside(bounds), F.lit(None)).otherwise(F.col("partition"))
    if not slots:  # no dead letters (DEAD_LETTER_LIMIT=0): skip picking each group's first reject
        aggregates = aggregates[:4] + [F.lit(None).cast("string").alias("reject_reason"),
                                       F.lit(None).cast("binary").alias("raw_value")]
    derived = {}
    if not every_line:  # a group with a minute holds ERROR lines only: its errors are its log records
        aggregates = aggregates[1:]
        derived["errors"] = F.when(F.col("minute").isNotNull(), F.col("log_records")).otherwise(F.lit(0).cast("bigint"))
    plain, otlp = _record_counts()
    aggregates = (otlp if "first" in classified.columns else plain) + aggregates
    newest = _newest() if "timestamp" in classified.columns else []
    summary = classified.withColumns(keys).groupBy(group_hash, *KEYS).agg(*aggregates, *newest).withColumns(derived)
    if not newest:
        return summary.select(*[name for name in FIELDS if name not in ("newest_ms", "reject_minute")])
    summary = summary.withColumn("reject_minute", F.lit(None).cast("bigint")).select(*FIELDS)
    return summary.unionByName(_rejects_by_minute(classified))


def _rejects_by_minute(classified: DataFrame) -> DataFrame:
    """The rejected rows (log records) per topic and epoch minute of their Kafka timestamp, as
    FIELDS rows with reject_minute and rejected only (the one pass's REJECT_SERIES groups)."""
    minute = F.floor(F.unix_millis("timestamp") / F.lit(60_000)).cast("bigint").alias("reject_minute")
    rejected = classified.where(F.col("reject_reason").isNotNull() & F.col("timestamp").isNotNull())
    zero, null = F.lit(0).cast("bigint"), {"partition": "int", "minute": "bigint", "series": "string", "dead_slot": "bigint",
                                            "reject_reason": "string", "raw_value": "binary", "newest_ms": "bigint"}
    return (rejected.groupBy("topic", minute).agg(F.count(F.lit(1)).alias("rejected"))
            .withColumns({**{name: F.lit(None).cast(kind) for name, kind in null.items()},
                          **{name: zero for name in ("records", "log_records", "errors", "min_offset", "max_offset")}})
            .select(*FIELDS))


def _inside(bounds: Bounds) -> Column:
    """Whether a row's offset lies in its partition's bounds; null (not inside) for a partition the
    bounds do not name. Per topic, its partitions' first offsets and ends are each one string
    literal split into an array of longs, which the optimizer folds into a literal array once per
    batch (ConstantFolding), so the plan is a few expressions whatever the partitions: built from a
    literal per partition, the column took 2.7 s to build at 512 partitions and 6 s at 2 048 (a
    py4j round trip each), every batch (docs/performance.md, "Scale"). The literal arrays sit in a
    literal map (topic -> arrays), which Spark's generated code holds as references: a batch with
    other offsets reuses the compiled code."""
    listed = bounds_listed(bounds)

    def by_topic(which: int) -> Column:
        entries = []
        for topic, texts in listed.items():
            entries += [F.lit(topic), F.split(F.lit(texts[which]), ",").try_cast("array<bigint>")]
        return F.try_element_at(F.try_element_at(F.create_map(*entries), F.col("topic")), F.col("partition") + 1)
    return (F.col("offset") >= by_topic(0)) & (F.col("offset") < by_topic(1))


@once_per_app
def _newest() -> list[Column]:
    return [F.max(F.unix_millis("timestamp")).alias("newest_ms")]
