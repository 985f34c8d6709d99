"""The start planner's case table (docs/design.md "Where each partition starts"), one test per row.
Expectations are written out by hand from the table, never taken from the planner's output."""

import pytest

from errorcount.errors import DataLossError
from errorcount.offsets import TopicPartition as TP
from errorcount.start_plan import Row, TopicState, plan_start


def topic(topic_id="NEW", earliest=None, latest=None, partitions=(0, 1)) -> TopicState:
    return TopicState(list(partitions), {p: (earliest or {}).get(p, 0) for p in partitions},
                      {p: (latest or {}).get(p, 100) for p in partitions}, topic_id)


def plan(rows=None, topics=None, first=False, starting="earliest", skip=False):
    return plan_start(rows or {}, {"t": topic()} if topics is None else topics, first, starting, skip)


def events(result) -> list[tuple]:
    return [(e.kind, e.topic, e.partition, e.stored, e.resume) for e in result.events]


def test_row_1_first_start_applies_starting_offsets_once():
    now = {"t": topic(earliest={0: 5, 1: 0}, latest={0: 40, 1: 12})}
    latest = plan(topics=now, first=True, starting="latest")
    assert latest.offsets == {TP("t", 0): 40, TP("t", 1): 12}
    assert plan(topics=now, first=True).offsets == {TP("t", 0): 5, TP("t", 1): 0}
    assert latest.events == [] and latest.warnings == []  # a choice, not a loss
    # One line per topic, whatever its partitions: a topic of 2 048 partitions is one short line, not 2 048.
    assert latest.notes == ["topic 't': the job's first start, STARTING_OFFSETS=latest: partitions 0-1 start at 0:40,1:12"]
    wide = plan(topics={"t": topic(latest={p: 1000 + p for p in range(2048)}, partitions=range(2048))}, first=True,
                starting="latest")
    assert wide.notes == ["topic 't': the job's first start, STARTING_OFFSETS=latest: partitions 0-2047 start at "
                          "offsets 1000..3047"]
    # Past 8 topics one line for all of them; each topic's line at DEBUG (details).
    many = plan(topics={f"w{n:03d}": topic(latest={0: n, 1: 500}) for n in range(100)}, first=True, starting="latest")
    assert many.notes == ["100 topics (w000 .. w099): the job's first start, STARTING_OFFSETS=latest: 200 partitions "
                          "start at offsets 0..500 (each topic at DEBUG)"]
    assert len(many.details) == 100 and many.details[7] == (
        "topic 'w007': the job's first start, STARTING_OFFSETS=latest: partitions 0-1 start at 0:7,1:500")


def test_row_2_first_start_with_no_topic_plans_nothing_and_later_topics_are_new():
    first = plan(topics={}, first=True, starting="latest")
    assert (first.offsets, first.events) == ({}, [])
    # The next start is not the first: a topic created since starts at 0, 'latest' or not.
    later = plan(topics={"t": topic(latest={0: 50, 1: 0})}, first=False, starting="latest")
    assert later.offsets == {TP("t", 0): 0, TP("t", 1): 0} and later.events == []


def test_row_3_a_stored_offset_kafka_still_holds_is_resumed():
    rows = {TP("t", 0): Row(40, "NEW"), TP("t", 1): Row(100, "NEW")}
    result = plan(rows, starting="latest")
    assert result.offsets == {TP("t", 0): 40, TP("t", 1): 100} and result.events == [] and result.give_up == []
    assert result.seen == {TP("t", 0): 100, TP("t", 1): 100}  # the end offsets seen now are stored with them


def test_row_4_below_earliest_is_a_retention_gap():
    rows = {TP("t", 0): Row(3, "NEW"), TP("t", 1): Row(10, "NEW")}
    now = {"t": topic(earliest={0: 8})}
    with pytest.raises(DataLossError, match=r"topic 't' partition 0 \(retention\): offsets 3 to 8: 5 records deleted"):
        plan(rows, now)
    skipped = plan(rows, now, skip=True)
    assert skipped.offsets == {TP("t", 0): 8, TP("t", 1): 10}
    assert events(skipped) == [("retention", "t", 0, 3, 8)]


def test_row_5_beyond_the_end_under_the_same_id_resumes_at_the_end_never_below():
    rows = {TP("t", 0): Row(1500, "NEW", seen_end=1500), TP("t", 1): Row(7, "NEW")}
    now = {"t": topic(latest={0: 1030})}
    with pytest.raises(DataLossError, match=r"partition 0 \(truncated\): stored next offset 1500, partition end 1030"):
        plan(rows, now)
    skipped = plan(rows, now, skip=True)
    # Not the earliest (0): offsets 0..999 were counted already and would be counted twice.
    assert skipped.offsets == {TP("t", 0): 1030, TP("t", 1): 7}
    assert events(skipped) == [("truncated", "t", 0, 1500, 1030)]
    assert skipped.seen[TP("t", 0)] == 1030  # the end seen starts again from the truncated log


