"""The log-line contract of errorcount/pipeline/classify.py, written the way a plain-Python user would: `re` and
integer date arithmetic. Used by the bench's alternatives (the pure-Python consumer and the
naive UDF job), and checked against the Spark job's results on every bench run."""

import re
from datetime import date

_TIME = r"\d{4}-\d{2}-\d{2}[ T](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d{1,9})?"
_ZONE = r"(Z|[+-](?:0\d|1[0-4]):?[0-5]\d)?"
LINE = re.compile(_TIME + _ZONE + r"[ \t]+(\[[A-Za-z]+\]|[A-Za-z]+):?(?:[ \t]|\Z)", re.ASCII)
TIMESTAMP = re.compile(_TIME + _ZONE + r"(?:[ \t]|\Z)", re.ASCII)
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
# MySQL DATETIME's range, 1000-01-01 00:00 to 9999-12-31 23:59, in epoch minutes
MIN_MINUTE = (date(1000, 1, 1).toordinal() - EPOCH_ORDINAL) * 1440
MAX_MINUTE = (date(9999, 12, 31).toordinal() - EPOCH_ORDINAL) * 1440 + 23 * 60 + 59
DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def days_in_month(year: int, month: int) -> int:
    leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0
    return 29 if month == 2 and leap else DAYS[month - 1]


def classify(value: bytes | None) -> tuple[int | None, bool, str | None]:
    """(epoch minute or None, is ERROR, reject reason or None) of one Kafka record value."""
    if value is None:
        return None, False, "null_value"
    line = value.decode("utf-8", "replace").split("\n", 1)[0]
    line = line.removesuffix("\r").strip(" \t")
    if not line:
        return None, False, "empty_line"
    match = LINE.match(line)
    if match is None:
        return None, False, "bad_level" if TIMESTAMP.match(line) else "bad_timestamp"
    year, month, day = int(line[0:4]), int(line[5:7]), int(line[8:10])
    if not (1 <= month <= 12 and 1 <= day <= days_in_month(year, month)):
        return None, False, "impossible_date"
    if year < 1:  # date() starts at year 1; year 0 is out of range in every zone anyway
        return None, False, "minute_out_of_range"
    zone = match.group(1) or ""
    offset = 0
    if len(zone) > 1:
        offset = (-1 if zone[0] == "-" else 1) * (int(zone[1:3]) * 60 + int(zone[-2:]))
    minute = ((date(year, month, day).toordinal() - EPOCH_ORDINAL) * 1440
              + int(line[11:13]) * 60 + int(line[14:16]) - offset)
    if not MIN_MINUTE <= minute <= MAX_MINUTE:
        return None, False, "minute_out_of_range"
    return minute, match.group(2).upper() in ("ERROR", "[ERROR]"), None
