"""Offset bookkeeping: pure functions, no services."""

import json

import pytest

from errorcount.errors import DataLossError
from errorcount.offsets import advance, check_no_overlap, describe_gaps, find_gaps, minute_key, starting_offsets_json


def test_starting_offsets_cover_every_partition():
    result = json.loads(starting_offsets_json("logs", [2, 0, 1, 3], {0: 17, 2: 5}, "earliest"))
    assert result == {"logs": {"0": 17, "1": -2, "2": 5, "3": -2}}


def test_starting_offsets_latest_for_unknown_partitions():
    assert json.loads(starting_offsets_json("t", [0, 1], {1: 3}, "latest")) == {"t": {"0": -1, "1": 3}}


def test_advance_moves_only_partitions_with_records():
    assert advance({0: 10, 1: 20}, {0: (10, 14), 2: (0, 3)}) == {0: 15, 1: 20, 2: 4}


def test_advance_does_not_modify_its_input():
    expected = {0: 10}
    advance(expected, {0: (10, 11)})
    assert expected == {0: 10}


def test_overlap_with_stored_offsets_is_refused():
    with pytest.raises(DataLossError, match="partition 1"):
        check_no_overlap({0: 10, 1: 20}, {0: (10, 12), 1: (19, 25)})


def test_gaps_after_stored_offsets_are_accepted():
    check_no_overlap({0: 10}, {0: (12, 15), 5: (0, 1)})  # transaction markers leave gaps


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
