"""The log-line contract as pure Spark SQL transforms (no Python UDFs: rows stay in the JVM).

A record's value is decoded as UTF-8 (invalid bytes replaced); only its first line counts,
without a trailing CR and surrounding spaces/tabs. That line is
    TIMESTAMP  <spaces/tabs>  LEVEL[:]  [<space/tab> message]
with TIMESTAMP = YYYY-MM-DD{' '|T}HH:MM:SS[{.|,}fraction][Z|+HH:MM|+HHMM]. Minutes are
epoch minutes: UTC when the line has a zone, else the wall-clock minute as written. Nothing
here depends on the JVM, driver or session time zone: it is integer arithmetic on a DATE.
"""

from datetime import datetime

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from app.columns import once_per_app, select_stages

# Java regex: \d is ASCII-only (fullwidth digits are rejected); \z is the very end of input.
_TIME = r"\d{4}-\d{2}-\d{2}[ T](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d{1,9})?"
_ZONE = r"(Z|[+-](?:0\d|1[0-4]):?[0-5]\d)?"
_LEVEL = r"(\[[A-Za-z]+\]|[A-Za-z]+):?(?:[ \t]|\z)"
LINE_PATTERN = "^" + _TIME + _ZONE + r"[ \t]+" + _LEVEL
TIMESTAMP_PATTERN = "^" + _TIME + _ZONE + r"(?:[ \t]|\z)"
ZONE_GROUP, LEVEL_GROUP = 1, 2
# The whole line in one match (DOTALL: the rest may hold any character), rewritten by with_fields.
MARK = "\u0001"
MATCH_PATTERN = "(?s)" + LINE_PATTERN + ".*"
MATCH_REPLACEMENT = f"{MARK}${ZONE_GROUP}{MARK}${LEVEL_GROUP}"

