"""The one pass (errorcount/pipeline/one_pass.py, java/errorcount/OnePass.java) against Spark SQL's
counting of the same rows (tests/oracles/catalyst.py, the job's path before the one pass) and the
plain-Python contract (tests/oracles/pyformats.py): the same batches through classify_lines_df +
batch_summary_df (folded by tests/oracles/pyfold.py) and through one_pass_summary_df (the job's
Arrow fold) must give the same BatchSummary, for every format, with and without GROUP_BY,
COUNT_LINES, dead-letter slots, bounds and timestamps."""

import dataclasses
import random
from datetime import datetime

import pytest
from pyspark.sql import DataFrame

from errorcount.offsets import TopicPartition
from errorcount.pipeline.classify import Contract, classify_lines_df, rejected_rows_df
from errorcount.pipeline.one_pass import collect_arrow_summary, collect_summary, one_pass_arrow_df, one_pass_summary_df
from errorcount.pipeline.summary import BatchSummary, every_dead_letter
from errorcount.tools import samples
from tests.oracles.catalyst import batch_summary_df
from tests.oracles.pyfold import summarize

START = datetime(2031, 4, 1, 12, 0)


def source(spark, log_format: str, count: int = 3000, timed: bool = False) -> DataFrame:
    """Kafka-shaped rows of generated samples (and the bad values) over 2 topics x 3 partitions,
    each topic-partition in one task, in offset order."""
    rng = random.Random(7)
    events = samples.generate(log_format, count, seed=11, start=START, minutes=30)
    rows, next_offset = [], {}
    for event in events:
        tp = (rng.choice(("a", "b")), rng.randrange(3))
        offset = next_offset.get(tp, 100 * tp[1])
        next_offset[tp] = offset + 1
        rows.append((event.value, tp[0], tp[1], offset, datetime(2031, 4, 1, 12, rng.randrange(60), rng.randrange(60))))
    df = spark.createDataFrame(rows, "value binary, topic string, partition int, offset long, timestamp timestamp")
    df = df if timed else df.drop("timestamp")
    return df.repartition(2, "topic", "partition").sortWithinPartitions("topic", "partition", "offset")


def frame(spark, rows: list[tuple]) -> DataFrame:
    """(value, topic, partition, offset) rows as a DataFrame in slices of at most 50 000 rows: a
    slice travels in its task, and one over spark.rpc.message.maxSize (3 000 000 values in 2
    slices) left the job waiting for ever."""
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, max(2, len(rows) // 50_000)),
                                 "value binary, topic string, partition int, offset long")


def test_the_fold_of_no_rows_is_an_empty_summary(spark):
    df = one_pass_summary_df(source(spark, "app", count=10), Contract.with_settings()).limit(0)
    assert collect_summary(df, 10, True) == BatchSummary()


def test_a_batch_of_no_tasks_or_of_empty_tasks_is_an_empty_summary(spark):
    schema = "value binary, topic string, partition int, offset long"
    no_tasks = spark.createDataFrame(spark.sparkContext.emptyRDD(), schema)
    empty_tasks = spark.createDataFrame(spark.sparkContext.parallelize([], 2), schema)
    assert no_tasks.rdd.getNumPartitions() == 0 and empty_tasks.rdd.getNumPartitions() == 2
    for df in (no_tasks, empty_tasks):
        assert collect_arrow_summary(one_pass_arrow_df(df, Contract.with_settings()), 10, True) == BatchSummary()


def both_agree(df: DataFrame, contract: Contract, slots: int, bounds=None) -> BatchSummary:
    """The BatchSummary both paths give (asserted equal): the oracle's rows come through collect()
    and the plain-Python fold, the one pass's through Arrow and the job's fold, both as the batch
    reads them (a stream per task) and as the recount does (a row per group)."""
    every_line = contract.every_line
    expected = summarize(batch_summary_df(classify_lines_df(df, contract), slots, bounds, every_line).collect(),
                         every_line=every_line)
    assert collect_arrow_summary(one_pass_arrow_df(df, contract, slots, bounds), None, every_line) == expected
    assert collect_summary(one_pass_summary_df(df, contract, slots, bounds), None, every_line) == expected
    return expected


