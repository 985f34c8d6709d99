"""The access and json contracts (docs/contract.md) written the way a plain-Python user would:
`re`, the standard `json` module and `decimal`. The independent second implementation the JVM
classifier is checked against (tests/unit/pipeline/test_classify_formats.py, make differential); the app contract
is tests/oracles/pyparse.py."""

import json
import re
import sys
import threading
from datetime import date
from decimal import Decimal

from errorcount.pipeline.classify import Contract
from tests.oracles import pyparse
from tests.oracles.pyparse import MAX_MINUTE, MIN_MINUTE

Result = tuple[int | None, bool, str | None]  # (epoch minute, is error, reject reason)
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ACCESS = re.compile(r'[^ \t]+ [^ \t]+ [^ \t]+ \[(\d\d)/([A-Z][a-z][a-z])/(\d{4}):([01]\d|2[0-3]):([0-5]\d):[0-5]\d '
                    r'([+-])(0\d|1[0-4])([0-5]\d)\] "(?:[^"\\]|\\.)*" (\d{3}) (?:\d+|-)(?: .*)?', re.ASCII | re.DOTALL)
APP_STAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T]([01]\d|2[0-3]):([0-5]\d):[0-5]\d(?:[.,]\d{1,9})?"
                       r"(Z|([+-])(0\d|1[0-4]):?([0-5]\d))?", re.ASCII)
EPOCH_TEXT = re.compile(r"[+-]?\d+(\.\d+)?", re.ASCII)


class Reference:
    """The contract of a set of log-format settings (errorcount.parse.Contract: the settings by
    name), in plain Python."""

    def __init__(self, contract: Contract):
        self.contract = dict(contract.settings)  # read per record: a plain dict

    def classify(self, value: bytes | None) -> Result:
        if value is None:
            return None, False, "null_value"
        if self.contract["LOG_FORMAT"] == "json":
            return self.json_event(value.decode("utf-8", "replace"))
        return self.line(self.contract["LOG_FORMAT"], value.decode("utf-8", "replace"))

    def levels(self) -> set[str]:
        return {upper_ascii(name.strip()) for name in self.contract["ERROR_LEVELS"].split(",")}

    def line(self, fmt: str, text: str) -> Result:
        if fmt == "app":
            value = text.encode("utf-8", "surrogatepass")  # a JSON message may hold lone surrogates
            minute, _error, reason = pyparse.classify(value)
            if reason is not None:
                return minute, False, reason
            first = value.decode("utf-8", "replace").split("\n", 1)[0].removesuffix("\r").strip(" \t")
            matched = pyparse.LINE.match(first)
            assert matched is not None, "pyparse accepted the line"
            level = matched.group(2).strip("[]")
            return minute, level.upper() in self.levels(), None
        return self.access(text)

    def access(self, text: str) -> Result:
        line = text.split("\n", 1)[0].removesuffix("\r").strip(" \t")
        if not line:
            return None, False, "empty_line"
        match = ACCESS.fullmatch(line)
        if match is None or match.group(2) not in MONTHS:
            return None, False, "bad_access_line"
        status = int(match.group(9))
        if not 100 <= status <= 599:
            return None, False, "bad_status"
        zone = int(match.group(7)) * 60 + int(match.group(8))
        return dated(int(match.group(3)), MONTHS.index(match.group(2)) + 1, int(match.group(1)),
                     int(match.group(4)), int(match.group(5)), -zone if match.group(6) == "-" else zone,
                     status >= int(self.contract["ERROR_STATUS_MIN"]))

    def json_event(self, text: str) -> Result:
        if not text.strip(" \t\r\n"):
            return None, False, "empty_line"
        event = strict_json(text)
        if not isinstance(event, dict):
            return None, False, "bad_json"
        if self.contract["JSON_MESSAGE_FIELD"]:
            message = lookup(event, self.contract["JSON_MESSAGE_FIELD"])
            if not isinstance(message, str) or isinstance(message, Number):
                return None, False, "bad_message"
            return self.line(self.contract["MESSAGE_FORMAT"], message)
        stamp = first_present(event, self.contract["JSON_TIME_FIELDS"])
        minute = epoch_minute(stamp, self.contract["JSON_EPOCH_UNIT"])
        if minute is None:
            return None, False, "bad_timestamp"
        if self.contract["JSON_STATUS_FIELD"]:
            status = lookup(event, self.contract["JSON_STATUS_FIELD"])
            code = -1
            if isinstance(status, str) and re.fullmatch(r"[0-9]+", status):  # a JSON integer, or a string of digits
                significant = status.lstrip("0") or "0"
                code = int(significant) if len(significant) <= 3 else -1
            if not 100 <= code <= 599:
                return None, False, "bad_status"
            error = code >= int(self.contract["ERROR_STATUS_MIN"])
        else:
            level = first_present(event, self.contract["JSON_LEVEL_FIELDS"])
            if not isinstance(level, str):  # Number is a str too: its text as written
                return None, False, "bad_level"
            error = upper_ascii(level.strip(" \t")) in self.levels()
        if isinstance(minute, str):  # a reason found after the level
            return None, False, minute
        return (minute, error, None) if MIN_MINUTE <= minute <= MAX_MINUTE else (None, False, "minute_out_of_range")


