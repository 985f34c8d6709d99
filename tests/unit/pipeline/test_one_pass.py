"""java/errorcount/OnePass.java (work in progress) against the aggregate it is to replace: the same
batches through classify_lines_df + batch_summary_df and through the one pass, folded by summarize,
must give the same BatchSummary, for every line format, with and without GROUP_BY, COUNT_LINES,
dead-letter slots and bounds."""

import random
from datetime import datetime

import pytest
from pyspark.sql import DataFrame

from errorcount import session
from errorcount.offsets import TopicPartition
from errorcount.pipeline.aggregate import batch_summary_df
from errorcount.pipeline.classify import Contract, classify_lines_df
from errorcount.pipeline.summary import summarize
from errorcount.tools import samples

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


def one_pass(df: DataFrame, contract: Contract, slots: int, bounds) -> list:
    jvm = session.jvm(df.sparkSession)
    def listed(topic: str, which: int) -> str:
        values = (bounds.get(TopicPartition(topic, p), (None, None))[which] for p in range(3))
        return ",".join("" if value is None else str(value) for value in values)
    text = "".join(f"{topic}\t{listed(topic, 0)}\t{listed(topic, 1)}\n" for topic in sorted({tp.topic for tp in bounds}))
    jdf = jvm.errorcount.OnePass.apply(df._jdf, contract.to_java(jvm), slots, text, contract.by_topic)
    return DataFrame(jdf, df.sparkSession).collect()


CONTRACTS = [Contract.with_settings(), Contract.with_settings(GROUP_BY="level"),
             Contract.with_settings(GROUP_BY="level", COUNT_LINES="true"),
             Contract.with_settings(LOG_FORMAT="access", GROUP_BY="path,status"),
             Contract.with_settings(GROUP_BY="topic"), Contract.with_settings(GROUP_BY="topic,level", COUNT_LINES="true"),
             Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50", GROUP_BY="field:service.name,level",
                                    COUNT_LINES="true")]


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda c: f"{c['LOG_FORMAT']}-{c['GROUP_BY']}-{c['COUNT_LINES']}")
@pytest.mark.parametrize("slots, bounded, timed", [(0, False, False), (5, False, True), (5, True, False)])
def test_the_one_pass_summarizes_as_the_aggregate_does(spark, contract, slots, bounded, timed):
    df = source(spark, contract["LOG_FORMAT"], timed=timed)
    bounds = {TopicPartition(t, p): (100 * p, 100 * p + 400) for t in ("a", "b") for p in range(3)} if bounded else None
    every_line = contract.every_line
    expected = summarize(batch_summary_df(classify_lines_df(df, contract), slots, bounds, every_line).collect(),
                         every_line=every_line)
    got = summarize(one_pass(df, contract, slots, bounds or {}), every_line=every_line)
    assert got == expected


@pytest.mark.parametrize("log_format", ["app", "access", "json"])
def test_the_one_pass_summarizes_mutated_values_as_the_aggregate_does(spark, log_format):
    """The differential tests' generated and mutated values (DIFFERENTIAL_VALUES of them), bad bytes included."""
    import os

    from tests.unit.pipeline.contract_cases import mutated
    from tests.unit.pipeline.test_classify_formats_differential import values_of
    count = int(os.environ.get("DIFFERENTIAL_VALUES", "20000"))
    values = mutated(count, seed=20261124) if log_format == "app" else values_of(log_format, count, 20261124)
    rows = [(value, "ab"[index % 2], index % 3, index) for index, value in enumerate(values)]
    df = (spark.createDataFrame(rows, "value binary, topic string, partition int, offset long")
          .repartition(2, "topic", "partition"))
    settings = {"app": {}, "access": {"LOG_FORMAT": "access"}, "json": {"LOG_FORMAT": "json", "ERROR_LEVELS": "ERROR,50"}}
    contract = Contract.with_settings(**settings[log_format], GROUP_BY="level" if log_format != "access" else "status",
                                      COUNT_LINES="true")
    expected = summarize(batch_summary_df(classify_lines_df(df, contract), 7, None, True).collect(), every_line=True)
    assert summarize(one_pass(df, contract, 7, {}), every_line=True) == expected
