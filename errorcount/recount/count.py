"""The recount's Spark side: the job's partitions read as one batch between given offsets, and
counted by the micro-batch's own code path (one_pass_summary_df, then its fold: one_pass.collect_summary): the same
classifier, the same counting, no second implementation. Only small aggregates reach the
driver: a chunk of minutes at a time."""

import json
from collections.abc import Mapping

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from errorcount.kafka.client import KafkaClient
from errorcount.offsets import TopicPartition
from errorcount.pipeline.classify import Contract
from errorcount.pipeline.one_pass import collect_summary, one_pass_summary_df
from errorcount.pipeline.source import reader_options
from errorcount.pipeline.summary import BatchSummary
from errorcount.recount.diff import Figures
from errorcount.recount.plan import Range

Spans = Mapping[TopicPartition, tuple[int, int]]  # per partition, the offsets to read: [start, end)


def batch_options(client: KafkaClient, spans: Spans) -> dict[str, str]:
    """Spark's Kafka source, as a batch over exactly `spans` (empty ones left out)."""
    wanted = {tp: span for tp, span in sorted(spans.items()) if span[1] > span[0]}
    assign: dict[str, list[int]] = {}
    starts: dict[str, dict[str, int]] = {}
    ends: dict[str, dict[str, int]] = {}
    for tp, (start, end) in wanted.items():
        assign.setdefault(tp.topic, []).append(tp.partition)
        starts.setdefault(tp.topic, {})[str(tp.partition)] = start
        ends.setdefault(tp.topic, {})[str(tp.partition)] = end
    return {**reader_options(client), "assign": json.dumps(assign), "startingOffsets": json.dumps(starts),
            "endingOffsets": json.dumps(ends)}


class Counter:
    """Counts records of the job's partitions under `contract` (the job's rules, every line with
    COUNT_LINES), per minute and series, in one pass per task as the job's batches are."""

    def __init__(self, spark: SparkSession, client: KafkaClient, contract: Contract):
        self.spark, self.client, self.contract = spark, client, contract

    def aggregate(self, spans: Spans) -> DataFrame | None:
        """In: the offsets to read. Out: one_pass_summary_df's groups of counted lines (minute not
        null) and of rejects per topic and minute of their Kafka timestamp (reject_minute not null),
        persisted: each chunk then reads its minutes of them. None when nothing is to read."""
        if not any(end > start for start, end in spans.values()):
            return None
        records = self.spark.read.format("kafka").options(**batch_options(self.client, spans)).load()
        records = records.select("topic", "partition", "offset", "value", "timestamp")
        tasks = self.spark.sparkContext.defaultParallelism  # a row per group per task: as many as cores (the batch's rule)
        grouped = one_pass_summary_df(records.coalesce(tasks), self.contract, 0, dict(spans))
        return grouped.where(F.col("minute").isNotNull() | F.col("reject_minute").isNotNull()).persist(
            StorageLevel.MEMORY_AND_DISK)

    def figures(self, grouped: DataFrame | None, chunk: Range) -> Figures:
        """The counts of `grouped`'s minutes in `chunk`: lines by their own minute, rejects by their
        Kafka timestamp's."""
        if grouped is None:
            return Figures({}, {})
        return as_figures(collect_summary(grouped.where(in_chunk("minute", chunk) | in_chunk("reject_minute", chunk)),
                                          0, self.contract.every_line))

    def count(self, spans: Spans) -> Figures:
        """Every minute's counts of the records in `spans` (a small read: the records the live job
        committed while the recount read)."""
        grouped = self.aggregate(spans)
        if grouped is None:
            return Figures({}, {})
        try:
            return as_figures(collect_summary(grouped, 0, self.contract.every_line))
        finally:
            grouped.unpersist()


def in_chunk(column: str, chunk: Range):
    """The rows whose `column` (an epoch minute) is one of `chunk`'s."""
    return (F.col(column) >= chunk.first) & (F.col(column) < chunk.end)


def as_figures(summary: BatchSummary) -> Figures:
    """A fold of one_pass_summary_df rows as (ERROR lines, lines) per minute and series (lines 0
    without COUNT_LINES, as the job writes them), and rejects per topic and Kafka minute."""
    minutes = {m: (n, summary.minute_lines.get(m, 0)) for m, n in summary.minute_counts.items()}
    series = {key: (n, summary.series_lines.get(key, 0)) for key, n in summary.series_counts.items()}
    return Figures(minutes, series, dict(summary.minute_rejects))


def added(*parts: Figures) -> Figures:
    """The sum of figures of disjoint offset ranges."""
    minutes: dict[int, tuple[int, int]] = {}
    series: dict[tuple[int, str], tuple[int, int]] = {}
    rejects: dict[tuple[str, int], int] = {}
    for part in parts:
        for m, (e, n) in part.minutes.items():
            old = minutes.get(m, (0, 0))
            minutes[m] = (old[0] + e, old[1] + n)
        for key, (e, n) in part.series.items():
            old = series.get(key, (0, 0))
            series[key] = (old[0] + e, old[1] + n)
        for at, count in part.rejects.items():
            rejects[at] = rejects.get(at, 0) + count
    return Figures(minutes, series, rejects)


def within(figures: Figures, chunk: Range) -> Figures:
    """The figures of `chunk`'s minutes (a reject's: its Kafka timestamp's)."""
    return Figures({m: v for m, v in figures.minutes.items() if chunk.first <= m < chunk.end},
                   {k: v for k, v in figures.series.items() if chunk.first <= k[0] < chunk.end},
                   {k: n for k, n in figures.rejects.items() if chunk.first <= k[1] < chunk.end})
