"""tests/oracles/catalyst.py, the one pass's second implementation in Spark SQL, on inline
classified rows: its groups (partition, minute, series, dead slot), the bounds that count lines
across partitions, and the dead letters picked in the same job. What it is held to, the one pass
(java/errorcount/OnePass.java) is held to through tests/unit/pipeline/test_one_pass.py."""

import dataclasses

import pytest
from chispa import assert_df_equality

from errorcount.errors import DataLossError
from errorcount.offsets import TopicPartition, check_no_overlap
from errorcount.pipeline.classify import Contract, classify_lines_df
from tests.oracles.catalyst import _inside, batch_summary_df
from tests.oracles.pyfold import summarize

IN_SCHEMA = ("topic string, partition int, offset long, minute long, is_error boolean, reject_reason string, raw_value binary, "
             "series string")


OUT_SCHEMA = ("topic string, partition int, minute long, series string, dead_slot long, records long, log_records long, "
              "errors long, "
              "rejected long, min_offset long, max_offset long, reject_reason string, raw_value binary")


def errors_only(rows: list[tuple]) -> list[tuple]:
    """Expected rows of the ERROR-only grouping (COUNT_LINES=false), written without the errors
    column: a group with a minute holds ERROR lines only (errors = records), any other none."""
    return [(*r[:6], r[5], r[5] if r[2] is not None else 0, *r[6:]) for r in rows]


def logged(rows: list[tuple]) -> list[tuple]:
    """Expected rows written without the log_records column: one log record per record."""
    return [(*r[:6], r[5], *r[6:]) for r in rows]


def test_batch_summary_groups_errors_by_partition_and_minute(spark):
    rows = [
        ("t", 0, 10, 100, True, None, None, "a"), ("t", 0, 11, 100, True, None, None, "a"),
        ("t", 0, 12, 101, True, None, None, "a"),
        ("t", 0, 15, 100, True, None, None, "b"),                # another series of minute 100
        ("t", 0, 13, 100, False, None, None, None),              # valid, not an ERROR
        ("t", 0, 14, None, False, "bad_level", b"x ERR0R", None),  # rejected
        ("t", 1, 7, 100, True, None, None, "a"),
        ("t", 1, 9, None, False, "null_value", None, None),
        ("u", 0, 0, None, False, "empty_line", b"", None),       # another topic's partition 0: its own groups
    ]
    # Without dead-letter slots, rejected rows share their partition's non-ERROR group, and no
    # reason or raw value is picked.
    expected = [
        ("t", 0, 100, "a", None, 2, 0, 10, 11, None, None), ("t", 0, 101, "a", None, 1, 0, 12, 12, None, None),
        ("t", 0, 100, "b", None, 1, 0, 15, 15, None, None), ("t", 0, None, None, None, 2, 1, 13, 14, None, None),
        ("t", 1, 100, "a", None, 1, 0, 7, 7, None, None), ("t", 1, None, None, None, 1, 1, 9, 9, None, None),
        ("u", 0, None, None, None, 1, 1, 0, 0, None, None),
    ]
    actual = spark.createDataFrame(rows, IN_SCHEMA).transform(lambda df: batch_summary_df(df, every_line=False))
    assert_df_equality(actual, spark.createDataFrame(errors_only(expected), OUT_SCHEMA), ignore_row_order=True,
                       ignore_nullable=True)


BOUNDS = {TopicPartition("t", 0): (10, 20), TopicPartition("t", 1): (5, 8)}  # u-0 unplanned


def bounded_rows():
    return [
        ("t", 0, 10, 100, True, None, None, "a"), ("t", 0, 19, 100, True, None, None, "a"),  # first and last offset
        ("t", 1, 7, 100, True, None, None, "a"),     # another partition, same minute and series: one row
        ("t", 1, 6, 101, True, None, None, "b"),
        ("t", 0, 9, 100, True, None, None, "a"),     # before the bounds (read again?): keeps its partition
        ("t", 1, 8, 100, True, None, None, "a"),     # at the planned end: keeps its partition
        ("t", 0, 12, 100, False, None, None, None), ("t", 1, 5, None, False, "bad_level", b"x", None),
        ("u", 0, 3, 100, True, None, None, "a"),     # a partition the bounds do not name: keeps it
    ]


