"""The JVM classifier against the independent plain-Python implementation (tests/oracles/pyformats.py)
for the access and json contracts, on generated samples (errorcount/tools/samples.py), boundary
values and their mutations: stray bytes at every position, random edits, truncations, random
bytes. DIFFERENTIAL_VALUES sets how many per contract (make differential: millions)."""

import os
from datetime import datetime

import pytest

from errorcount.pipeline.classify import Contract, outcomes
from errorcount.tools import samples
from tests.oracles.pydims import Dimensions
from tests.unit.pipeline.contract_cases import codes_of, jvm_codes, jvm_series, mutated, reference_codes

ACCESS_STRAY = [b'"', b"\\", b" ", b"\t", b"[", b"]", b"/", b":", b"\x00", b"\xff", b"\xc3", b"\n", b"\r", b"-",
                b"+", b"5", b"0", b"9", b"J", b"a"]
JSON_STRAY = [b"{", b"}", b'"', b"\\", b",", b":", b"[", b"]", b"\x00", b"\xff", b"\xef\xbb\xbf", b" ", b"\n",
              b"e", b"E", b"-", b"+", b".", b"0", b"9", b"n", b"u", b"\x7f", b"\x1f"]
ACCESS_BOUNDARY = [f'h - - [{day}/{month}/{year}:{hms} {zone}] "{req}" {status} {size}'.encode()
                   for day, month, year in (("29", "Feb", "2024"), ("29", "Feb", "2100"), ("31", "Dec", "9999"),
                                            ("01", "Jan", "1000"), ("00", "Jan", "2024"), ("31", "Jun", "2024"))
                   for hms in ("00:00:00", "23:59:59", "24:00:00")
                   for zone in ("+0000", "-1400", "+1400", "+1459", "-0001")
                   for req, status, size in (("GET /", "500", "-"), ("a\\\\", "599", "0"), ("-", "100", "12"))]
STAMPS = ['"2024-02-29T23:59:59.999999999Z"', '"9999-12-31 23:59:59-00:01"', '"1000-01-01T00:00:00+00:01"',
          '"2023-02-29 10:00:00"', '"2024-01-01T10:00:00+0530"', '"0000-01-01T00:00:00Z"', "0", "-0", "-1e-9",
          "99999999999", "100000000000", "-99999999999.5", "253402300799", "253402300800", "253402300799999",
          "-30610224000", "-30610224001", "1.7145576e9", "1e21", "1E-21", '"1714557600"', '"-1714557600.75"',
          '"+0"', "17145576000000000000000000e-16", "null", "true", '""', "[]", "{}"]
JSON_BOUNDARY = [f'{{"ts": {stamp}, "level": {level}, "status": {status}, "log": {{"level": "ERROR"}}, '
                 f'"message": {message}}}'.encode()
                 for stamp in STAMPS
                 for level in ('"ERROR"', '" error "', "50", "50.0", "null", '"INFO"')
                 for status in ("503", '"0503"', "499", "600", "5e2", "null")
                 for message in ('"2024-05-01T10:00:00Z ERROR x"', '"h - - [10/Oct/2000:13:55:36 -0700] \\"G\\" 502 0"',
                                 "7")][::3]
JSON_BOUNDARY += [b'{"ts": 1, "level": "ERROR", "d": ' + b"[" * depth + b"]" * depth + b"}" for depth in (1, 999, 1001, 3000)]
CONTRACTS = {
    "access": (Contract.with_settings(LOG_FORMAT="access"), Contract.with_settings(LOG_FORMAT="access", ERROR_STATUS_MIN=404)),
    "json": (Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50"),
             Contract.with_settings(LOG_FORMAT="json", JSON_STATUS_FIELD="status", ERROR_STATUS_MIN=500),
             Contract.with_settings(LOG_FORMAT="json", JSON_EPOCH_UNIT="s", JSON_TIME_FIELDS="ts,time",
                                    JSON_LEVEL_FIELDS="log.level"),
             Contract.with_settings(LOG_FORMAT="json", JSON_EPOCH_UNIT="ms"),
             Contract.with_settings(LOG_FORMAT="json", JSON_MESSAGE_FIELD="message", MESSAGE_FORMAT="app"),
             Contract.with_settings(LOG_FORMAT="json", JSON_MESSAGE_FIELD="message", MESSAGE_FORMAT="access")),
}


def values_of(log_format: str, count: int, seed: int) -> list[bytes | None]:
    generated = [e.value for e in samples.generate(log_format, 3000, seed, datetime(2030, 6, 1), 600)]
    if log_format == "json":  # shipper-wrapped app and access lines too, for the message contracts
        generated += [b'{"message": "' + line.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"}'
                      for line in generated[:300:3] if line and b"\n" not in line]
        return mutated(count, seed, JSON_BOUNDARY + generated, JSON_STRAY, positions=200)
    return mutated(count, seed, ACCESS_BOUNDARY + generated, ACCESS_STRAY, positions=120)


