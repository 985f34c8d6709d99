"""The log-line contract, clause by clause, through classify_lines_df."""

from datetime import datetime

from chispa import assert_df_equality

from errorcount import parse
from errorcount.parse import classify_lines_df

OUT_SCHEMA = "partition int, offset long, minute long, is_error boolean, reject_reason string, raw_value binary"


def epoch_minute(*args: int) -> int:
    """Independent expectation: minutes since 1970-01-01 00:00 of a naive (UTC) datetime."""
    return int((datetime(*args) - datetime(1970, 1, 1)).total_seconds() // 60)


VALID = "valid"
CASES = [
    # (value, minute args or None, is_error, reason)
    (b"2024-03-10 12:34:56 ERROR boom", (2024, 3, 10, 12, 34), True, None),
    (b"2024-03-10T12:34:56.123Z [ERROR]: x", (2024, 3, 10, 12, 34), True, None),
    (b"2024-03-10 12:34:56,5 error", (2024, 3, 10, 12, 34), True, None),
    (b"2024-03-10 12:34:56 Error:", (2024, 3, 10, 12, 34), True, None),
    (b"2024-03-10 12:34:56 [error]:\tmsg", (2024, 3, 10, 12, 34), True, None),
    # zones: converted to UTC, across day and year boundaries, both notations
    (b"2024-12-31 23:59:59.999+01:00 ERROR", (2024, 12, 31, 22, 59), True, None),
    (b"2024-12-31 23:30:00-01:00 ERROR", (2025, 1, 1, 0, 30), True, None),
    (b"2025-01-01 00:15:00+0200 ERROR", (2024, 12, 31, 22, 15), True, None),
    (b"2024-01-01T10:00:00.123456789+14:00 ERROR", (2023, 12, 31, 20, 0), True, None),
    (b"2024-03-01 05:30:00-0530 ERROR", (2024, 3, 1, 11, 0), True, None),
    (b"2024-03-31 02:30:00 ERROR no zone: never shifted (DST gap in Europe)", (2024, 3, 31, 2, 30), True, None),
    # valid, but not ERROR
    (b"2024-02-29 00:00:00 INFO leap day", (2024, 2, 29, 0, 0), False, None),
    (b"2024-01-01 10:00:00 Errors plural", (2024, 1, 1, 10, 0), False, None),
    (b"2024-01-01 10:00:00 [WARN]", (2024, 1, 1, 10, 0), False, None),
    # first line only, CR, surrounding blanks, invalid UTF-8 in the message
    (b" \t2024-01-01 10:00:00 ERROR x \t\r\nnext line", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00 ERROR\n2024-01-01 11:00:00 INFO", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00\t\tERROR \xff\xfe bytes", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00 ERROR " + b"long message " * 20000, (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00" + b" " * 5000 + b"ERROR", (2024, 1, 1, 10, 0), True, None),
    # range edges: 1000-01-01 00:00 .. 9999-12-31 23:59 after conversion to UTC
    (b"1000-01-01 00:00:00 ERROR", (1000, 1, 1, 0, 0), True, None),
    (b"9999-12-31 23:59:59 ERROR", (9999, 12, 31, 23, 59), True, None),
    (b"0999-12-31 23:59:59 ERROR", None, False, parse.REJECT_RANGE),
    (b"1000-01-01 00:10:00+01:00 ERROR", None, False, parse.REJECT_RANGE),
    (b"9999-12-31 23:30:00-01:00 ERROR", None, False, parse.REJECT_RANGE),
    # rejected: null, empty
    (None, None, False, parse.REJECT_NULL),
    (b"", None, False, parse.REJECT_EMPTY),
    (b" \t\r\n2024-01-01 10:00:00 ERROR", None, False, parse.REJECT_EMPTY),
    # rejected: no or malformed timestamp, impossible time
    (b"hello ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 24:00:00 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:60:00 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:60 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01\t10:00:00 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:00.1234567890 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:00+15:00 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:00+01:60 ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:00z ERROR", None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 10:00:00ERROR", None, False, parse.REJECT_TIMESTAMP),
    ("２０２４-01-01 10:00:00 ERROR".encode(), None, False, parse.REJECT_TIMESTAMP),
    (b"2024-01-01 1\xff:00:00 ERROR", None, False, parse.REJECT_TIMESTAMP),
    # rejected: impossible calendar dates
    (b"2023-02-29 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    (b"1900-02-29 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    (b"2024-04-31 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    (b"2024-13-01 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    (b"2024-00-10 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    # rejected: malformed level
    (b"2024-01-01 10:00:00", None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 ERR0R", None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 ERROR_X", None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 [ERROR", None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 ERROR::", None, False, parse.REJECT_LEVEL),
    ("2024-01-01 10:00:00 ERROR\u2028".encode(), None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 ERROR\rx", None, False, parse.REJECT_LEVEL),
    (b"2024-01-01 10:00:00 ERROR\r\r\nnext", None, False, parse.REJECT_LEVEL),  # only one trailing CR goes
    (b"2024-01-01 10:00:00 ERROR\r", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00 ERROR \r\n", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00\r\nERROR", None, False, parse.REJECT_LEVEL),
    (b"\t2024-01-01 10:00:00 \t", None, False, parse.REJECT_LEVEL),
    (b"\t2024-02-30 10:00:00 ERROR", None, False, parse.REJECT_DATE),
    (b" 2024-01-01 10:00:00+01:00 ERROR", (2024, 1, 1, 9, 0), True, None),
]


def test_classify_lines_follows_the_contract(spark):
    source = spark.createDataFrame(
        [(0, i, value) for i, (value, *_rest) in enumerate(CASES)], "partition int, offset long, value binary")
    expected = spark.createDataFrame(
        [(0, i, epoch_minute(*minute) if minute else None, is_error, reason,
          None if reason is None or value is None else bytearray(value[:1024]))
         for i, (value, minute, is_error, reason) in enumerate(CASES)], OUT_SCHEMA)
    assert_df_equality(source.transform(classify_lines_df), expected, ignore_row_order=True, ignore_nullable=True)

