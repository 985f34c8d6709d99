"""Offset bookkeeping: pure functions, no services."""

import json

import pytest

from errorcount.errors import DataLossError
from errorcount.offsets import TopicPartition as TP
from errorcount.offsets import (
    advance,
    batch_end,
    beyond_plan,
    check_no_overlap,
    describe_gaps,
    find_gaps,
    minute_key,
    of_topic,
    plan_start,
    starting_offsets_json,
)


def test_starting_offsets_cover_every_partition():
    stored = {**of_topic("logs", {0: 17, 1: 0, 2: 5, 3: 9}), **of_topic("b", {0: 4}), **of_topic("gone", {0: 1})}
    result = json.loads(starting_offsets_json({"logs": [2, 0, 1, 3], "b": [0]}, stored))
    assert result == {"logs": {"0": 17, "1": 0, "2": 5, "3": 9}, "b": {"0": 4}}  # topics not read are not named
    # A partition added between the plan and the query: earliest, as Spark starts a new partition.
    assert json.loads(starting_offsets_json({"t": [0, 1]}, of_topic("t", {1: 3}))) == {"t": {"0": -2, "1": 3}}


def test_a_batch_ends_where_spark_planned_it_past_markers_and_aborted_records():
    # Partition 0: records up to 79, then a commit marker at 80: Spark planned 81.
    assert batch_end({0: 50, 1: 7}, {0: (50, 79)}, {0: 81, 1: 7}) == {0: 81, 1: 7}
    # Only an aborted transaction and its marker: no rows, the end still moves.
    assert batch_end({0: 50}, {}, {0: 61}) == {0: 61}
    # A partition Spark found while running, with nothing in it yet; one whose plan is behind the store.
    assert batch_end({0: 50}, {}, {0: 50, 1: 0}) == {0: 50, 1: 0}
    assert batch_end({0: 50}, {}, {0: 40}) == {0: 50}


def test_a_batch_without_a_plan_or_with_one_its_rows_contradict_ends_after_its_last_record():
    assert batch_end({0: 50}, {0: (50, 79)}, None) == {0: 80}
    assert batch_end({0: 50}, {0: (50, 79)}, {0: 79}) == {0: 80}  # a record at the planned end: not this plan
    assert batch_end({0: 50}, {0: (50, 79), 1: (0, 3)}, {0: 90}) == {0: 80, 1: 4}  # no plan for partition 1


def plan(stored, stored_ids, current="NEW", partitions=(0, 1), earliest=None, latest=None, default="earliest",
         skip=False):
    earliest = earliest or {p: 0 for p in partitions}
    latest = latest or {p: 100 for p in partitions}
    return plan_start("t", stored, stored_ids, current, list(partitions), earliest, latest, default, skip)


def test_partitions_seen_for_the_first_time_get_a_number_once():
    first = plan({}, set(), default="latest", earliest={0: 5, 1: 0}, latest={0: 40, 1: 12})
    assert (first.offsets, first.resolved, first.skipped, first.recreated) == ({0: 40, 1: 12}, {0: 40, 1: 12}, [], False)
    # Once the job has offsets, a partition first seen (added while it was stopped) starts at its first
    # offset whatever STARTING_OFFSETS says: 'latest' would skip what reached it before this start.
    later = plan({0: 40}, {"NEW"}, partitions=(0, 1, 2), default="latest", earliest={0: 0, 1: 7, 2: 0},
                 latest={0: 90, 1: 80, 2: 3})
    assert later.offsets == {0: 40, 1: 7, 2: 0} and later.resolved == {1: 7, 2: 0}  # 0 keeps its stored offset
    assert plan({}, set(), earliest={0: 5, 1: 0}).offsets == {0: 5, 1: 0}