def test_with_bounds_errors_inside_count_across_partitions_and_others_keep_theirs(spark):
    expected = [
        ("t", None, 100, "a", None, 3, 0, 7, 19, None, None), ("t", None, 101, "b", None, 1, 0, 6, 6, None, None),
        ("t", 0, 100, "a", None, 1, 0, 9, 9, None, None), ("t", 1, 100, "a", None, 1, 0, 8, 8, None, None),
        ("t", 0, None, None, None, 1, 0, 12, 12, None, None), ("t", 1, None, None, None, 1, 1, 5, 5, None, None),
        ("u", 0, 100, "a", None, 1, 0, 3, 3, None, None),
    ]
    actual = spark.createDataFrame(bounded_rows(), IN_SCHEMA).transform(lambda df: batch_summary_df(df, 0, BOUNDS, False))
    assert_df_equality(actual, spark.createDataFrame(errors_only(expected), OUT_SCHEMA), ignore_row_order=True,
                       ignore_nullable=True)


def test_bounds_change_no_count_and_every_row_that_breaks_them_still_bounds_its_partition(spark):
    df = spark.createDataFrame(bounded_rows(), IN_SCHEMA)
    plain = summarize(batch_summary_df(df, 2, every_line=False).collect())
    bounded = summarize(batch_summary_df(df, 2, BOUNDS, every_line=False).collect())
    assert dataclasses.replace(bounded, ranges=plain.ranges) == plain
    # t-0 from 9 (an ERROR row before the bounds), t-1 to 8 (one at the planned end), as without bounds
    assert bounded.ranges == {TopicPartition("t", 0): (9, 12), TopicPartition("t", 1): (5, 8),
                              TopicPartition("u", 0): (3, 3)} == plain.ranges | {TopicPartition("t", 0): (9, 12)}
    with pytest.raises(DataLossError, match="offset 9 of topic 't' partition 0"):
        check_no_overlap({TopicPartition("t", 0): 10}, bounded.ranges)


def sort_nodes(node):
    """The Sort operators of a physical plan (through adaptive execution's current plan)."""
    if node.nodeName() == "AdaptiveSparkPlan":
        node = node.executedPlan()
    children = node.children()
    found = [node] if node.nodeName() == "Sort" else []
    return found + [sort for i in range(children.size()) for sort in sort_nodes(children.apply(i))]


def test_the_aggregate_sorts_lead_with_a_long_key_not_the_topic_name(spark):
    # Dead letters make the aggregate sort-based; a long first key (the group's hash) gives the
    # sort a prefix that tells groups apart; led by the topic, every comparison read whole rows.
    df = spark.createDataFrame(bounded_rows(), IN_SCHEMA)
    sorts = sort_nodes(batch_summary_df(df, 2, BOUNDS)._jdf.queryExecution().executedPlan())
    assert len(sorts) == 2  # the partial and the final aggregate's
    for sort in sorts:
        first = sort.sortOrder().head()
        assert first.dataType().typeName() == "long", first.sql()


def test_rejected_rows_fill_dead_letter_slots_by_offset(spark):
    rows = [("t", 0, 14, None, False, "bad_level", b"a", None), ("t", 0, 15, None, False, "empty_line", b"", None),
            ("t", 0, 16, None, False, "bad_level", b"c", None),   # same slot as 14 (16 mod 2): not kept
            ("t", 0, 17, 100, True, None, None, None), ("t", 1, 3, None, False, "null_value", None, None)]
    expected = [("t", 0, None, None, 0, 2, 2, 14, 16, "bad_level", bytearray(b"a")),
                ("t", 0, None, None, 1, 1, 1, 15, 15, "empty_line", bytearray(b"")),
                ("t", 0, 100, None, None, 1, 0, 17, 17, None, None),
                ("t", 1, None, None, 1, 1, 1, 3, 3, "null_value", None)]
    actual = spark.createDataFrame(rows, IN_SCHEMA).transform(lambda df: batch_summary_df(df, 2))
    assert_df_equality(actual, spark.createDataFrame(errors_only(expected), OUT_SCHEMA), ignore_row_order=True,
                       ignore_nullable=True)


