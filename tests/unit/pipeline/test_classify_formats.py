"""The access and json contracts (docs/contract.md) clause by clause: every case is labelled by
hand and checked on the JVM classifier and on the independent plain-Python implementation
(tests/oracles/pyformats.py). The differential test of the two is
tests/unit/pipeline/test_classify_formats_differential.py."""

from datetime import datetime

import pytest

from errorcount.errors import ConfigError
from errorcount.pipeline.classify import Contract
from tests.unit.pipeline.contract_cases import codes_of, jvm_codes, reference_codes

A = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" {status} 2326'
AT = "2000-10-10 20:55"  # A's minute in UTC
LINE = '203.0.113.7 - - [{stamp}] "GET / HTTP/1.1" 503 12'


def access(status=200, **parts) -> bytes:
    return A.format(status=status).encode()


def stamp(text: str) -> bytes:
    return LINE.format(stamp=text).encode()


ACCESS_CASES = [  # (value, minute or None, is error, reason)
    (access(200), AT, False, None),
    (access(500), AT, True, None),
    (access(599), AT, True, None),
    (access(499), AT, False, None),
    (access(503) + b' "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"', AT, True, None),
    (access(503) + b" ", AT, True, None),                              # trailing blanks trimmed
    (b"  " + access(503) + b"\r\nsecond line", AT, True, None),       # the first line only, CR dropped
    (b'::1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 502 -', AT, True, None),  # IPv6 host, bytes '-'
    (b'h i u [10/Oct/2000:13:55:36 -0700] "\\x16\\x03\\x01" 400 0', AT, False, None),  # nginx's escaped TLS bytes
    (b'h - - [10/Oct/2000:13:55:36 -0700] "-" 500 0', AT, True, None),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET /a\\"b\\\\" 500 0', AT, True, None),    # \" and \\ do not end it
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET \\" 500 0', None, False, "bad_access_line"),  # no closing quote
    (b'h\xff - - [10/Oct/2000:13:55:36 -0700] "GET /caf\xc3 HTTP/1.1" 500 0', AT, True, None),  # any bytes
    (b'h - - [10/Oct/2000:13:55:36 +1400] "GET" 500 0', "2000-10-09 23:55", True, None),
    (b'h - - [10/Oct/2000:13:55:36 -1259] "GET" 500 0', "2000-10-11 02:54", True, None),
    (b'h  - - [10/Oct/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),  # two spaces
    (b'h\t- - [10/Oct/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),  # a tab
    (b'h - [10/Oct/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),     # no USER
    (b'h - - [10/Oct/2000:13:55:36] "GET" 500 0', None, False, "bad_access_line"),         # zone required
    (b'h - - [10/oct/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),   # month case
    (b'h - - [10/Sept/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [1/Oct/2000:13:55:36 -0700] "GET" 500 0', None, False, "bad_access_line"),    # two-digit day
    (b'h - - [10/Oct/2000:24:00:00 -0700] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:60:00 -0700] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:60 -0700] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36.5 -0700] "GET" 500 0', None, False, "bad_access_line"),  # no fraction
    (b'h - - [10/Oct/2000:13:55:36 +1500] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 +0560] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -07:00] "GET" 500 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] GET 500 0', None, False, "bad_access_line"),     # unquoted request
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 50 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 5000 0', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 500', None, False, "bad_access_line"),     # no BYTES
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 500 12a', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 500 -1', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 500 0\textra', None, False, "bad_access_line"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 099 0', None, False, "bad_status"),
    (b'h - - [10/Oct/2000:13:55:36 -0700] "GET" 600 0', None, False, "bad_status"),
    (b'h - - [31/Apr/2024:13:55:36 -0700] "GET" 600 0', None, False, "bad_status"),        # status before date
    (stamp("31/Apr/2024:10:00:00 +0000"), None, False, "impossible_date"),
    (stamp("29/Feb/2023:10:00:00 +0000"), None, False, "impossible_date"),
    (stamp("00/Jan/2024:10:00:00 +0000"), None, False, "impossible_date"),
    (stamp("32/Jan/2024:10:00:00 +0000"), None, False, "impossible_date"),
    (stamp("29/Feb/2024:10:00:00 +0000"), "2024-02-29 10:00", True, None),
    (stamp("29/Feb/0000:10:00:00 +0000"), None, False, "minute_out_of_range"),
    (stamp("31/Dec/0999:23:59:59 +0000"), None, False, "minute_out_of_range"),
    (stamp("01/Jan/1000:00:30:00 +0100"), None, False, "minute_out_of_range"),  # 0999 in UTC
    (stamp("01/Jan/1000:00:00:00 +0000"), "1000-01-01 00:00", True, None),
    (stamp("31/Dec/9999:23:59:59 +0000"), "9999-12-31 23:59", True, None),
    (stamp("31/Dec/9999:23:59:59 -0001"), None, False, "minute_out_of_range"),
    (None, None, False, "null_value"),
    (b"", None, False, "empty_line"),
    (b" \t\r\nh - - [10/Oct/2000:13:55:36 -0700] \"GET\" 500 0", None, False, "empty_line"),
]

T = '"ts": 1714557600'  # 2024-05-01 10:00 UTC
MAY = "2024-05-01 10:00"


def ev(text: str) -> bytes:
    return ("{" + text + "}").encode()


JSON_CASES = [  # (settings, value, minute or None, is error, reason); settings over json's defaults
    ({}, ev('"@timestamp": "2024-05-01T10:00:00.123Z", "log.level": "ERROR", "message": "x"'), MAY, True, None),
    ({}, ev('"@timestamp": "2024-05-01T10:00:00Z", "log": {"level": "error"}'), MAY, True, None),
    ({}, ev('"log.level": "INFO", "log": {"level": "ERROR"}, ' + T), MAY, False, None),  # literal key first
    ({}, ev('"log.level": null, "log": {"level": "ERROR"}, ' + T), MAY, False, "bad_level"),  # present, null
    ({}, ev('"time": "2024-05-01 10:00:00", "timestamp": "2024-05-01 11:00:00", "level": "info"'),
     "2024-05-01 11:00", False, None),                                                   # candidate order
    ({}, ev('"@timestamp": null, "ts": 1714557600, "level": "ERROR"'), MAY, True, None),  # null skipped
    ({"ERROR_LEVELS": "ERROR,50"}, ev('"level": 50, "time": 1714557600123, "msg": "pino"'), MAY, True, None),
    ({"ERROR_LEVELS": "ERROR,50"}, ev('"level": 50.0, "time": 1714557600123'), MAY, False, None),  # as written
    ({}, ev('"level": "error", "ts": 1714557600.123456, "msg": "zap"'), MAY, True, None),
    ({}, ev('"level": "error", "msg": "logrus", "time": "2024-05-01T12:00:00+02:00"'), MAY, True, None),
    ({}, ev('"severity": "ERROR", "timestamp": "2024-05-01T10:00:00.123456789Z"'), MAY, True, None),
    ({}, ev('"levelname": "ERROR", "timestamp": "2024-05-01 10:00:00,123"'), MAY, True, None),
    ({}, ev('"level": " ERROR\\t", ' + T), MAY, True, None),                            # blanks trimmed
    ({}, ev('"level": "", ' + T), MAY, False, None),
    ({}, ev('"level": "\\u0045RROR", ' + T), MAY, True, None),                          # escapes decoded
    ({}, ev('"Level": "ERROR", ' + T), None, False, "bad_level"),                        # keys are case-sensitive
    ({}, ev('"level": true, ' + T), None, False, "bad_level"),
    ({}, ev('"level": {"name": "ERROR"}, ' + T), None, False, "bad_level"),
    ({}, ev('"level": ["ERROR"], ' + T), None, False, "bad_level"),
    ({}, ev(T), None, False, "bad_level"),
    ({}, ev('"log": [{"level": "ERROR"}], ' + T), None, False, "bad_level"),            # no path into arrays
    ({}, ev('"level": "ERROR", "level": "INFO", ' + T), MAY, False, None),                # the last key wins
    ({}, ev('"\\u006cevel": "ERROR", ' + T), MAY, True, None),                         # escaped names decoded
    ({}, ev('"le\\u0076el": "INFO", "level": "ERROR", ' + T), MAY, True, None),           # the same name: last wins
    ({"JSON_LEVEL_FIELDS": "ts,level"}, ev('"level": "ERROR", ' + T), MAY, False, None),  # one field, two roles
    ({"JSON_LEVEL_FIELDS": "log.level.name"}, ev('"log": {"level": {"name": "ERROR"}}, ' + T), MAY, True, None),
    ({"JSON_LEVEL_FIELDS": "log.level.name"}, ev('"log.level": {"name": "ERROR"}, ' + T), None, False, "bad_level"),
    ({}, ev('"level": "ERROR"'), None, False, "bad_timestamp"),
    ({}, ev('"level": "ERROR", "ts": true'), None, False, "bad_timestamp"),
    ({}, ev('"level": "ERROR", "ts": "2024-05-01T10:00:00Z "'), None, False, "bad_timestamp"),
    ({}, ev('"level": "ERROR", "ts": "2024-05-01T10:00:00Z x"'), None, False, "bad_timestamp"),
    ({}, ev('"level": "ERROR", "ts": "1.5e3"'), None, False, "bad_timestamp"),           # strings: no exponent
    ({}, ev('"level": "ERROR", "ts": "1714557600"'), MAY, True, None),
    ({}, ev('"level": "ERROR", "ts": "+1714557600.5"'), MAY, True, None),
    ({}, ev('"level": "ERROR", "ts": "-61"'), "1969-12-31 23:58", True, None),
    ({}, ev('"level": "ERROR", "ts": -0.5'), "1969-12-31 23:59", True, None),           # negatives floor
    ({}, ev('"level": "ERROR", "ts": 1.5e3'), "1970-01-01 00:25", True, None),
    ({}, ev('"level": "ERROR", "ts": 1714557659.99999999999999999999'), MAY, True, None),  # exact, not float
    ({}, ev('"level": "ERROR", "ts": 171455765999999999999999e-14'), "2024-05-01 10:00", True, None),
    ({}, ev('"level": "ERROR", "ts": 99999999999'), "5138-11-16 09:46", True, None),    # auto: seconds
    ({}, ev('"level": "ERROR", "ts": 100000000000'), "1973-03-03 09:46", True, None),   # auto: milliseconds
    ({"JSON_EPOCH_UNIT": "ms"}, ev('"level": "ERROR", "ts": 1714557600'), "1970-01-20 20:15", True, None),
    ({"JSON_EPOCH_UNIT": "s"}, ev('"level": "ERROR", "ts": 1714557600123'), None, False, "minute_out_of_range"),
    ({}, ev('"level": "ERROR", "ts": 1e400'), None, False, "minute_out_of_range"),
    ({}, ev('"level": "ERROR", "ts": 1e-400'), "1970-01-01 00:00", True, None),
    ({}, ev('"level": "ERROR", "ts": 0e999999999999'), "1970-01-01 00:00", True, None),
    ({}, ev('"level": "ERROR", "ts": ' + "9" * 5000), None, False, "minute_out_of_range"),
    ({}, ev('"level": "ERROR", "ts": "2023-02-29T10:00:00Z"'), None, False, "impossible_date"),
    ({}, ev('"ts": "2023-02-29T10:00:00Z"'), None, False, "bad_level"),                  # level before date
    ({}, ev('"level": "ERROR", "ts": "0000-01-01T00:00:00Z"'), None, False, "minute_out_of_range"),
    ({}, ev('"level": "ERROR", "ts": "2024-05-01T10:00:00+15:00"'), None, False, "bad_timestamp"),
    ({}, b'  \n{\n  "level": "ERROR",\n  "ts": 1714557600\n}\n ', MAY, True, None),   # pretty-printed
    ({}, ev('"level": "ERROR", "ts": 1714557600, "note": "caf\xff"'), MAY, True, None),  # bad UTF-8 in a string
    ({}, b'{"level": "ERROR", "ts": 1714557600}\xff', None, False, "bad_json"),         # ... and outside
    ({}, b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b', "level": "ERROR", "ts": 1714557600}', MAY, True, None),
    ({}, b'{"a": ' + b"[" * 5000 + b"]" * 4999 + b', "level": "ERROR", "ts": 1714557600}', None, False, "bad_json"),
    ({}, b"[1]", None, False, "bad_json"),
    ({}, b'"ERROR"', None, False, "bad_json"),
    ({}, b"null", None, False, "bad_json"),
    ({}, ev('"level": "ERROR", "ts": NaN'), None, False, "bad_json"),
    ({}, ev('"level": "ERROR", "ts": Infinity'), None, False, "bad_json"),
    ({}, ev('"level": "ERROR", ' + T + ","), None, False, "bad_json"),
    ({}, b"{'level': 'ERROR', 'ts': 1714557600}", None, False, "bad_json"),
    ({}, b"\xef\xbb\xbf" + ev('"level": "ERROR", ' + T), None, False, "bad_json"),
    ({}, ev('"level": "ERROR", ' + T)[:-1], None, False, "bad_json"),
    ({}, ev('"level": "ERROR", ' + T) + b" {}", None, False, "bad_json"),
    ({}, ev('"level": "ERROR", "ts": 01'), None, False, "bad_json"),
    ({}, ev('"level": "ERROR", "ts": 1.'), None, False, "bad_json"),
    ({}, ev('"level": "ERROR", "ts": -'), None, False, "bad_json"),
    ({}, ev('/* c */ "level": "ERROR"'), None, False, "bad_json"),
    ({}, ev('"level": "ERR\x01OR", ' + T), None, False, "bad_json"),                     # raw control character
    ({}, ev('"level": "\\x45", ' + T), None, False, "bad_json"),                          # bad escape
    ({}, ev('"level": "\\u00G5", ' + T), None, False, "bad_json"),
    ({}, b"", None, False, "empty_line"),
    ({}, b" \r\n\t ", None, False, "empty_line"),
    ({}, None, None, False, "null_value"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 503, "level": true, ' + T), MAY, True, None),  # level unread
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": "503", ' + T), MAY, True, None),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 404, ' + T), MAY, False, None),
    ({"JSON_STATUS_FIELD": "status", "ERROR_STATUS_MIN": "400"}, ev('"status": 404, ' + T), MAY, True, None),
    ({"JSON_STATUS_FIELD": "response.status"}, ev('"response": {"status": 502}, ' + T), MAY, True, None),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 503.0, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 5e2, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": -503, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": "5O3", ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": " 503", ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 600, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 99, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": null, ' + T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev(T), None, False, "bad_status"),
    ({"JSON_STATUS_FIELD": "status"}, ev('"status": 503'), None, False, "bad_timestamp"),  # timestamp first
    ({"JSON_MESSAGE_FIELD": "message", "MESSAGE_FORMAT": "access"},
     ev('"@timestamp": "2030-01-01T00:00:00Z", "message": "h - - [10/Oct/2000:13:55:36 -0700] \\"GET /a\\\\\\"b\\" 502 0"'),
     AT, True, None),                                                                     # the wrapped line decides
    ({"JSON_MESSAGE_FIELD": "message", "MESSAGE_FORMAT": "access"}, ev('"message": "h - - [x] \\"GET\\" 502 0"'),
     None, False, "bad_access_line"),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": "2024-05-01T10:00:00Z ERROR boom\\n", "stream": "stderr", '
                                          '"time": "2030-01-01T00:00:00Z"'), MAY, True, None),  # Docker
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": "2024-05-01T10:00:00Z INFO x\\n2024-05-01T10:00:00Z ERROR"'),
     MAY, False, None),                                                                   # first line only
    ({"JSON_MESSAGE_FIELD": "log", "ERROR_LEVELS": "fatal"}, ev('"log": "2024-05-01T10:00:00Z FATAL x"'),
     MAY, True, None),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": "  "'), None, False, "empty_line"),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": 5, ' + T), None, False, "bad_message"),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": null, ' + T), None, False, "bad_message"),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"level": "ERROR", ' + T), None, False, "bad_message"),
    ({"JSON_MESSAGE_FIELD": "log"}, ev('"log": "2024-05-01 10:00:00 ERROR", '), None, False, "bad_json"),
]


