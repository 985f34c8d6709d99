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
    minute_key,
    of_topic,
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