def test_dead_letters_keep_reason_and_first_kib_through_parse_and_summary(spark):
    long_bad = b"x" * 3000
    source = spark.createDataFrame([("t", 0, 1, b"2024-01-01 10:00:00 ERROR ok"), ("t", 0, 2, None), ("t", 1, 3, long_bad),
                                    ("t", 1, 4, b"2024-01-01 10:00:00 ERR0R"), ("t", 1, 5, None)],
                                   "topic string, partition int, offset long, value binary")
    rows = classify_lines_df(source, Contract.with_settings()).transform(lambda df: batch_summary_df(df, 10)).collect()
    kept = [("t", 0, 2, "null_value", None), ("t", 1, 3, "bad_timestamp", long_bad[:1024]),
            ("t", 1, 4, "bad_level", b"2024-01-01 10:00:00 ERR0R"), ("t", 1, 5, "null_value", None)]
    assert summarize(rows, 1000).dead_letters == tuple(kept)
    assert summarize(rows, 2).dead_letters == tuple(kept[:2])
    assert (summarize(rows, 2).records, summarize(rows, 2).rejected) == (5, 4)


def test_with_count_lines_every_line_groups_by_its_minute_and_series_and_its_errors_are_counted(spark):
    rows = [
        ("t", 0, 10, 100, True, None, None, "a"), ("t", 0, 11, 100, False, None, None, "a"),  # one series: 2 lines, 1 ERROR
        ("t", 0, 12, 100, False, None, None, "b"), ("t", 0, 13, 101, False, None, None, "a"),  # lines, no ERROR
        ("t", 0, 14, None, False, "bad_level", b"x", None),  # a reject is not a line
        ("t", 1, 7, 100, True, None, None, "a"),
    ]
    expected = [
        ("t", 0, 100, "a", None, 2, 1, 0, 10, 11, None, None), ("t", 0, 100, "b", None, 1, 0, 0, 12, 12, None, None),
        ("t", 0, 101, "a", None, 1, 0, 0, 13, 13, None, None), ("t", 0, None, None, None, 1, 0, 1, 14, 14, None, None),
        ("t", 1, 100, "a", None, 1, 1, 0, 7, 7, None, None),
    ]
    actual = spark.createDataFrame(rows, IN_SCHEMA).transform(lambda df: batch_summary_df(df, every_line=True))
    assert_df_equality(actual, spark.createDataFrame(logged(expected), OUT_SCHEMA), ignore_row_order=True, ignore_nullable=True)
    summary = summarize(actual.collect(), every_line=True)
    assert summary.minute_counts == {100: 2, 101: 0} and summary.minute_lines == {100: 4, 101: 1}
    assert summary.series_counts == {(100, "a"): 2, (100, "b"): 0, (101, "a"): 0}
    assert summary.series_lines == {(100, "a"): 3, (100, "b"): 1, (101, "a"): 1}
    assert (summary.records, summary.errors, summary.rejected, summary.lines) == (6, 2, 1, 5)  # lines: 4 + 1


def test_bounds_with_a_hole_and_many_partitions_fold_to_literal_arrays(spark):
    """A partition the bounds skip (a hole in a topic's numbering) is not inside; the bounds of 2 048
    partitions are folded by the optimizer into literal arrays: nothing is split per row."""
    bounds = {TopicPartition("t", p): (p * 10, p * 10 + 5) for p in range(2048) if p != 1}
    rows = [("t", 0, 3, 100, True, None, None, "a"),       # inside t-0 [0, 5)
            ("t", 1, 12, 100, True, None, None, "a"),      # t-1 is not in the bounds: keeps its partition
            ("t", 2047, 20474, 100, True, None, None, "a"),  # inside the last partition's bounds
            ("t", 2047, 20475, 100, True, None, None, "a")]  # at its end: keeps its partition
    df = spark.createDataFrame(rows, IN_SCHEMA)
    got = {(r["partition"], r["errors"], r["min_offset"]) for r in batch_summary_df(df, 0, bounds, False).collect()}
    assert got == {(None, 2, 3), (1, 1, 12), (2047, 1, 20475)}
    plan = df.select(_inside(bounds).alias("inside"))._jdf.queryExecution().optimizedPlan().toString()
    assert "split(" not in plan  # no per-row parsing of the bounds' text
    assert "[0,null,20,30," in plan  # the first offsets, one literal array, the hole a null
