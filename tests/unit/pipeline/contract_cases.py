"""What the classifier's tests share: the app contract's hand-labelled cases (independent
expectations, written out here), generated and mutated values for the differential tests, and
running values through the JVM classifier and the plain-Python references."""

import random
from datetime import datetime

from pyspark.sql import functions as F

from errorcount.pipeline.classify import Contract, outcomes, register_classifier
from errorcount.tools import samples
from tests.oracles.pyformats import Reference

APP = Contract.with_settings()  # the app contract as written


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
    (b"0999-12-31 23:59:59 ERROR", None, False, "minute_out_of_range"),
    (b"1000-01-01 00:10:00+01:00 ERROR", None, False, "minute_out_of_range"),
    (b"9999-12-31 23:30:00-01:00 ERROR", None, False, "minute_out_of_range"),
    # rejected: null, empty
    (None, None, False, "null_value"),
    (b"", None, False, "empty_line"),
    (b" \t\r\n2024-01-01 10:00:00 ERROR", None, False, "empty_line"),
    # rejected: no or malformed timestamp, impossible time
    (b"hello ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 24:00:00 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:60:00 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:60 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01\t10:00:00 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:00.1234567890 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:00+15:00 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:00+01:60 ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:00z ERROR", None, False, "bad_timestamp"),
    (b"2024-01-01 10:00:00ERROR", None, False, "bad_timestamp"),
    ("２０２４-01-01 10:00:00 ERROR".encode(), None, False, "bad_timestamp"),
    (b"2024-01-01 1\xff:00:00 ERROR", None, False, "bad_timestamp"),
    # rejected: impossible calendar dates
    (b"2023-02-29 10:00:00 ERROR", None, False, "impossible_date"),
    (b"1900-02-29 10:00:00 ERROR", None, False, "impossible_date"),
    (b"2024-04-31 10:00:00 ERROR", None, False, "impossible_date"),
    (b"2024-13-01 10:00:00 ERROR", None, False, "impossible_date"),
    (b"2024-00-10 10:00:00 ERROR", None, False, "impossible_date"),
    # rejected: malformed level
    (b"2024-01-01 10:00:00", None, False, "bad_level"),
    (b"2024-01-01 10:00:00 ERR0R", None, False, "bad_level"),
    (b"2024-01-01 10:00:00 ERROR_X", None, False, "bad_level"),
    (b"2024-01-01 10:00:00 [ERROR", None, False, "bad_level"),
    (b"2024-01-01 10:00:00 ERROR::", None, False, "bad_level"),
    ("2024-01-01 10:00:00 ERROR\u2028".encode(), None, False, "bad_level"),
    (b"2024-01-01 10:00:00 ERROR\rx", None, False, "bad_level"),
    (b"2024-01-01 10:00:00 ERROR\r\r\nnext", None, False, "bad_level"),  # only one trailing CR goes
    (b"2024-01-01 10:00:00 ERROR\r", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00 ERROR \r\n", (2024, 1, 1, 10, 0), True, None),
    (b"2024-01-01 10:00:00\r\nERROR", None, False, "bad_level"),
    (b"\t2024-01-01 10:00:00 \t", None, False, "bad_level"),
    (b"\t2024-02-30 10:00:00 ERROR", None, False, "impossible_date"),
    (b" 2024-01-01 10:00:00+01:00 ERROR", (2024, 1, 1, 9, 0), True, None),
]

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


def mutated(count: int, seed: int, base: list[bytes | None] | None = None, stray: list[bytes] = STRAY,
            positions: int = 40) -> list[bytes | None]:
    """Generated values (app lines unless `base` is given), each stray byte at every position of
    a few of them, then random insertions, replacements, truncations and random bytes."""
    rng = random.Random(seed)
    base = base or [e.value for e in samples.generate("app", 3000, seed, datetime(2030, 6, 1), 600)] + BOUNDARY
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


def classify_in_jvm(spark, values: list[bytes | None], contract: Contract = APP) -> list[int]:
    """The classifier's packed answers, in the order of `values`."""
    function = register_classifier(spark, contract)
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i long, value binary")
    rows = df.select("i", F.call_function(function, "value").getField("packed").alias("packed")).collect()
    return [packed for _i, packed in sorted((r["i"], r["packed"]) for r in rows)]


def jvm_codes(spark, contract: Contract, values: list[bytes | None]) -> list[tuple[int, int]]:
    """(minute, outcome code) of each value under `contract`, from the JVM classifier."""
    bits = outcomes(spark).code_bits
    return [(p >> bits, p & ((1 << bits) - 1)) for p in classify_in_jvm(spark, values, contract)]


def codes_of(spark) -> dict[str | None, int]:
    """Outcome code of each reject reason (the classifier's own numbering), None: a valid line."""
    known = outcomes(spark)
    return {None: known.valid, **{reason: code for code, reason in known.reasons.items()}}


def reference_codes(spark, contract: Contract, values: list[bytes | None]) -> list[tuple[int, int]]:
    """(minute, outcome code) of each value by the plain-Python reference (tests/oracles/pyformats.py)."""
    reference, codes, error_code = Reference(contract), codes_of(spark), outcomes(spark).error
    found = []
    for value in values:
        minute, error, reason = reference.classify(value)
        found.append((0, codes[reason]) if reason else (minute or 0, error_code if error else codes[None]))
    return found




def jvm_series(spark, contract: Contract, values: list[bytes | None]) -> list[str | None]:
    """The classifier's series of each value under `contract` (GROUP_BY), in the order of `values`."""
    function = register_classifier(spark, contract)
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i long, value binary")
    rows = df.select("i", F.call_function(function, "value").getField("series").alias("series")).collect()
    return [series for _i, series in sorted((r["i"], r["series"]) for r in rows)]