def test_row_6_a_partition_new_to_the_job_at_0_is_counted_from_0():
    rows = {TP("t", 0): Row(40, "NEW")}
    now = {"t": topic(partitions=(0, 1, 2), latest={1: 80, 2: 3})}
    result = plan(rows, now, starting="latest")
    assert result.offsets == {TP("t", 0): 40, TP("t", 1): 0, TP("t", 2): 0} and result.events == []
    assert result.notes == ["topic 't' partitions 1-2: new to the job, counted from offset 0"]  # one line, not one each
    grown = plan({TP(f"w{n}", 0): Row(40, "NEW") for n in range(10)},
                 {f"w{n}": topic(partitions=(0, 1, 2)) for n in range(10)}, starting="latest")
    assert grown.notes == ["10 topics (w0 .. w9): 20 partitions new to the job, counted from offset 0 (each topic at DEBUG)"]
    assert grown.details[0] == "topic 'w0' partitions 1-2: new to the job, counted from offset 0"


def test_row_7_a_partition_new_to_the_job_above_0_is_a_gap():
    rows = {TP("t", 0): Row(40, "NEW")}
    now = {"t": topic(earliest={1: 40}, latest={1: 100})}
    with pytest.raises(DataLossError, match=r"partition 1 \(new_partition\): offsets 0 to 40"):
        plan(rows, now)
    skipped = plan(rows, now, skip=True)
    assert skipped.offsets == {TP("t", 0): 40, TP("t", 1): 40}
    assert events(skipped) == [("new_partition", "t", 1, 0, 40)]


def test_row_7b_a_topic_new_to_the_job_above_0_is_a_gap_too():
    with pytest.raises(DataLossError, match=r"topic 'u' partition 0 \(new_partition\): offsets 0 to 9"):
        plan({TP("t", 0): Row(1, "NEW")}, {"t": topic(partitions=(0,)), "u": topic("U", earliest={0: 9}, partitions=(0,))})


def test_row_8_offsets_stored_before_topic_ids_were_kept_are_adopted():
    rows = {TP("t", 0): Row(10, None), TP("t", 1): Row(10, None)}
    result = plan(rows)
    assert result.offsets == {TP("t", 0): 10, TP("t", 1): 10} and result.topic_ids == {"t": "NEW"}
    assert result.events == [] and any("adopting its current topic ID NEW" in note for note in result.notes)


def test_row_9_a_recreated_topic_counted_to_its_end_is_retired_and_the_new_one_counted_from_0():
    rows = {TP("t", 0): Row(1000, "OLD", seen_end=1000), TP("t", 1): Row(7, "OLD", seen_end=7)}
    result = plan(rows, {"t": topic(latest={0: 2000, 1: 0})})
    # Even a stored offset inside the new topic's range (1000 of 2000) is not resumed from.
    assert result.offsets == {TP("t", 0): 0, TP("t", 1): 0}
    assert events(result) == [("retired", "t", 0, 1000, 1000), ("retired", "t", 1, 7, 7)]
    assert set(result.give_up) == {TP("t", 0), TP("t", 1)}


def test_row_10_a_recreated_topic_with_unread_records_is_data_loss_unless_skipped():
    rows = {TP("t", 0): Row(1000, "OLD", seen_end=1200), TP("t", 1): Row(7, "OLD", seen_end=7),
            TP("t", 2): Row(3, "OLD")}  # end unknown: may hold unread records
    with pytest.raises(DataLossError, match=r"partition 0 \(recreated\): offsets 1000 to 1200: the topic was recreated: "
                                            r"its ID was OLD, now NEW") as refused:
        plan(rows)
    assert "partition 2 (recreated)" in str(refused.value) and "partition 1 " not in str(refused.value)
    skipped = plan(rows, skip=True)
    assert skipped.offsets == {TP("t", 0): 0, TP("t", 1): 0}
    assert events(skipped) == [("recreated", "t", 0, 1000, 1200), ("retired", "t", 1, 7, 7), ("recreated", "t", 2, 3, 3)]


def test_row_11_recreated_with_fewer_partitions_gives_up_the_rows_it_lacks_never_stores_them():
    rows = {TP("t", p): Row(50, "OLD", seen_end=50) for p in range(4)}
    result = plan(rows, {"t": topic(partitions=(0, 1))})
    assert result.offsets == {TP("t", 0): 0, TP("t", 1): 0}  # partitions 2 and 3 are not stored under the new ID
    assert sorted(result.give_up) == [TP("t", p) for p in range(4)]
    # The next start sees the given-up rows as history of another ID: nothing to settle, no loss.
    after = {**{TP("t", p): Row(50, "OLD", live=False, seen_end=50) for p in (2, 3)},
             **{TP("t", p): Row(9, "NEW", seen_end=9) for p in (0, 1)}}
    again = plan(after, {"t": topic(partitions=(0, 1), latest={0: 9, 1: 9})})
    assert again.offsets == {TP("t", 0): 9, TP("t", 1): 9} and again.events == [] and again.give_up == []