CONTRACTS = [Contract.with_settings(), Contract.with_settings(GROUP_BY="level"),
             Contract.with_settings(GROUP_BY="level", COUNT_LINES="true"),
             Contract.with_settings(LOG_FORMAT="access", GROUP_BY="path,status"),
             Contract.with_settings(GROUP_BY="topic"), Contract.with_settings(GROUP_BY="topic,level", COUNT_LINES="true"),
             Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50", GROUP_BY="field:service.name,level",
                                    COUNT_LINES="true"),
             Contract.with_settings(LOG_FORMAT="otlp"),
             Contract.with_settings(LOG_FORMAT="otlp", GROUP_BY="attr:http.route,level,resource:service.name,topic",
                                    COUNT_LINES="true")]


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda c: f"{c['LOG_FORMAT']}-{c['GROUP_BY']}-{c['COUNT_LINES']}")
@pytest.mark.parametrize("slots, bounded, timed", [(0, False, False), (5, False, True), (5, True, False)])
def test_the_one_pass_summarizes_as_the_aggregate_does(spark, contract, slots, bounded, timed):
    df = source(spark, contract["LOG_FORMAT"], count=600 if contract.otlp else 3000, timed=timed)
    bounds = {TopicPartition(t, p): (100 * p, 100 * p + 400) for t in ("a", "b") for p in range(3)} if bounded else None
    summary = both_agree(df, contract, slots, bounds)
    assert summary.errors and summary.rejected and (summary.dead_letters or not slots)  # each path was taken


