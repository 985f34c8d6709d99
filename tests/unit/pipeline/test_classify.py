"""The log-line contract, clause by clause, through classify_lines_df."""

from chispa import assert_df_equality

from errorcount.pipeline.classify import Contract, classify_lines_df, rejected_rows_df
from errorcount.pipeline.summary import every_dead_letter
from tests.unit.pipeline.contract_cases import CASES, epoch_minute

OUT_SCHEMA = ("topic string, partition int, offset long, minute long, is_error boolean, reject_reason string, raw_value binary, "
              "series string")


def test_classify_lines_follows_the_contract(spark):
    source = spark.createDataFrame(
        [("logs", 0, i, value) for i, (value, *_rest) in enumerate(CASES)],
        "topic string, partition int, offset long, value binary")
    expected = spark.createDataFrame(
        [("logs", 0, i, epoch_minute(*minute) if minute else None, is_error, reason,
          None if reason is None or value is None else bytearray(value[:1024]), None)
         for i, (value, minute, is_error, reason) in enumerate(CASES)], OUT_SCHEMA)
    assert_df_equality(classify_lines_df(source, Contract.with_settings()), expected, ignore_row_order=True, ignore_nullable=True)


def test_rejected_rows_are_every_reject_with_its_reason_and_prefix(spark):
    """rejected_rows_df: the dead letters of a batch whose slots collided, read again in a second job."""
    rows = [("t", 0, 5, None, False, "bad_level", bytearray(b"x"), None), ("t", 1, 2, 100, True, None, None, "a"),
            ("t", 0, 7, None, False, "null_value", None, None), ("s", 1, 9, None, False, "empty_line", bytearray(b""), None)]
    collected = rejected_rows_df(spark.createDataFrame(rows, OUT_SCHEMA)).collect()
    assert every_dead_letter(collected) == (("s", 1, 9, "empty_line", b""), ("t", 0, 5, "bad_level", b"x"),
                                            ("t", 0, 7, "null_value", None))
