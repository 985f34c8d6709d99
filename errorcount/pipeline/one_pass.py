"""Classify and count in one JVM pass per task (java/errorcount/OnePass.java): the Kafka rows of a
batch in, summary.FIELDS rows out, without Spark's aggregate. Each task classifies its records
with the contract's classifier and counts them into a table of (topic, partition, minute, series,
dead slot) groups keyed by numbers (the series in a per-task dictionary); the driver folds the
tasks' rows with Arrow (fold.py; docs/design.md, "One pass")."""

from collections.abc import Mapping

import pyarrow as pa
from pyspark.sql import DataFrame

from errorcount import session
from errorcount.offsets import TopicPartition
from errorcount.pipeline.classify import Contract
from errorcount.pipeline.columns import PerApp
from errorcount.pipeline.fold import fold
from errorcount.pipeline.summary import BatchSummary

Bounds = Mapping[TopicPartition, tuple[int, int]]  # per partition, the offsets a batch may hold: [first, end)

_per_app = PerApp()  # the contract's settings as a JVM map, built once per application


def one_pass_summary_df(raw: DataFrame, contract: Contract, slots: int = 0, bounds: Bounds | None = None) -> DataFrame:
    """In: Kafka rows (value, topic, partition, offset[, timestamp]). Out: the columns of
    summary.FIELDS, a row per group per task (a group read by several tasks has a row from each:
    the fold adds them up); newest_ms is null when the rows have no timestamp.

    A group is (topic, partition, minute, series, dead_slot): minute is the epoch minute of every
    line with COUNT_LINES (contract.every_line), else of ERROR lines only, null for rejects; series
    the line's GROUP_BY values, else null. Rejects group by dead_slot = offset mod `slots`: each
    such group is a dead letter, its lowest offset (min_offset) with that record's reason and
    first KiB (slots 0: no dead letters). With `bounds` (the batch's planned offsets), a line
    counted inside its partition's bounds has partition null: such lines group across partitions,
    and every other row keeps its partition, so the offset ranges the driver checks still see
    each row that could break them (min_offset and max_offset are null in a row of a null
    partition: no range is read from it). records counts Kafka records, log_records the log records
    in them (as many but for LOG_FORMAT=otlp). tests/oracles/catalyst.py is the same in Spark SQL."""
    return _pass(raw, contract, slots, bounds, "apply")


def one_pass_arrow_df(raw: DataFrame, contract: Contract, slots: int = 0, bounds: Bounds | None = None) -> DataFrame:
    """one_pass_summary_df's groups as a row per task: one binary column, `arrow`, each task's
    groups as one Arrow IPC stream in summary.FIELDS' columns (java/errorcount/GroupColumns.java).
    What a batch collects: Spark's own Arrow path makes a row of boxed values per group, projects
    it and writes it to Arrow again (docs/performance.md, "Counting every line")."""
    return _pass(raw, contract, slots, bounds, "arrow")


def _pass(raw: DataFrame, contract: Contract, slots: int, bounds: Bounds | None, method: str) -> DataFrame:
    jvm = session.jvm(raw.sparkSession)
    settings = _per_app.get(contract.settings, lambda: contract.to_java(jvm))
    jdf = getattr(jvm.errorcount.OnePass, method)(raw._jdf, settings, slots, bounds_text(bounds or {}), contract.by_topic)
    return DataFrame(jdf, raw.sparkSession)


def collect_summary(df: DataFrame, dead_letter_limit: int | None = None, every_line: bool = False) -> BatchSummary:
    """one_pass_summary_df's rows `df` (or some of them) folded into one BatchSummary (fold.fold:
    dead_letter_limit, every_line). Collected as Arrow record batches the tasks encode and folded
    by Arrow's kernels: pyspark's collect() pickles each row in the JVM and makes a Row of it in
    Python, ~5 us a row, and a batch counting every line by a GROUP_BY has tens of thousands of
    rows (docs/performance.md, 'Counting every line')."""
    return fold(df.toArrow(), dead_letter_limit, every_line)


def collect_arrow_summary(df: DataFrame, dead_letter_limit: int | None = None, every_line: bool = False) -> BatchSummary:
    """collect_summary of one_pass_arrow_df's `df`: each task's stream read as it is (no copy of
    its columns), the tasks' tables put end to end and folded."""
    streams = df.toArrow()["arrow"]
    tables = [pa.ipc.open_stream(stream.as_buffer()).read_all() for stream in streams if stream.is_valid]
    if not tables:
        return BatchSummary()
    return fold(pa.concat_tables(tables), dead_letter_limit, every_line)


def bounds_text(bounds: Bounds) -> str:
    """`bounds` as OnePass.parse reads them: a line per topic, its name, first offsets and ends
    (bounds_listed) separated by tabs. One string whatever the partitions: one py4j call."""
    return "".join(f"{topic}\t{firsts}\t{ends}\n" for topic, (firsts, ends) in bounds_listed(bounds).items())


def bounds_listed(bounds: Bounds) -> dict[str, tuple[str, str]]:
    """Per topic, in name order: its partitions' first offsets and ends (partitions 0, 1, ...), each
    as one text of numbers joined by commas, "" for a partition the bounds do not name. One pass
    over the bounds, whatever the topics."""
    by_topic: dict[str, dict[int, tuple[int, int]]] = {}
    for tp, span in bounds.items():
        by_topic.setdefault(tp.topic, {})[tp.partition] = span
    listed = {}
    for topic in sorted(by_topic):
        spans = by_topic[topic]
        row = [spans.get(p, (None, None)) for p in range(max(spans) + 1)]
        firsts, ends = (",".join("" if span[which] is None else str(span[which]) for span in row) for which in (0, 1))
        listed[topic] = (firsts, ends)
    return listed
