"""The recount's plan (errorcount/recount/plan.py) against a simulated partition: records with a
Kafka time (LogAppendTime: never decreasing) and a line time up to SKEW ahead of it or any amount
behind, a job that counted part of them, a retention cut. Whatever the plan reads must hold every
counted record of the range; a refusal must offer a range it can recount exactly."""

import random

import pytest

from errorcount.config.load import load_config
from errorcount.config.rules import Rules
from errorcount.errors import EXIT_CONFIG, EXIT_DATA_LOSS
from errorcount.offsets import TopicPartition
from errorcount.recount.plan import (
    PartitionFacts,
    Range,
    Refusal,
    plan,
    rules_refusal,
    series_refusal,
    shared_refusal,
    table_refusal,
)

SKEW = 600
TP = TopicPartition("t", 0)


def simulated(rng: random.Random) -> tuple[list[int], list[int]]:
    """Per offset, the Kafka time (ms) and the line's minute."""
    times, minutes, now = [], [], 1_000_000 * 60_000
    for _ in range(rng.randint(0, 300)):
        now += rng.choice((0, 1000, 20_000, 90_000))
        lateness = rng.choice((-SKEW, -SKEW // 2, 0, 30, 3600, 86_400))  # seconds the line trails Kafka
        times.append(now)
        minutes.append((now // 1000 - lateness) // 60)
    return times, minutes


def facts(times: list[int], counted_from: int, stored: int, log_start: int, span: Range) -> PartitionFacts:
    """What Kafka answers, computed from the simulated log: the earliest held offset whose time is at or
    after the read start (None if none), and the time of the first held record."""
    start_ms = span.first * 60_000 - SKEW * 1000
    assert span.read_from_ms(SKEW) == start_ms
    held = range(log_start, len(times))
    at = next((o for o in held if times[o] >= start_ms), None)
    return PartitionFacts(counted_from, stored, log_start, at, times[log_start] if log_start < len(times) else None)


def belongs(minutes: list[int], span: Range, counted_from: int, stored: int) -> set[int]:
    return {o for o in range(counted_from, stored) if span.first <= minutes[o] < span.end}


@pytest.mark.parametrize("seed", range(400))
def test_what_the_plan_reads_holds_every_counted_record_of_the_range(seed):
    rng = random.Random(seed)
    times, minutes = simulated(rng)
    n = len(times)
    counted_from = rng.randint(0, n)
    stored = rng.randint(counted_from, n)
    log_start = rng.choice((0, rng.randint(0, n)))
    base = minutes[rng.randrange(n)] if n else 1_000_000
    span = Range(base + rng.randint(-30, 30), base + rng.randint(31, 400))
    found = plan(span, {TP: facts(times, counted_from, stored, log_start, span)}, SKEW, now_minute=10**9)
    if isinstance(found, Refusal):
        assert found.exit_code == EXIT_DATA_LOSS and log_start > counted_from
        # what was deleted, counted and in the range; the offer lies past all of it and is recountable exactly
        assert found.offer is not None
        assert all(minutes[o] < found.offer for o in range(counted_from, min(log_start, stored)))
        if found.offer < span.end:
            offered = Range(max(found.offer, span.first), span.end)
            again = plan(offered, {TP: facts(times, counted_from, stored, log_start, offered)}, SKEW, 10**9)
            assert not isinstance(again, Refusal)
            start, end = again[TP]
            assert belongs(minutes, offered, counted_from, stored) <= set(range(start, end))
        return
    start, end = found[TP]
    wanted = belongs(minutes, span, counted_from, stored)
    assert wanted <= set(range(start, end)), "a counted record of the range is not read"
    assert start >= counted_from and end == stored and (start == end or start >= log_start)


def test_refusals_of_the_range_itself():
    assert plan(Range(10, 10), {}, SKEW, 100).exit_code == EXIT_CONFIG
    future = plan(Range(200, 300), {}, SKEW, 100)
    assert future.exit_code == EXIT_CONFIG and "future" in future.message


def test_a_retention_refusal_names_the_partition_and_offers_the_exact_range():
    found = plan(Range(100, 200), {TP: PartitionFacts(counted_from=0, stored=50, log_start=10, at_time=10,
                                                      log_start_ms=150 * 60_000)}, SKEW, 10**6)
    assert isinstance(found, Refusal) and found.exit_code == EXIT_DATA_LOSS
    assert found.offer == 150 + SKEW // 60 + 1
    assert ("t-0: Kafka holds offsets from 10, its first record appended 1970-01-01 02:30 UTC, the job counted from 0 "
            "(retention)") in found.message
    assert "1970-01-01 02:41" in found.message  # minute 161, where the exact range starts


def test_an_old_retention_cut_does_not_refuse():
    """Kafka deleted counted records, but it still holds one older than the read start."""
    found = plan(Range(100, 200), {TP: PartitionFacts(0, 50, 10, at_time=20, log_start_ms=0)}, SKEW, 10**6)
    assert found == {TP: (20, 50)}


def test_other_rules_are_refused_naming_each_difference():
    own = Rules.of(load_config([], {"ERROR_LEVELS": "ERROR,FATAL"}))
    assert rules_refusal(own, own, "j") is None
    differs = rules_refusal(Rules.of(load_config([], {})), own, "j")
    assert differs.exit_code == EXIT_CONFIG and "ERROR_LEVELS: 'ERROR,FATAL' vs 'ERROR'" in differs.message
    assert rules_refusal(None, own, "j").exit_code == EXIT_CONFIG


def test_a_shared_counts_table_is_refused():
    assert shared_refusal("error_log", []) is None
    refused = shared_refusal("error_log", ["b", "a"])
    assert refused.exit_code == EXIT_CONFIG and "shared with a, b" in refused.message


def test_a_counts_table_the_job_does_not_write_is_refused():
    assert table_refusal("error_log", "j", ["access_log", "error_log"]) is None
    refused = table_refusal("error_log", "j", ["access_log"])
    assert refused.exit_code == EXIT_CONFIG and "does not write COUNTS_TABLE error_log (it writes access_log)" in refused.message
    assert "no table yet" in table_refusal("error_log", "j", []).message


@pytest.mark.parametrize(("first", "grouped", "days", "refused"), [
    (1000 - 2 * 1440, True, 1, True),     # older than the series kept
    (1000 - 1440, True, 1, False),        # exactly the oldest kept minute
    (1000 - 2 * 1440, False, 1, False),   # no GROUP_BY: no series to prune
    (1000 - 2 * 1440, True, 0, False),    # SERIES_RETENTION_DAYS=0 keeps all
])
def test_minutes_whose_series_are_pruned_are_refused(first, grouped, days, refused):
    found = series_refusal(Range(first, 1000), grouped, days, now_minute=1000)
    assert (found is not None) == refused
    if found:
        assert found.offer == 1000 - 1440 and found.exit_code == EXIT_CONFIG


@pytest.mark.parametrize("seed", range(100))
def test_a_recreated_topic_refuses_the_minutes_its_earlier_records_may_hold(seed):
    """Records of the earlier topic were appended at or before the recreation was found, their lines
    up to SKEW ahead: every such minute lies before the offer, and a range from the offer is planned."""
    rng = random.Random(seed)
    found_ms = rng.randint(10**12, 2 * 10**12)
    old_minutes = [(ms // 1000 + rng.randint(-86_400, SKEW)) // 60
                   for ms in (found_ms - rng.randint(0, 10**7) for _ in range(50))] + [(found_ms // 1000 + SKEW) // 60]
    facts = PartitionFacts(counted_from=0, stored=5, log_start=0, at_time=0, recreated_ms=found_ms)
    first = max(old_minutes) - rng.randint(0, 100)
    refused = plan(Range(first, first + 500), {TP: facts}, SKEW, 10**9)
    assert isinstance(refused, Refusal) and refused.exit_code == EXIT_DATA_LOSS and "recreated" in refused.message
    assert max(old_minutes) < refused.offer
    assert plan(Range(refused.offer, refused.offer + 10), {TP: facts}, SKEW, 10**9) == {TP: (0, 5)}