def packed(codes: dict[str | None, int], minute: str | None, error: bool, reason: str | None) -> tuple[int, int]:
    """The expectation as (minute, code): minutes since 1970 of a naive UTC time, computed here."""
    if reason:
        return 0, codes[reason]
    return int((datetime.fromisoformat(minute or "") - datetime(1970, 1, 1)).total_seconds() // 60), 1 if error else 0


def check(spark, cases: list[tuple], log_format: str) -> None:
    codes = codes_of(spark)
    groups: dict[Contract, list[tuple]] = {}
    for settings, value, *expected in cases:
        groups.setdefault(Contract.with_settings(LOG_FORMAT=log_format, **settings), []).append((value, packed(codes, *expected)))
    for contract, group in groups.items():
        values = [value for value, _ in group]
        expected = [want for _, want in group]
        assert reference_codes(spark, contract, values) == expected, f"reference, {contract}"
        got = jvm_codes(spark, contract, values)
        wrong = [(v[:120] if v else v, g, w) for v, g, w in zip(values, got, expected, strict=True) if g != w]
        assert wrong == [], f"JVM classifier, {contract}"


def test_the_access_contract(spark):
    check(spark, [({}, *case) for case in ACCESS_CASES], "access")


def test_the_access_contract_with_another_status_minimum(spark):
    cases = [({"ERROR_STATUS_MIN": "400"}, access(404), AT, True, None),
             ({"ERROR_STATUS_MIN": "400"}, access(399), AT, False, None),
             ({"ERROR_STATUS_MIN": "599"}, access(598), AT, False, None)]
    check(spark, cases, "access")


def test_the_json_contract(spark):
    check(spark, JSON_CASES, "json")


def test_a_bad_contract_is_refused_by_the_settings_rules():
    with pytest.raises(ConfigError, match="ERROR_LEVELS must be ASCII letters for app lines"):
        Contract.with_settings(ERROR_LEVELS="ERROR,50")
    with pytest.raises(ConfigError, match="JSON_TIME_FIELDS must be comma-separated field names"):
        Contract.with_settings(LOG_FORMAT="json", JSON_TIME_FIELDS="ts,")
    assert Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50")["ERROR_LEVELS"] == "ERROR,50"
