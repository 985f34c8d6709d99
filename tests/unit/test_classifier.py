"""The JVM classifier (java/errorcount/ClassifyLine.java) against the contract's hand-labelled
cases and, differentially, against the independent plain-Python implementation (bench/pyparse.py)
on generated and mutated values. DIFFERENTIAL_VALUES sets how many (make differential: millions)."""

import os
import random
from datetime import datetime

import pytest
from pyspark.sql import functions as F

from bench import pyparse
from errorcount.parse import Contract, register_classifier
from errorcount.tools import produce
from tests.unit.test_parse import CASES, epoch_minute

CODES = {None: 0, "null_value": 2, "empty_line": 3, "bad_timestamp": 4, "bad_level": 5, "impossible_date": 6,
         "minute_out_of_range": 7}
STRAY = [b"\x00", b"\xff", b"\xc3", b"\xe2\x82", b"\n", b"\r", b" ", b"\t", b"9", b"0", b":", b"-", b"+", b"Z",
         b"T", b".", b",", b"[", b"]", b"e", b"R", b"\xef\xbc\x91", b"\x85", b"\xa0"]
BOUNDARY = [f"{stamp}{zone} {level} x".encode() for stamp in (
    "0000-01-01 00:00:00", "0000-02-29 12:00:00", "0001-01-01 00:00:00", "0999-12-31 23:59:59",
    "1000-01-01 00:00:00", "1000-01-01 00:00:59", "1900-02-29 00:00:00", "2000-02-29 00:00:00",
    "2023-02-29 10:00:00", "2024-02-29 10:00:00", "2024-04-31 10:00:00", "2024-13-01 10:00:00",
    "2024-00-10 10:00:00", "2024-01-00 10:00:00", "2024-12-31 23:59:59", "2024-01-01 24:00:00",
    "2024-01-01 23:60:00", "2024-01-01 23:59:60", "9999-12-31 23:59:59", "9999-12-31T23:59:59.123456789",
    "2024-01-01 10:00:00.1234567890", "2024-01-01 10:00:00.", "2024-01-01T10:00:00,5")
    for zone in ("", "Z", "+00:00", "-00:01", "+00:01", "+14:00", "+14:59", "+15:00", "-12:00", "+0530", "+05:3",
                 "+5:30", "-2400")
    for level in ("ERROR", "error", "[ERROR]:", "INFO")]


def as_code(value: bytes | None) -> int:
    """pyparse's answer packed as the classifier packs its own: minute * 16 + outcome."""
    minute, is_error, reason = pyparse.classify(value)
    return ((minute or 0) << 4) | (1 if is_error else CODES[reason])


def mutated(count: int, seed: int, base: list[bytes | None] | None = None, stray: list[bytes] = STRAY,
            positions: int = 40) -> list[bytes | None]:
    """Generated values (app lines unless `base` is given), each stray byte at every position of
    a few of them, then random insertions, replacements, truncations and random bytes."""
    rng = random.Random(seed)
    base = base or [e.value for e in produce.generate(3000, seed, datetime(2030, 6, 1), 600)] + BOUNDARY
    found: list[bytes | None] = []
    for line in base[::max(1, len(base) // 40)]:  # every stray byte at every position of 40 lines
        if line is not None:
            found += [line[:i] + byte + line[i:] for i in range(min(len(line), positions)) for byte in stray[:8]]
    found = found[:count // 4]
    while len(found) < count:
        value, roll = rng.choice(base), rng.random()
        if value is None or roll < 0.25:
            found.append(value)
            continue
        at = rng.randrange(len(value) + 1)
        if roll < 0.55:
            found.append(value[:at] + rng.choice(stray) + value[at:])
        elif roll < 0.8:
            found.append(value[:at] + rng.choice(stray) + value[at + 1:])
        elif roll < 0.9:
            found.append(value[:at])
        else:
            found.append(bytes(rng.randrange(256) for _ in range(rng.randrange(30))))
    return found[:count]


def classify_in_jvm(spark, values: list[bytes | None]) -> list[int]:
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i long, value binary")
    rows = df.select("i", F.call_function("errorcount_classify", "value").alias("packed")).collect()
    return [packed for _i, packed in sorted((r["i"], r["packed"]) for r in rows)]


@pytest.fixture(scope="module")
def classifier(spark):
    register_classifier(spark)
    return spark


def test_the_classifier_follows_the_contract_cases(classifier):
    packed = classify_in_jvm(classifier, [value for value, *_ in CASES])
    for got, (value, minute, is_error, reason) in zip(packed, CASES, strict=True):
        expected = ((epoch_minute(*minute) if minute else 0) << 4) | (1 if is_error else CODES[reason])
        assert (got >> 4, got & 15) == (expected >> 4, expected & 15), value


def test_the_classifier_and_pyparse_agree_on_generated_and_mutated_values(classifier):
    values = mutated(int(os.environ.get("DIFFERENTIAL_VALUES", "200000")), seed=20261124)
    got = classify_in_jvm(classifier, values)
    disagree = [(v, g, as_code(v)) for v, g in zip(values, got, strict=True) if g != as_code(v)]
    assert disagree == [], f"{len(disagree)} of {len(values)} disagree, e.g. {disagree[:5]}"
    codes = {g & 15 for g in got}
    assert codes == {0, 1, 2, 3, 4, 5, 6, 7}  # every outcome was exercised


def test_error_levels_come_in_through_the_constructor(spark):
    values = [b"2030-01-01 10:00:00 WARN a", b"2030-01-01 10:00:00 [fatal]: b", b"2030-01-01 10:00:00 ERROR c"]
    try:
        register_classifier(spark, Contract(error_levels="warn,FATAL"))
        assert [p & 15 for p in classify_in_jvm(spark, values)] == [1, 1, 0]
    finally:
        register_classifier(spark)  # the contract as written, for the other tests
    assert [p & 15 for p in classify_in_jvm(spark, values)] == [0, 0, 1]
    with pytest.raises(Exception, match="must be one or more ASCII letters"):
        register_classifier(spark, Contract(error_levels="ERROR,,WARN"))