def test_a_recreated_topic_is_data_loss_unless_skipped_and_then_counted_from_its_start():
    with pytest.raises(DataLossError, match=r"'t' was deleted and recreated .*topic ID OLD, now NEW.*ON_DATA_LOSS=skip"):
        plan({0: 1000, 1: 7}, {"OLD"})
    # Even a stored offset inside the new topic's range (1000 of 2000) is not resumed from.
    skipped = plan({0: 1000, 1: 7, 2: 3}, {"OLD"}, partitions=(0, 1), default="latest", skip=True,
                   latest={0: 2000, 1: 0})
    assert skipped.recreated and skipped.resolved == {}
    assert skipped.offsets == {0: 0, 1: 0, 2: 0}  # every new partition from its start; the vanished one at 0
    assert [(g.partition, g.stored, g.resume) for g in skipped.skipped] == [(0, 1000, 0), (1, 7, 0), (2, 3, 0)]
    assert all("topic recreated: its ID was OLD, now NEW" in g.why for g in skipped.skipped)


def test_offsets_stored_before_topic_ids_were_kept_are_adopted_not_taken_for_a_recreation():
    assert plan({0: 10, 1: 10}, set()).offsets == {0: 10, 1: 10}


def test_gaps_under_the_same_topic_are_data_loss_or_skipped():
    with pytest.raises(DataLossError, match="partition 0: stored next offset 3, earliest available 8"):
        plan({0: 3, 1: 10}, {"NEW"}, earliest={0: 8, 1: 0})
    skipped = plan({0: 3, 1: 10}, {"NEW"}, earliest={0: 8, 1: 0}, skip=True)
    assert skipped.offsets == {0: 8, 1: 10} and [g.partition for g in skipped.skipped] == [0]


def test_advance_moves_only_partitions_with_records():
    assert advance({0: 10, 1: 20}, {0: (10, 14), 2: (0, 3)}) == {0: 15, 1: 20, 2: 4}


def test_advance_does_not_modify_its_input():
    expected = {0: 10}
    advance(expected, {0: (10, 11)})
    assert expected == {0: 10}


def test_overlap_with_stored_offsets_is_refused():
    with pytest.raises(DataLossError, match="offset 19 of topic 'b' partition 1, before the stored next offset 20"):
        check_no_overlap({TP("a", 1): 10, TP("b", 1): 20}, {TP("a", 1): (10, 12), TP("b", 1): (19, 25)})


def test_gaps_after_stored_offsets_are_accepted():
    check_no_overlap({TP("a", 0): 10}, {TP("a", 0): (12, 15), TP("a", 5): (0, 1)})  # transaction markers leave gaps


def test_a_vanished_partition_stops_the_job():
    with pytest.raises(DataLossError, match="partition 3: stored next offset 5, but the partition no longer exists"):
        find_gaps("t", {0: 1, 3: 5}, {0: 0}, {0: 10})


def test_deleted_and_recreated_ranges_are_gaps_resuming_at_earliest():
    gaps = find_gaps("t", {0: 5, 1: 20, 2: 7}, {0: 8, 1: 0, 2: 0}, {0: 10, 1: 10, 2: 10})
    assert [(g.partition, g.stored, g.resume) for g in gaps] == [(0, 5, 8), (1, 20, 0)]
    assert "3 records deleted" in gaps[0].why and "beyond the partition's end 10" in gaps[1].why
    message = describe_gaps("t", gaps)
    assert "partition 0: stored next offset 5, earliest available 8" in message and "ON_DATA_LOSS=skip" in message


def test_stored_offsets_within_the_retained_range_are_no_gap():
    assert find_gaps("t", {0: 8, 1: 10}, {0: 8, 1: 0}, {0: 10, 1: 10}) == []


@pytest.mark.parametrize("minute, text", [
    (0, "1970-01-01 00:00:00"),
    (-1, "1969-12-31 23:59:00"),
    (28_401_120, "2024-01-01 00:00:00"),
    (-510_170_400, "1000-01-01 00:00:00"),
    (4_223_371_679, "9999-12-31 23:59:00"),
])
def test_minute_key_is_a_plain_utc_wall_clock(minute, text):
    assert minute_key(minute) == text


def test_rows_at_or_past_the_planned_end_or_outside_the_plan_are_beyond_it():
    assert not beyond_plan({TP("t", 0): (50, 79)}, {TP("t", 0): 80})
    assert beyond_plan({TP("t", 0): (50, 80)}, {TP("t", 0): 80})
    assert beyond_plan({TP("t", 1): (0, 0)}, {TP("t", 0): 80})
    assert not beyond_plan({}, {TP("t", 0): 80})