class Number(str):
    """A JSON number, kept as the text it was written as."""


def upper_ascii(text: str) -> str:
    return "".join(c.upper() if "a" <= c <= "z" else c for c in text)


def _reject_constant(name: str):
    raise ValueError(f"not JSON: {name}")


def strict_json(text: str):
    """The parsed value, or None when the text is not strict JSON. Deep nesting is parsed with a
    raised recursion limit on a thread with a large stack."""
    def parse():
        try:
            return json.loads(text, parse_int=Number, parse_float=Number, parse_constant=_reject_constant)
        except ValueError:
            return None
    if text.count("{") + text.count("[") < 500:
        return parse()
    result: list = []
    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size(512 * 2**20)
    sys.setrecursionlimit(10 * len(text) + 1000)
    try:
        worker = threading.Thread(target=lambda: result.append(parse()))
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
        threading.stack_size(old_stack)
    return result[0]


def lookup(event: dict, name: str):
    """A literal top-level key, else a dotted path through nested objects; None when absent."""
    if name in event:
        return event[name]
    if "." not in name:
        return None
    value = event
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def first_present(event: dict, names: str):
    for name in names.split(","):
        value = lookup(event, name.strip())
        if value is not None:
            return value
    return None


def epoch_minute(stamp, unit: str) -> int | str | None:
    """The minute of a JSON timestamp; a reason (impossible_date, minute_out_of_range) found by the
    calendar; None: bad_timestamp."""
    if isinstance(stamp, Number) or (isinstance(stamp, str) and EPOCH_TEXT.fullmatch(stamp)):
        number = Decimal(stamp)
        if number.is_zero():
            return 0
        if number.adjusted() > 20:
            return "minute_out_of_range"
        milliseconds = unit == "ms" or (unit == "auto" and abs(number) >= 100_000_000_000)
        floor = int(number.to_integral_value(rounding="ROUND_FLOOR")) if number.adjusted() >= -30 else (
            -1 if number < 0 else 0)
        return floor // (60_000 if milliseconds else 60)
    if not isinstance(stamp, str):
        return None
    match = APP_STAMP.fullmatch(stamp)
    if match is None:
        return None
    offset = 0
    if match.group(7):
        offset = int(match.group(8)) * 60 + int(match.group(9))
        offset = -offset if match.group(7) == "-" else offset
    found = dated(int(match.group(1)), int(match.group(2)), int(match.group(3)), int(match.group(4)),
                  int(match.group(5)), offset, False)
    return found[2] or found[0]


def dated(year: int, month: int, day: int, hour: int, minute: int, offset: int, error: bool) -> Result:
    if not (1 <= month <= 12 and 1 <= day <= pyparse.days_in_month(year, month)):
        return None, False, "impossible_date"
    if year < 1:
        return None, False, "minute_out_of_range"
    value = (date(year, month, day).toordinal() - pyparse.EPOCH_ORDINAL) * 1440 + hour * 60 + minute - offset
    if not MIN_MINUTE <= value <= MAX_MINUTE:
        return None, False, "minute_out_of_range"
    return value, error, None