_EPOCH = datetime(1970, 1, 1)
MIN_MINUTE = int((datetime(1000, 1, 1) - _EPOCH).total_seconds() // 60)
MAX_MINUTE = int((datetime(9999, 12, 31, 23, 59) - _EPOCH).total_seconds() // 60)

RAW_PREFIX_BYTES = 1024  # how much of a rejected value the dead-letter table keeps

# Reasons a record is rejected, in the order they are checked.
REJECT_NULL = "null_value"
REJECT_EMPTY = "empty_line"
REJECT_TIMESTAMP = "bad_timestamp"
REJECT_LEVEL = "bad_level"
REJECT_DATE = "impossible_date"
REJECT_RANGE = "minute_out_of_range"


@once_per_app
def _first_line_stages() -> list[list]:
    text = F.make_valid_utf8(F.col("value").cast("string"))
    has_cr = F.instr("first", "\r") > 0
    blank_edge = (F.startswith("first", F.lit(" ")) | F.startswith("first", F.lit("\t"))
                  | F.endswith("first", F.lit(" ")) | F.endswith("first", F.lit("\t")))
    keep = ["partition", "offset", "value"]
    # The costly steps run only where needed (CASE is lazy): most lines have no CR and no blanks.
    return [keep + [F.substring_index(text, "\n", 1).alias("first")],
            keep + [F.when(has_cr, F.regexp_replace("first", "\r$", "")).otherwise(F.col("first")).alias("first")],
            keep + [F.when(blank_edge, F.expr("trim(BOTH ' \t' FROM first)")).otherwise(F.col("first")).alias("line")]]


def with_first_line(df: DataFrame) -> DataFrame:
    """In: value (binary), partition, offset. Out: the same plus line (string, null if value is null)."""
    return select_stages(df, _first_line_stages())


def is_real_date(year: Column, month: Column, day: Column) -> Column:
    """Proleptic Gregorian calendar check in integer arithmetic (no parser, no time zone)."""
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    days_in_month = (F.when(month == 2, F.when(leap, 29).otherwise(28))
                     .when(month.isin(4, 6, 9, 11), 30).otherwise(31))
    return month.between(1, 12) & day.between(1, days_in_month)


@once_per_app
def _field_stages() -> list[list]:
    parsed = F.regexp_replace("line", MATCH_PATTERN, MATCH_REPLACEMENT)
    matched = F.startswith("parsed", F.lit(MARK)) & ~F.startswith("line", F.lit(MARK))
    zone = F.col("zone")
    sign = F.when(F.substring(zone, 1, 1) == "-", -1).otherwise(1)
    zone_minutes = (F.when(F.length(zone) <= 1, 0)  # no zone, or Z
                    .otherwise(sign * (F.substring(zone, 2, 2).try_cast("int") * 60
                                       + F.substring(zone, -2, 2).try_cast("int"))))
    year, month, day = (F.substring("line", start, length).try_cast("int") for start, length in ((1, 4), (6, 2), (9, 2)))
    keep = ["partition", "offset", "value", "line"]
    return [keep + [parsed.alias("parsed")],
            keep + [F.when(matched, F.substring_index(F.substring("parsed", 2, 1 << 20), MARK, 1)).alias("zone"),
                    F.when(matched, F.substring_index("parsed", MARK, -1)).otherwise("").alias("level"),
                    year.alias("year"), month.alias("month"), day.alias("day")],
            keep + [  # make_date raises on impossible dates under ANSI mode, hence the guard (CASE is lazy).
                    F.when(is_real_date(F.col("year"), F.col("month"), F.col("day")),
                           F.make_date("year", "month", "day")).alias("log_date"),
                    F.substring("line", 12, 2).try_cast("int").alias("log_hour"),
                    F.substring("line", 15, 2).try_cast("int").alias("log_minute"),
                    zone_minutes.alias("zone_minutes"), "level"]]


def with_fields(df: DataFrame) -> DataFrame:
    """In: partition, offset, value, line. Adds log_date (date), log_hour, log_minute, zone_minutes (ints)
    and level (string, '' when the line does not match the contract).

    One regex pass per line: a matching line is rewritten to MARK zone MARK level (a line that
    does not match comes back unchanged, and cannot start with MARK unless it starts with it
    itself). Date and time then sit at fixed places of the line.
    """
    return select_stages(df, _field_stages())


@once_per_app
def _minute() -> Column:
    epoch_day = F.datediff("log_date", F.lit("1970-01-01").cast("date")).cast("long")
    return (epoch_day * 1440 + F.col("log_hour") * 60 + F.col("log_minute") - F.col("zone_minutes")).alias("minute")


def with_minute(df: DataFrame) -> DataFrame:
    """Adds minute (long epoch minute, UTC if zoned, null if the date is impossible) to with_fields' output."""
    return df.select("*", _minute())


@once_per_app
def reject_reason() -> Column:
    """Why a row of with_minute's output is rejected, or null when it is a valid event."""
    return (F.when(F.col("line").isNull(), REJECT_NULL)
            .when(F.col("line") == "", REJECT_EMPTY)
            .when((F.col("level") == "") & ~F.col("line").rlike(TIMESTAMP_PATTERN), REJECT_TIMESTAMP)
            .when(F.col("level") == "", REJECT_LEVEL)
            .when(F.col("log_date").isNull(), REJECT_DATE)
            .when(~F.col("minute").between(MIN_MINUTE, MAX_MINUTE), REJECT_RANGE))


def fields_df(df: DataFrame) -> DataFrame:
    """In: Kafka rows (value, partition, offset). Out: with_minute's columns."""
    return df.transform(with_first_line).transform(with_fields).transform(with_minute)


@once_per_app
def _classify_stages() -> list[list]:
    valid = F.col("reject_reason").isNull()
    is_error_level = F.upper("level").isin("ERROR", "[ERROR]")
    return [["partition", "offset", "minute", "level", reject_reason().alias("reject_reason")],
            ["partition", "offset", F.when(valid, F.col("minute")).alias("minute"),
             (valid & is_error_level).alias("is_error"), "reject_reason"]]


def classify_lines_df(df: DataFrame) -> DataFrame:
    """In: Kafka rows (value, partition, offset).
    Out: partition, offset, minute (long epoch minute or null), is_error (boolean),
    reject_reason (string or null). minute is null exactly when reject_reason is not."""
    return select_stages(df.transform(fields_df), _classify_stages())


@once_per_app
def _dead_letter_stages() -> list[list]:
    # An explode of a 0- or 1-element array, not a where(): Spark pushes a filter below the
    # projections by inlining their expressions, which would repeat the parse hundreds of times.
    rejected = F.when(reject_reason().isNotNull(), F.array(reject_reason())).otherwise(F.array())
    return [["partition", "offset", F.substring("value", 1, RAW_PREFIX_BYTES).alias("raw_value"),
             F.explode(rejected).alias("reject_reason")],
            ["partition", "offset", "reject_reason", "raw_value"]]


def dead_letters_df(df: DataFrame, limit: int | None) -> DataFrame:
    """In: Kafka rows (value, partition, offset). Out: partition, offset, reject_reason,
    raw_value (the value's first 1 KiB) of the rejected rows, at most `limit` (None: all)."""
    rejected = select_stages(df.transform(fields_df), _dead_letter_stages())
    return rejected if limit is None else rejected.limit(limit)
