"""Classify and count in one JVM pass per task (java/errorcount/OnePass.java): the Kafka rows of a
batch in, batch_summary_df's rows out, without Spark's aggregate. Each task classifies its records
with the contract's classifier and counts them into a table of (topic, partition, minute, series,
dead slot) groups keyed by numbers (the series in a per-task dictionary); the driver folds the
tasks' rows with summary.summarize as it folds the aggregate's (docs/design.md, "One pass")."""

from pyspark.sql import DataFrame

from errorcount import session
from errorcount.pipeline.aggregate import Bounds, bounds_listed
from errorcount.pipeline.classify import Contract
from errorcount.pipeline.columns import PerApp

_per_app = PerApp()  # the contract's settings as a JVM map, built once per application


def one_pass_summary_df(raw: DataFrame, contract: Contract, slots: int = 0, bounds: Bounds | None = None) -> DataFrame:
    """In: Kafka rows (value, topic, partition, offset[, timestamp]). Out: the columns of
    summary.FIELDS, grouped as batch_summary_df(classify_lines_df(raw, contract), slots, bounds,
    contract.every_line) groups them, but per task: a group read by several tasks has a row from
    each (summarize adds them up). newest_ms is null when the rows have no timestamp."""
    jvm = session.jvm(raw.sparkSession)
    settings = _per_app.get(contract.settings, lambda: contract.to_java(jvm))
    jdf = jvm.errorcount.OnePass.apply(raw._jdf, settings, slots, bounds_text(bounds or {}), contract.by_topic)
    return DataFrame(jdf, raw.sparkSession)


def bounds_text(bounds: Bounds) -> str:
    """`bounds` as OnePass.parse reads them: a line per topic, its name, first offsets and ends
    (aggregate.bounds_listed) separated by tabs. One string whatever the partitions: one py4j call."""
    return "".join(f"{topic}\t{firsts}\t{ends}\n" for topic, (firsts, ends) in bounds_listed(bounds).items())
