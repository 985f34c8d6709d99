"""The one pass's rows (summary.FIELDS) folded on the driver into a BatchSummary, by the job's
fold (Arrow, errorcount/pipeline/fold.py) and by the tests' plain-Python one
(tests/oracles/pyfold.py), each against the figures written here; and the dead-letter slots a
batch's partitions share."""

import pytest
from pyspark.sql import Row

from errorcount.offsets import TopicPartition
from errorcount.pipeline.fold import fold
from errorcount.pipeline.summary import BatchSummary, dead_letter_slots
from tests.oracles import pyfold


def arrow_fold(rows, dead_letter_limit=None, every_line=False):
    return fold(pyfold.summary_table(rows), dead_letter_limit, every_line)


FOLDS = pytest.mark.parametrize("summarize", [arrow_fold, pyfold.summarize], ids=["arrow", "python"])


def test_dead_letter_slots_share_the_limit_between_partitions():
    assert [dead_letter_slots(1000, 4), dead_letter_slots(1000, 3), dead_letter_slots(7, 1),
            dead_letter_slots(5, 8), dead_letter_slots(0, 4), dead_letter_slots(10, 0)] == [250, 334, 7, 1, 0, 10]


def row(partition, minute, records, rejected, low, high, slot=None, reason=None, raw=None, series=None,
        topic="t", errors=None):
    """A summary row; `errors` defaults to the ERROR-only grouping's (all of a minute's records)."""
    errors = (records if minute is not None else 0) if errors is None else errors
    return Row(topic=topic, partition=partition, minute=minute, series=series, dead_slot=slot, records=records,
               log_records=records, errors=errors,
               rejected=rejected, min_offset=low, max_offset=high, reject_reason=reason, raw_value=raw)


@FOLDS
def test_summarize_adds_up_minutes_and_offset_ranges(summarize):
    summary = summarize([row(0, 100, 2, 0, 10, 11), row(0, None, 3, 1, 5, 20), row(1, 100, 4, 0, 0, 9),
                         row(1, 101, 1, 0, 3, 3), row(1, None, 2, 2, 12, 15, slot=0, reason="bad_level",
                                                      raw=bytearray(b"?")), row(0, 100, 1, 0, 4, 4, topic="u")])
    assert summary == BatchSummary(records=13, errors=8, rejected=3, minute_counts={100: 7, 101: 1},
                                   ranges={TopicPartition("t", 0): (5, 20), TopicPartition("t", 1): (0, 15),
                                           TopicPartition("u", 0): (4, 4)},
                                   dead_letters=(("t", 1, 12, "bad_level", b"?"),),
                                   per_topic={"t": (12, 7, 3, 12), "u": (1, 1, 0, 1)},
                                   collided=True)  # two rejects (offsets 12 to 15) on one dead-letter slot


@FOLDS
def test_summarize_adds_up_series_per_minute_across_partitions(summarize):
    summary = summarize([row(0, 100, 2, 0, 10, 11, series="a"), row(1, 100, 3, 0, 0, 2, series="a"),
                         row(1, 100, 1, 0, 3, 3, series=""), row(1, 101, 4, 0, 4, 7, series="a"), row(1, None, 2, 0, 8, 9)])
    assert summary.series_counts == {(100, "a"): 5, (100, ""): 1, (101, "a"): 4}
    assert summary.minute_counts == {100: 6, 101: 4} and summary.errors == 10


@FOLDS
def test_summarize_of_nothing_is_empty(summarize):
    assert summarize([]) == BatchSummary()


@FOLDS
def test_rejects_of_one_record_on_a_slot_are_no_collision_two_records_are(summarize):
    """An OTLP request's rejected log records share its offset and so its dead-letter slot: one
    dead letter, nothing missed; two records on one slot are a collision (count() then reads every
    reject again)."""
    one_record = summarize([row(0, None, 1, 3, 7, 7, slot=7, reason="bad_timestamp", raw=bytearray(b"r"))])
    two_records = summarize([row(0, None, 2, 2, 7, 17, slot=7, reason="bad_otlp", raw=bytearray(b"r"))])
    assert (one_record.collided, one_record.rejected, len(one_record.dead_letters)) == (False, 3, 1)
    assert (two_records.collided, two_records.rejected, len(two_records.dead_letters)) == (True, 2, 1)


@FOLDS
def test_rejects_by_their_kafka_minute_are_counted_apart_from_every_total(summarize):
    def timed(base: Row, reject_minute=None, newest=None) -> Row:
        return Row(**base.asDict(), newest_ms=newest, reject_minute=reject_minute)
    plain = [timed(row(0, 100, 2, 0, 10, 11), newest=6_000_000), timed(row(0, None, 3, 3, 12, 14), newest=6_001_000)]
    per_minute = [timed(row(None, None, 0, 2, 0, 0, topic="t"), reject_minute=100),
                  timed(row(None, None, 0, 1, 0, 0, topic="t"), reject_minute=101),
                  timed(row(None, None, 0, 5, 0, 0, topic="u"), reject_minute=100),
                  timed(row(None, None, 0, 1, 0, 0, topic="t"), reject_minute=100)]  # another task's row
    summary = summarize(plain + per_minute)
    assert summary.minute_rejects == {("t", 100): 3, ("t", 101): 1, ("u", 100): 5}
    without = summarize(plain)
    assert (summary.records, summary.rejected, summary.ranges, summary.per_topic, summary.newest_ms) == (
        without.records, without.rejected, without.ranges, without.per_topic, without.newest_ms) == (
        5, 3, {TopicPartition("t", 0): (10, 14)}, {"t": (5, 2, 3, 5)}, 6_001_000)


@FOLDS
def test_lines_are_counted_per_minute_and_series_with_count_lines_only(summarize):
    rows = [row(None, 100, 5, 0, 1, 9, series="a", errors=2), row(0, 100, 1, 0, 10, 10, series="b", errors=0),
            row(0, None, 2, 2, 11, 12, slot=3, reason="bad_level", raw=bytearray(b"x"))]
    lines = summarize(rows, None, True)
    assert (lines.minute_counts, lines.minute_lines) == ({100: 2}, {100: 6})
    assert (lines.series_counts, lines.series_lines) == ({(100, "a"): 2, (100, "b"): 0}, {(100, "a"): 5, (100, "b"): 1})
    assert lines.ranges == {TopicPartition("t", 0): (10, 12)}  # the row without a partition bounds none
    assert summarize(rows, None, False).minute_lines == summarize(rows, None, False).series_lines == {}
    assert summarize(rows, 0, True).dead_letters == () and len(summarize(rows, 1, True).dead_letters) == 1