@pytest.mark.parametrize("log_format", ["access", "json"])
def test_the_classifier_and_the_reference_agree(spark, log_format):
    count = int(os.environ.get("DIFFERENTIAL_VALUES", "200000"))
    seen: set[int] = set()
    for number, contract in enumerate(CONTRACTS[log_format]):
        values = values_of(log_format, count // len(CONTRACTS[log_format]), seed=20261124 + number)
        got = jvm_codes(spark, contract, values)
        disagree = [(v[:200] if v else v, g, w) for v, g, w in zip(values, got, reference_codes(spark, contract, values),
                                                                      strict=True) if g != w]
        assert disagree == [], f"{contract}: {len(disagree)} of {len(values)} disagree, e.g. {disagree[:3]}"
        seen |= {code for _, code in got}
    expected = {0, 1, 2, 3, 6, 7, 8, 9} if log_format == "access" else {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
    assert seen >= expected  # every outcome of the contract was exercised


# Bytes a string scan must stop at or pass over: quotes, escapes, controls, UTF-8, and plain ones.
SCANNED = [b'"', b"\\", b'\\"', b"\\\\", b"\\u00e9", b"\\n", b"\\x", b"\x00", b"\x1f", b" ", b"\x7f", b"\xc3\xa9", b"\xff",
           b"!", b"#", b"]"]


def scanned_strings() -> list[bytes]:
    """Each of SCANNED at every offset of strings of 0 to 19 bytes, as a member's value (the object
    ending 0 to 8 bytes after it) and as a member's name: every place in a word of eight bytes,
    and up to the value's last byte, where Json.java's scans (eight bytes at a time) can meet it."""
    values = []
    for length in range(20):
        for at in range(length + 1):
            for special in SCANNED if at < length else [b""]:
                text = b"a" * at + special + b"b" * max(length - at - 1, 0)
                values += [b'{"ts":1714557600,"level":"ERROR","m":"' + text + b'"}' + b" " * pad for pad in range(9)]
                values.append(b'{"' + text + b'":1,"ts":1714557600,"level":"ERROR","m":"' + text + b'"}')
    return values


def test_strings_scanned_eight_bytes_at_a_time_agree_at_every_offset(spark):
    values = scanned_strings()
    contract = Contract.with_settings(LOG_FORMAT="json", GROUP_BY="field:m,level", COUNT_LINES="true")
    got = jvm_codes(spark, contract, values)
    assert got == reference_codes(spark, contract, values)
    codes = codes_of(spark)
    assert {code for _, code in got} >= {codes["bad_json"], outcomes(spark).error}  # both met, many times
    reference = Dimensions(contract)
    series = jvm_series(spark, contract, values)
    disagree = [(v, g, w) for v, g, w in zip(values, series, map(reference.series, values), strict=True) if g != w]
    assert disagree == [], f"{len(disagree)} of {len(values)} disagree, e.g. {disagree[:3]}"


# A field the contract reads, where the one pass that validates the event also finds its members.
MEMBERS = [b'{"ts":1714557600,"x":{"level":"ERROR"}}', b'{"x":{"level":"INFO"},"level":"ERROR","ts":1714557600}',
           b'{"level":"ERROR","ts":1714557600,"level":"INFO"}', b'{"level":"INFO","ts":1714557600,"level":"ERROR"}',
           b'{"le\\u0076el":"ERROR","ts":1714557600}', b'{ "level" :\n "ERROR" , "ts" : 1714557600 }',
           b'{"ts":1714557600,"level":null,"severity":"ERROR"}', b'{"ts":1714557600,"a":[{"level":"ERROR"}]}',
           b'{"ts":1714557600,"level":"ERROR","x":[1,{"ts":"bad"}]}', b'{"ts":1714557600,"level":"ERROR",}',
           b'{"ts":1714557600,"level":"ERROR"', b'{"ts":1714557600,"level":"ERROR"}}', b'{"ts":1714557600,"level":"ERR\\u004fR"}']


def test_members_found_while_validating_are_the_top_level_ones(spark):
    values = [prefix + value[1:] for value in MEMBERS for prefix in (b"{", b'{"pad":"' + b"p" * 9 + b'",')]
    contract = Contract.with_settings(LOG_FORMAT="json")
    assert jvm_codes(spark, contract, values) == reference_codes(spark, contract, values)
    codes = codes_of(spark)
    assert [code for _, code in jvm_codes(spark, contract, MEMBERS)] == [
        codes["bad_level"], outcomes(spark).error, codes[None], outcomes(spark).error, outcomes(spark).error,
        outcomes(spark).error, outcomes(spark).error, codes["bad_level"], outcomes(spark).error, codes["bad_json"],
        codes["bad_json"], codes["bad_json"], outcomes(spark).error]