def test_row_12_a_deleted_topic_counted_to_its_end_is_retired_and_the_others_go_on():
    rows = {TP("gone", 0): Row(5, "G", seen_end=5), TP("t", 0): Row(40, "NEW")}
    result = plan(rows, {"t": topic(partitions=(0,))})
    assert result.offsets == {TP("t", 0): 40}
    assert events(result) == [("retired", "gone", 0, 5, 5)] and result.give_up == [TP("gone", 0)]
    assert result.away == {"gone": {"G"}}  # back under that ID while a query runs: the restart resumes it


def test_row_13_a_deleted_topic_with_unread_records_is_data_loss_unless_skipped():
    rows = {TP("gone", 0): Row(5, "G", seen_end=9), TP("gone", 1): Row(2, "G"), TP("t", 0): Row(40, "NEW")}
    with pytest.raises(DataLossError, match=r"topic 'gone' partition 0 \(given_up\): offsets 5 to 9: the topic no "
                                            r"longer exists.*ON_DATA_LOSS=skip"):
        plan(rows, {"t": topic(partitions=(0,))})
    skipped = plan(rows, {"t": topic(partitions=(0,))}, skip=True)
    assert events(skipped) == [("given_up", "gone", 0, 5, 9), ("given_up", "gone", 1, 2, 2)]
    assert skipped.give_up == [TP("gone", 0), TP("gone", 1)] and skipped.offsets == {TP("t", 0): 40}


def test_row_14_a_given_up_topic_back_with_its_old_id_resumes_from_its_stored_offsets():
    rows = {TP("t", 0): Row(60, "NEW", live=False, seen_end=60), TP("t", 1): Row(30, "NEW", live=False)}
    result = plan(rows, {"t": topic(latest={0: 90, 1: 30})})
    assert result.offsets == {TP("t", 0): 60, TP("t", 1): 30}  # not 0: that would count 60 + 30 records twice
    assert result.events == [] and any("is back with the ID NEW" in note for note in result.notes)
    with pytest.raises(DataLossError, match=r"partition 0 \(retention\)"):  # while it was gone, retention went on
        plan(rows, {"t": topic(earliest={0: 70})})


def test_row_15_a_given_up_topic_back_under_another_id_is_a_new_topic():
    rows = {TP("t", 0): Row(60, "OLD", live=False)}
    result = plan(rows)
    assert result.offsets == {TP("t", 0): 0, TP("t", 1): 0} and result.events == [] and result.give_up == []
    assert plan(rows, {}).away == {"t": {"OLD"}}  # while it is away, its old ID is known


def test_row_16_a_partition_gone_under_the_same_id_is_retired_or_lost():
    rows = {TP("t", 0): Row(9, "NEW"), TP("t", 3): Row(5, "NEW", seen_end=5), TP("t", 4): Row(5, "NEW", seen_end=8)}
    with pytest.raises(DataLossError, match=r"partition 4 \(given_up\): offsets 5 to 8"):
        plan(rows)
    skipped = plan(rows, skip=True)
    assert events(skipped) == [("retired", "t", 3, 5, 5), ("given_up", "t", 4, 5, 8)]
    assert skipped.offsets == {TP("t", 0): 9, TP("t", 1): 0}


def test_row_18_every_loss_of_a_start_is_named_in_one_message_and_nothing_is_planned():
    rows = {TP("t", 0): Row(3, "NEW"), TP("t", 1): Row(500, "NEW"), TP("gone", 0): Row(1, "G")}
    with pytest.raises(DataLossError) as refused:
        plan(rows, {"t": topic(earliest={0: 8})})
    message = str(refused.value)
    for part in ("topic 't' partition 0 (retention)", "topic 't' partition 1 (truncated)",
                 "topic 'gone' partition 0 (given_up)", "ON_DATA_LOSS=skip", "Nothing was changed"):
        assert part in message


def test_row_19_a_lease_taken_without_a_stored_start_is_said_and_starting_offsets_applies_now():
    # A job's first epoch and its first start are stored in one transaction (Store.acquire_lease); an
    # earlier version stored them apart, and a driver that died between the two left a lease without
    # a start. The next start is still the first one, and says so.
    lease = "epoch 1 taken 2026-12-03 09:23:04 UTC by vm pid 4432 app local-1"
    now = {"t": topic(latest={0: 70, 1: 9})}
    latest = plan_start({}, now, True, "latest", False, earlier_lease=lease)
    assert latest.offsets == {TP("t", 0): 70, TP("t", 1): 9} and latest.events == []
    assert len(latest.warnings) == 1
    assert lease in latest.warnings[0] and "no start was ever stored" in latest.warnings[0]
    assert "records written to the topics between that start and now are not counted" in latest.warnings[0]
    earliest = plan_start({}, now, True, "earliest", False, earlier_lease=lease)
    assert earliest.offsets == {TP("t", 0): 0, TP("t", 1): 0}
    assert "nothing is missed but what retention deleted since" in earliest.warnings[0]
    # A later start (a start is stored) or a first start without an earlier lease says nothing of it.
    assert plan_start({}, now, False, "latest", False, earlier_lease=lease).warnings == []
    assert plan_start({}, now, True, "latest", False).warnings == []
