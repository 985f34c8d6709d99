"""batch_summary_df on inline rows, and summarize() folding the collected rows."""

from chispa import assert_df_equality
from pyspark.sql import Row

from app.aggregate import BatchSummary, batch_summary_df, summarize

IN_SCHEMA = "partition int, offset long, minute long, is_error boolean, reject_reason string"
OUT_SCHEMA = ("partition int, error_minute long, records long, rejected long, "
              "min_offset long, max_offset long")


def test_batch_summary_groups_errors_by_partition_and_minute(spark):
    rows = [
        (0, 10, 100, True, None), (0, 11, 100, True, None), (0, 12, 101, True, None),
        (0, 13, 100, False, None),           # valid, not an ERROR
        (0, 14, None, False, "bad_level"),   # rejected
        (1, 7, 100, True, None),
        (1, 9, None, False, "null_value"),
        (2, 0, None, False, "empty_line"),   # a partition with nothing but a rejected row
    ]
    expected = [
        (0, 100, 2, 0, 10, 11), (0, 101, 1, 0, 12, 12), (0, None, 2, 1, 13, 14),
        (1, 100, 1, 0, 7, 7), (1, None, 1, 1, 9, 9),
        (2, None, 1, 1, 0, 0),
    ]
    actual = spark.createDataFrame(rows, IN_SCHEMA).transform(batch_summary_df)
    assert_df_equality(actual, spark.createDataFrame(expected, OUT_SCHEMA), ignore_row_order=True,
                       ignore_nullable=True)


def test_summarize_adds_up_minutes_and_offset_ranges():
    def row(partition, minute, records, rejected, low, high):
        return Row(partition=partition, error_minute=minute, records=records, rejected=rejected,
                   min_offset=low, max_offset=high)

    summary = summarize([row(0, 100, 2, 0, 10, 11), row(0, None, 3, 1, 5, 20), row(1, 100, 4, 0, 0, 9),
                         row(1, 101, 1, 0, 3, 3)])
    assert summary == BatchSummary(records=10, errors=7, rejected=1, minute_counts={100: 6, 101: 1},
                                   ranges={0: (5, 20), 1: (0, 9)})


def test_summarize_of_nothing_is_empty():
    assert summarize([]) == BatchSummary()
