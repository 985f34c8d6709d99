"""Step one of a batch: one Spark job (and a second only to keep every dead letter) gives its
complete, frozen BatchSummary; batch.BatchCommitter then stores it in one MySQL transaction."""

import dataclasses
import logging

from pyspark.sql import DataFrame

from errorcount import offsets
from errorcount.faults import Hooks
from errorcount.observe import logline
from errorcount.pipeline.classify import Contract, classify_lines_df, rejected_rows_df
from errorcount.pipeline.one_pass import Bounds, collect_arrow_summary, one_pass_arrow_df
from errorcount.pipeline.summary import BatchSummary, every_dead_letter

log = logging.getLogger(__name__)


def spark_job_running(df: DataFrame) -> bool:
    return bool(df.sparkSession.sparkContext.statusTracker().getActiveJobsIds())


def count(batch_df: DataFrame, contract: Contract, slots: int, dead_letter_limit: int, tasks: int, hooks: Hooks,
          bounds: Bounds | None = None) -> BatchSummary:
    """Step one of a batch: its BatchSummary, complete (dead letters included) and frozen. One Spark
    job, the one pass: `batch_df`'s Kafka rows classified under `contract` and counted per task; a
    second only when two rejects of a partition fell on one dead-letter slot while every reject
    fits under DEAD_LETTER_LIMIT (that job reads at most the limit's rows). `bounds`: the offsets
    the batch may hold per partition (count_planned), when known."""
    # At most `tasks` (the cores Spark has): Spark's Kafka source makes a task per partition, and
    # 16 partitions of 4 topics on 2 cores spent a quarter of a catch-up on the small tasks'
    # overhead (make bench (t), docs/performance.md). coalesce() never adds tasks; no shuffle
    # follows (each task counts what it read, the driver adds the tasks' rows up).
    source = batch_df.coalesce(tasks)
    with hooks.killed_during("during_spark_job", lambda: spark_job_running(batch_df)):
        summary = collect_arrow_summary(one_pass_arrow_df(source, contract, slots, bounds), dead_letter_limit,
                                        contract.every_line)
    if summary.collided and summary.rejected <= dead_letter_limit:
        rejected = rejected_rows_df(classify_lines_df(source, contract)).collect()
        summary = dataclasses.replace(summary, dead_letters=every_dead_letter(rejected))
    return summary


def count_planned(batch_df: DataFrame, contract: Contract, slots: int, dead_letter_limit: int, tasks: int,
                  hooks: Hooks, expected: offsets.Position, planned: offsets.Position | None) -> BatchSummary:
    """count() within the batch's bounds: from the stored next offset (0 for a partition new to the
    job, which no overlap check covers) to the end Spark `planned`. Should a row lie past the plan
    (the plan is not what was read), the lines counted across partitions bound no partition's
    range: the batch is counted again with every row's partition, and batch_end stores max offset
    + 1, as without a plan."""
    if not planned:
        return count(batch_df, contract, slots, dead_letter_limit, tasks, hooks)
    bounds = {partition: (expected.get(partition, 0), end) for partition, end in planned.items()}
    summary = count(batch_df, contract, slots, dead_letter_limit, tasks, hooks, bounds)
    if offsets.beyond_plan(summary.ranges, planned):
        log.warning("a batch holds rows past its planned offsets %s; counting it again per partition",
                    logline.brief(planned))
        summary = count(batch_df, contract, slots, dead_letter_limit, tasks, hooks)
    return summary
