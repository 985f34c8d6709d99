"""The log-line contract as pure Spark SQL transforms (no Python UDFs: rows stay in the JVM).

A record's value is decoded as UTF-8 (invalid bytes replaced); only its first line counts,
without a trailing CR and surrounding spaces/tabs. That line is
    TIMESTAMP  <spaces/tabs>  LEVEL[:]  [<space/tab> message]
with TIMESTAMP = YYYY-MM-DD{' '|T}HH:MM:SS[{.|,}fraction][Z|+HH:MM|+HHMM]. Minutes are
epoch minutes: UTC when the line has a zone, else the wall-clock minute as written. Nothing
here depends on the JVM, driver or session time zone: it is integer arithmetic on the digits.
"""

from datetime import datetime

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from errorcount.columns import once_per_app, select_stages

# Java regex: \d is ASCII-only (fullwidth digits are rejected); \z is the very end of input.
_TIME = r"\d{4}-\d{2}-\d{2}[ T](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d{1,9})?"
_ZONE = r"(?:Z|[+-](?:0\d|1[0-4]):?[0-5]\d)"
_LEVEL = r"(?:\[[A-Za-z]+\]|[A-Za-z]+)"
# Group 1 is the zone (if any), the blanks and the level: "+05:30 ERROR", " [WARN]", "Z\tINFO".
_ZONE_LEVEL = "(" + _ZONE + r"?[ \t]+" + _LEVEL + "):?"
# On a line (first line, CR and blanks stripped): after the level, a blank or the end.
LINE_PATTERN = "^" + _TIME + _ZONE_LEVEL + r"(?:[ \t]|\z)"
# The same on the raw value, where the first line can also end at LF, CRLF, or CR at the end.
# For a value that starts with a digit it matches exactly when LINE_PATTERN matches the line,
# with the same group: the match lies inside the first line, and the line is a prefix of the
# value up to trailing blanks, which both patterns accept after the level.
RAW_PATTERN = "^" + _TIME + _ZONE_LEVEL + r"(?:[ \t]|\r?\n|\r?\z)"
TIMESTAMP_PATTERN = "^" + _TIME + _ZONE + r"?(?:[ \t]|\z)"

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


def clean_line(text: Column) -> Column:
    """The contract's line of a record's text: valid UTF-8 (invalid bytes replaced), first line,
    one trailing CR removed, spaces and tabs trimmed at both ends."""
    first = F.substring_index(F.make_valid_utf8(text), "\n", 1)
    return F.btrim(F.regexp_replace(first, "\r\\z", ""), F.lit(" \t"))


@once_per_app
def _match_stages() -> list[list]:
    keep = ["partition", "offset", "value"]
    on_raw = F.col("raw_match") != ""
    # CASE is lazy: the cleanup and the second match run only for values the raw match failed.
    return [keep + [F.col("value").cast("string").alias("raw")],
            keep + ["raw", F.regexp_extract("raw", RAW_PATTERN, 1).alias("raw_match")],
            keep + ["raw_match", F.when(on_raw, F.col("raw")).otherwise(clean_line(F.col("raw"))).alias("text")],
            keep + ["text", F.coalesce(F.when(on_raw, F.col("raw_match"))
                                       .otherwise(F.regexp_extract("text", LINE_PATTERN, 1)), F.lit("")).alias("zone_level")]]


def with_match(df: DataFrame) -> DataFrame:
    """In: partition, offset, value (binary). Out: the same plus text (string, null for a null
    value) and zone_level (string: group 1 of the patterns, '' when the line breaks the contract).

    text is the raw value when it matched RAW_PATTERN (its line starts it, so date and time
    sit at fixed places), else the cleaned line. One regex pass per record for the usual line;
    only the others pay for the cleanup and a second pass."""
    return select_stages(df, _match_stages())


def is_real_date(year: Column, month: Column, day: Column) -> Column:
    """Proleptic Gregorian calendar check in integer arithmetic (no parser, no time zone)."""
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    days_in_month = (F.when(month == 2, F.when(leap, 29).otherwise(28))
                     .when(month.isin(4, 6, 9, 11), 30).otherwise(31))
    return month.between(1, 12) & day.between(1, days_in_month)


def epoch_day(year: Column, month: Column, day: Column) -> Column:
    """Days since 1970-01-01 of a real proleptic Gregorian date with year >= 1, in long
    arithmetic (the days-from-civil algorithm: March-based years, 400-year eras), no DATE type."""
    march_year = year.cast("long") - F.when(month <= 2, 1).otherwise(0)
    era, year_of_era = F.floor(march_year / 400), F.pmod(march_year, F.lit(400))
    day_of_year = F.floor((153 * (month + F.when(month > 2, -3).otherwise(9)) + 2) / 5) + day - 1
    day_of_era = year_of_era * 365 + F.floor(year_of_era / 4) - F.floor(year_of_era / 100) + day_of_year
    return era * 146097 + day_of_era - 719468


