"""The JVM classifier (java/errorcount/ClassifyLine.java) against the contract's hand-labelled
cases and, differentially, against the independent plain-Python implementation (tests/oracles/pyparse.py)
on generated and mutated values. DIFFERENTIAL_VALUES sets how many (make differential: millions)."""

import os
from pathlib import Path

import pytest

from errorcount.config.settings import CLASSIFIER_SETTINGS
from errorcount.errors import ConfigError
from errorcount.pipeline.classify import Contract, classify_lines_df, outcomes, register_classifier
from tests.oracles import pyparse
from tests.unit.pipeline.contract_cases import CASES, classify_in_jvm, codes_of, epoch_minute, mutated


def as_code(codes: dict[str | None, int], value: bytes | None) -> int:
    """pyparse's answer packed as the classifier packs its own: minute * 16 + outcome."""
    minute, is_error, reason = pyparse.classify(value)
    return ((minute or 0) << 4) | (1 if is_error else codes[reason])


def test_the_classifier_follows_the_contract_cases(spark):
    codes = codes_of(spark)
    packed = classify_in_jvm(spark, [value for value, *_ in CASES])
    for got, (value, minute, is_error, reason) in zip(packed, CASES, strict=True):
        expected = ((epoch_minute(*minute) if minute else 0) << 4) | (1 if is_error else codes[reason])
        assert (got >> 4, got & 15) == (expected >> 4, expected & 15), value


def test_the_classifier_and_pyparse_agree_on_generated_and_mutated_values(spark):
    codes = codes_of(spark)
    values = mutated(int(os.environ.get("DIFFERENTIAL_VALUES", "200000")), seed=20261124)
    got = classify_in_jvm(spark, values)
    disagree = [(v, g, as_code(codes, v)) for v, g in zip(values, got, strict=True) if g != as_code(codes, v)]
    assert disagree == [], f"{len(disagree)} of {len(values)} disagree, e.g. {disagree[:5]}"
    app_reasons = (None, "null_value", "empty_line", "bad_timestamp", "bad_level", "impossible_date", "minute_out_of_range")
    assert {g & 15 for g in got} == {codes[r] for r in app_reasons} | {1}  # every outcome of the app contract


def test_the_outcome_codes_are_the_jvms_and_documented(spark):
    """The codes come from Outcome.java (one list); each reject reason is a clause of docs/contract.md."""
    known = outcomes(spark)
    assert (known.code_bits, known.valid, known.error) == (4, 0, 1)
    assert sorted(known.reasons) == list(range(2, 2 + len(known.reasons)))  # numbered in checking order
    contract = (Path(__file__).resolve().parents[3] / "docs" / "contract.md").read_text(encoding="utf-8")
    assert [reason for reason in known.reasons.values() if f"`{reason}`" not in contract] == []


def test_settings_come_in_by_name(spark):
    values = [b"2030-01-01 10:00:00 WARN a", b"2030-01-01 10:00:00 [fatal]: b", b"2030-01-01 10:00:00 ERROR c"]
    assert [p & 15 for p in classify_in_jvm(spark, values, Contract.with_settings(ERROR_LEVELS="warn,FATAL"))] == [1, 1, 0]
    assert [p & 15 for p in classify_in_jvm(spark, values)] == [0, 0, 1]  # the app contract as written, alongside
    with pytest.raises(ConfigError, match="ERROR_LEVELS must be comma-separated names"):
        Contract.with_settings(ERROR_LEVELS="ERROR,,WARN")  # validated once, as the job validates it


def test_a_setting_missing_by_name_fails_in_the_jvm(spark):
    """The JVM reads each setting by its name: one left out is named, not read as another."""
    partial = Contract(tuple(item for item in Contract.with_settings().settings if item[0] != "ERROR_LEVELS"))
    with pytest.raises(Exception, match="needs the setting ERROR_LEVELS"):
        register_classifier(spark, partial)


def test_classify_lines_df_uses_the_contract_it_is_given(spark):
    """Two contracts in one session: each plan classifies under its own (no hidden registration)."""
    source = spark.createDataFrame([("logs", 0, 0, b"2030-01-01 10:00:00 WARN a")],
                                   "topic string, partition int, offset long, value binary")
    warn = classify_lines_df(source, Contract.with_settings(ERROR_LEVELS="WARN"))
    plain = classify_lines_df(source, Contract.with_settings())
    assert [r["is_error"] for r in warn.collect()] == [True]
    assert [r["is_error"] for r in plain.collect()] == [False]
    assert [r["is_error"] for r in warn.collect()] == [True]  # the first plan is not re-bound by the second


def test_every_classifier_setting_is_read_by_a_java_class():
    """A setting marked `classifier` that no Java class reads by name would be passed and ignored."""
    java = "".join(path.read_text(encoding="utf-8") for path in (Path(__file__).resolve().parents[3] / "java").rglob("*.java"))
    assert [s.name for s in CLASSIFIER_SETTINGS if f'"{s.name}"' not in java] == []