@pytest.mark.parametrize("log_format", ["app", "json", "otlp"])
def test_rejects_are_counted_per_topic_and_minute_of_their_kafka_timestamp(spark, log_format):
    """Against a plain-Python count of the generator's rejects by their record's timestamp (each
    rejected log record of an OTLP request under its request's)."""
    rng = random.Random(79)
    events = samples.generate(log_format, 600 if log_format == "otlp" else 3000, seed=12, start=START, minutes=30)
    rows, expected = [], {}
    for offset, event in enumerate(events):
        topic, stamp = rng.choice(("a", "b")), datetime(2031, 4, 1, 12, rng.randrange(60), rng.randrange(60))
        rows.append((event.value, topic, offset % 3, offset, stamp))
        rejects = sum(e.rejected for e in samples.outcomes([event]))
        if rejects:  # the session reads a naive datetime in the local zone, as Python's timestamp() does
            key = (topic, int(stamp.timestamp()) // 60)
            expected[key] = expected.get(key, 0) + rejects
    df = spark.createDataFrame(rows, "value binary, topic string, partition int, offset long, timestamp timestamp")
    contract = Contract.with_settings(LOG_FORMAT=log_format, **({"ERROR_LEVELS": "ERROR,50"} if log_format == "json" else {}))
    summary = both_agree(df.repartition(2, "topic", "partition"), contract, 5)
    assert summary.minute_rejects == expected and len(expected) > 20
    assert sum(expected.values()) == summary.rejected == samples.expected_rejects(events)


@pytest.mark.parametrize("group_by", ["", "level", "topic,level"])
def test_one_task_of_more_topics_than_the_line_table_packs_counts_as_the_aggregate_does(spark, group_by):
    """A task numbers the topics it meets; lines of its 256th topic on no longer fit
    java/errorcount/LineCounts.java's key and are counted in the group table beside it: both
    tables' groups of one task, some of one (minute, series) in each, must add up as one."""
    events = samples.generate("app", 3000, seed=5, start=START, minutes=3)
    rows = [(event.value, f"t{index % 300:03d}", 0, index // 300) for index, event in enumerate(events)]
    df = frame(spark, rows).coalesce(1)
    bounds = {TopicPartition(f"t{t:03d}", 0): (0, 10) for t in range(300)}
    summary = both_agree(df, Contract.with_settings(GROUP_BY=group_by, COUNT_LINES="true"), 0, bounds)
    assert len(summary.per_topic) == 300 and summary.lines == sum(samples.expected_lines(events).values()) > 2000


@pytest.mark.parametrize("log_format", ["app", "access", "json"])
def test_the_one_pass_summarizes_mutated_values_as_the_aggregate_does(spark, log_format):
    """The differential tests' generated and mutated values (DIFFERENTIAL_VALUES of them), bad bytes included."""
    import os

    from tests.unit.pipeline.contract_cases import mutated
    from tests.unit.pipeline.test_classify_formats_differential import values_of
    count = int(os.environ.get("DIFFERENTIAL_VALUES", "20000"))
    values = mutated(count, seed=20261124) if log_format == "app" else values_of(log_format, count, 20261124)
    rows = [(value, "ab"[index % 2], index % 3, index) for index, value in enumerate(values)]
    df = frame(spark, rows).repartition(2, "topic", "partition")
    settings = {"app": {}, "access": {"LOG_FORMAT": "access"}, "json": {"LOG_FORMAT": "json", "ERROR_LEVELS": "ERROR,50"}}
    contract = Contract.with_settings(**settings[log_format], GROUP_BY="level" if log_format != "access" else "status",
                                      COUNT_LINES="true")
    summary = both_agree(df, contract, 7)
    assert oracle_summary(contract, rows, 7) == (summary.records, summary.errors, summary.rejected, summary.minute_counts,
                                                 summary.minute_lines, summary.dead_letters)


def oracle_summary(contract: Contract, rows: list[tuple], slots: int) -> tuple:
    """What a batch of `rows` (value, topic, partition, offset) comes to by the plain-Python contract
    (tests/oracles/pyformats.py): records, ERROR lines, rejects, ERROR lines and lines per minute,
    and the dead letters (per partition and slot, the reject of the lowest offset)."""
    from tests.oracles.pyformats import Reference
    reference = Reference(contract)
    errors: dict[int, int] = {}
    lines: dict[int, int] = {}
    letters: dict[tuple, tuple] = {}
    for value, topic, partition, offset in rows:
        minute, error, reason = reference.classify(value)
        if reason is None:
            lines[minute] = lines.get(minute, 0) + 1
            errors[minute] = errors.get(minute, 0) + error
        elif (topic, partition, offset % slots) not in letters or offset < letters[topic, partition, offset % slots][2]:
            letters[topic, partition, offset % slots] = (topic, partition, offset, reason, value and value[:1024])
    rejected = len(rows) - sum(lines.values())
    return (len(rows), sum(errors.values()), rejected, errors, lines, tuple(sorted(letters.values())))


@pytest.mark.parametrize("grouped", [False, True])
def test_the_one_pass_summarizes_otlp_requests_and_their_mutations_as_the_aggregate_does(spark, grouped):
    """Generated OTLP requests (0 to ~30 log records each) and their mutations, a request of one
    log record and one of 20 000."""
    import os

    from tests.unit.pipeline import test_classify_otlp as otlp
    rng = random.Random(76)
    count = int(os.environ.get("DIFFERENTIAL_VALUES", "20000")) // 20
    values = otlp.generated(rng, count)
    values += otlp.mutated(rng, values, count * 3)
    values += [otlp.request([({}, [("", [otlp.record(rng)])])]).SerializeToString(),
               otlp.request([({}, [("", [otlp.record(rng) for _ in range(20000)])])]).SerializeToString(), None]
    rows = [(value, "ab"[index % 2], index % 3, index) for index, value in enumerate(values)]
    df = frame(spark, rows).repartition(2, "topic", "partition")
    contract = otlp.GROUPED if grouped else otlp.PLAIN
    summary = both_agree(df, Contract.with_settings(**{**dict(contract.settings), "COUNT_LINES": "true"}), 7)
    assert summary.records_logged > 20000 + count and summary.rejected


@pytest.mark.parametrize("past_plan", [False, True])
def test_a_batch_counted_in_one_pass_is_the_batch_the_aggregate_counts(spark, past_plan):
    """batch.count.count_planned on Kafka rows against Spark SQL's counting of the same rows: the
    same BatchSummary, with bounds, a plan that rows lie past (counted again per partition, as
    without bounds) and colliding dead-letter slots (every reject fits the limit: the second job
    keeps each one)."""
    from errorcount.batch.count import count_planned
    from errorcount.faults import NO_FAULTS
    contract = Contract.with_settings(GROUP_BY="level", COUNT_LINES="true")
    df = source(spark, "app", count=600)
    stored = {TopicPartition(t, p): 100 * p + 10 for t in ("a", "b") for p in range(3)}
    plan = {tp: offset + (20 if past_plan else 400) for tp, offset in stored.items()}
    df = df.where(df["offset"] >= df["partition"] * 100 + 10)
    got = count_planned(df, contract, 2, 10_000, 2, NO_FAULTS, stored, plan)
    classified = classify_lines_df(df, contract)
    bounds = None if past_plan else {tp: (stored[tp], end) for tp, end in plan.items()}
    expected = summarize(batch_summary_df(classified, 2, bounds, True).collect(), 10_000, True)
    every = every_dead_letter(rejected_rows_df(classified).collect())
    assert got == dataclasses.replace(expected, dead_letters=every)
    assert len(got.dead_letters) == got.rejected > 2 * 6  # more rejects than slots: the second job kept each