@once_per_app
def _field_stages() -> list[list]:
    # replace, not translate: translate looks every character up in a map (~10 % of a batch's CPU).
    blanks_as_spaces = F.replace("zone_level", F.lit("\t"), F.lit(" "))
    # The fields are cut from the line's first 16 characters, taken once: each substring of the
    # whole line would count all its characters again.
    matched = F.col("zone_level") != ""
    head = F.when(matched, F.substring("text", 1, 16))
    # A matched line has ASCII digits at these places, so a plain cast cannot fail; a line that
    # did not match has no head and is never cast. try_cast throws and catches an exception for
    # each malformed line's field: on the bench corpus (5 % malformed) that was ~25 % of the CPU.
    year, month, day, hour, minute = (F.substring("head", start, length).cast("int")
                                      for start, length in ((1, 4), (6, 2), (9, 2), (12, 2), (15, 2)))
    keep = ["partition", "offset", "value", "text"]
    return [keep + [blanks_as_spaces.alias("zone_level"), head.alias("head")],
            keep + [F.substring_index("zone_level", " ", 1).alias("zone"),
                    F.substring_index("zone_level", " ", -1).alias("level"),
                    year.alias("year"), month.alias("month"), day.alias("day"),
                    hour.alias("hour"), minute.alias("minute_of_hour")]]


def with_fields(df: DataFrame) -> DataFrame:
    """In: with_match's output. Out: partition, offset, value, text, zone (string: '', 'Z',
    '+HH:MM' or '+HHMM'), level (string, '' when the line breaks the contract), year, month,
    day, hour, minute_of_hour (ints as written; null where level is '')."""
    return select_stages(df, _field_stages())


@once_per_app
def _minute() -> Column:
    zone = F.col("zone")
    sign = F.when(F.startswith(zone, F.lit("-")), -1).otherwise(1)
    zone_minutes = (F.when(F.length(zone) <= 1, 0)  # no zone, or Z
                    .otherwise(sign * (F.substring(zone, 2, 2).cast("int") * 60  # digits: the pattern's
                                       + F.substring(zone, -2, 2).cast("int"))))
    year, month, day = F.col("year"), F.col("month"), F.col("day")
    # The date check guards the arithmetic (CASE is lazy), which is only meant for real dates.
    minute = (epoch_day(year, month, day) * 1440 + F.col("hour") * 60 + F.col("minute_of_hour") - zone_minutes)
    return F.when((F.col("level") != "") & is_real_date(year, month, day), minute).alias("minute")


def with_minute(df: DataFrame) -> DataFrame:
    """In: with_fields' output. Out: partition, offset, value, text, level and minute (long
    epoch minute, UTC if zoned; null if the line breaks the contract or its date is impossible)."""
    return df.select("partition", "offset", "value", "text", "level", _minute())


@once_per_app
def reject_reason() -> Column:
    """Why a row of with_minute's output is rejected, or null when it is a valid event."""
    return (F.when(F.col("text").isNull(), REJECT_NULL)
            .when(F.col("text") == "", REJECT_EMPTY)
            .when((F.col("level") == "") & ~F.col("text").rlike(TIMESTAMP_PATTERN), REJECT_TIMESTAMP)
            .when(F.col("level") == "", REJECT_LEVEL)
            .when(F.col("minute").isNull(), REJECT_DATE)
            .when(~F.col("minute").between(MIN_MINUTE, MAX_MINUTE), REJECT_RANGE))


def fields_df(df: DataFrame) -> DataFrame:
    """In: Kafka rows (value, partition, offset). Out: with_minute's columns."""
    return df.transform(with_match).transform(with_fields).transform(with_minute)


@once_per_app
def _classify_stages() -> list[list]:
    valid = F.col("reject_reason").isNull()
    is_error_level = F.upper("level").isin("ERROR", "[ERROR]")
    return [["partition", "offset", "minute", "level", "value", reject_reason().alias("reject_reason")],
            ["partition", "offset", F.when(valid, F.col("minute")).alias("minute"),
             (valid & is_error_level).alias("is_error"), "reject_reason",
             F.when(~valid, F.substring("value", 1, RAW_PREFIX_BYTES)).alias("raw_value")]]


def classify_lines_df(df: DataFrame) -> DataFrame:
    """In: Kafka rows (value, partition, offset).
    Out: partition, offset, minute (long epoch minute or null), is_error (boolean),
    reject_reason (string or null), raw_value (binary: a rejected value's first KiB, else null).
    minute is null exactly when reject_reason is not."""
    return select_stages(df.transform(fields_df), _classify_stages())
