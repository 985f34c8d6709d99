"""Step one of a batch: one Spark job (and a second only to keep every dead letter) gives its
complete, frozen BatchSummary; batch.BatchCommitter then stores it in one MySQL transaction."""

import dataclasses
import logging

from pyspark.sql import DataFrame

from errorcount import offsets
from errorcount.faults import Hooks
from errorcount.observe import logline
from errorcount.pipeline.aggregate import Bounds, batch_summary_df, rejected_rows_df
from errorcount.pipeline.classify import Contract, classify_lines_df
from errorcount.pipeline.one_pass import one_pass_summary_df
from errorcount.pipeline.summary import BatchSummary, every_dead_letter, summarize

log = logging.getLogger(__name__)


def spark_job_running(df: DataFrame) -> bool:
    return bool(df.sparkSession.sparkContext.statusTracker().getActiveJobsIds())


def count(batch_df: DataFrame, slots: int, dead_letter_limit: int, tasks: int, hooks: Hooks,
          bounds: Bounds | None = None, every_line: bool = False, one_pass: Contract | None = None) -> BatchSummary:
    """Step one of a batch: its BatchSummary, complete (dead letters included) and frozen. One Spark
    job; a second only when two rejects of a partition fell on one dead-letter slot while every
    reject fits under DEAD_LETTER_LIMIT (that job reads at most the limit's rows). `bounds`: the
    offsets the batch may hold per partition (count_planned), when known; `every_line`: COUNT_LINES.
    `one_pass`: `batch_df` holds Kafka rows, classified and counted in one pass under this contract
    (COUNT_PASS=one_pass); else classify_lines_df rows, counted by Spark's aggregate."""
    # One task reading every partition leaves the aggregate a single partition, so Spark
    # plans no shuffle: one stage instead of two, ~20-30 ms less for a small batch, but one core.
    # Otherwise at most `tasks` (the cores Spark has): Spark's Kafka source makes a task per
    # partition, and 16 partitions of 4 topics on 2 cores spent a quarter of a catch-up on the
    # small tasks' overhead (make bench (t), docs/performance.md). coalesce() never adds tasks.
    source = batch_df.coalesce(tasks)
    with hooks.killed_during("during_spark_job", lambda: spark_job_running(batch_df)):
        rows = (one_pass_summary_df(source, one_pass, slots, bounds) if one_pass
                else batch_summary_df(source, slots, bounds, every_line)).collect()
    summary = summarize(rows, dead_letter_limit, every_line)
    if summary.collided and summary.rejected <= dead_letter_limit:
        classified = classify_lines_df(source, one_pass) if one_pass else source
        summary = dataclasses.replace(summary, dead_letters=every_dead_letter(rejected_rows_df(classified).collect()))
    return summary


def count_planned(batch_df: DataFrame, slots: int, dead_letter_limit: int, tasks: int, hooks: Hooks,
                  expected: offsets.Position, planned: offsets.Position | None, every_line: bool = False,
                  one_pass: Contract | None = None) -> BatchSummary:
    """count() within the batch's bounds: from the stored next offset (0 for a partition new to the
    job, which no overlap check covers) to the end Spark `planned`. Should a row lie past the plan
    (the plan is not what was read), the ERROR rows counted across partitions bound no partition's
    range: the batch is counted again with every row's partition, and batch_end stores max offset
    + 1, as without a plan."""
    if not planned:
        return count(batch_df, slots, dead_letter_limit, tasks, hooks, every_line=every_line, one_pass=one_pass)
    bounds = {partition: (expected.get(partition, 0), end) for partition, end in planned.items()}
    summary = count(batch_df, slots, dead_letter_limit, tasks, hooks, bounds, every_line, one_pass)
    if offsets.beyond_plan(summary.ranges, planned):
        log.warning("a batch holds rows past its planned offsets %s; counting it again per partition",
                    logline.brief(planned))
        summary = count(batch_df, slots, dead_letter_limit, tasks, hooks, every_line=every_line, one_pass=one_pass)
    return summary
