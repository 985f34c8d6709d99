"""What the recount's plan is made of (errorcount/recount/facts.py), from the job's rows and what
Kafka holds; and the small pure pieces around a recount: its chunks, FROM/TO, the Spark source's
options, adding figures of disjoint reads."""

import json

import pytest

from errorcount.errors import ConfigError
from errorcount.kafka.client import KafkaClient
from errorcount.offsets import TopicPartition
from errorcount.recount.count import added, batch_options, within
from errorcount.recount.diff import Figures
from errorcount.recount.facts import NONE, Held, changed_topics, partition_facts
from errorcount.recount.plan import PartitionFacts, Range, parse_minute
from errorcount.recount.run import chunks
from errorcount.store.recount import JobRow, offsets_json

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)


def row(next_offset: int, counted_from: int = 0, gone: bool = False, updated_ms: int = 5_000) -> JobRow:
    return JobRow(next_offset, counted_from, "ID", gone, updated_ms)


def test_a_partition_kafka_holds_is_read_from_its_answers():
    held = {A0: Held(log_start=4, at_time=30, first_ms=1_000, topic_id="ID")}
    found = partition_facts({A0: row(100, counted_from=10)}, held, {})
    assert found == {A0: PartitionFacts(10, 100, 4, 30, 1_000, None)}


def test_kafka_without_an_answer_is_none_in_the_facts():
    found = partition_facts({A0: row(100)}, {A0: Held(log_start=100, at_time=NONE, first_ms=NONE, topic_id="ID")}, {})
    assert found == {A0: PartitionFacts(0, 100, 100, None, None, None)}


def test_a_partition_kafka_does_not_hold_is_gone_since_its_row_was_last_written():
    """Deleted topic, or a row given up: nothing can be read, everything counted was appended before
    the row's last write."""
    found = partition_facts({A0: row(100, gone=True, updated_ms=7_000), A1: row(50, updated_ms=9_000)}, {}, {})
    assert found == {A0: PartitionFacts(0, 100, 100, None, recreated_ms=7_000),
                     A1: PartitionFacts(0, 50, 50, None, recreated_ms=9_000)}


def test_a_recreated_topic_keeps_the_time_it_was_found_even_before_counting_anything_new():
    held = {B0: Held(0, 0, 2_000, "ID")}
    found = partition_facts({B0: row(0)}, held, {B0: 3_000})
    assert found == {B0: PartitionFacts(0, 0, 0, 0, 2_000, 3_000)}


def test_rows_that_counted_nothing_are_left_out():
    assert partition_facts({A0: row(10, counted_from=10), A1: row(0, gone=True)}, {A0: Held(0, 0, 1, "ID")}, {}) == {}


def ids_row(topic_id: str | None, gone: bool = False) -> JobRow:
    return JobRow(10, 0, topic_id, gone, 5_000)


@pytest.mark.parametrize("read, now, rows, changed", [
    ({"a": "X"}, {"a": "X"}, {A0: ids_row("X"), A1: ids_row(None)}, []),          # the same topic all along
    ({"a": "X"}, {"a": "Y"}, {A0: ids_row("X")}, ["a"]),                           # recreated, the job not there yet
    ({"a": "X"}, {"a": "Y"}, {A0: ids_row("Y")}, ["a"]),                           # recreated, the job moved on
    ({"a": "X"}, {"a": "X"}, {A0: ids_row("Y")}, ["a"]),                           # the job's row of another topic ID
    ({"a": "X"}, {"a": None}, {A0: ids_row("X")}, ["a"]),                          # deleted since the read
    ({"a": "X"}, {}, {A0: ids_row("X", gone=True)}, ["a"]),                        # deleted, the job gave it up
    ({"a": "X", "b": "Z"}, {"a": "X", "b": "W"}, {A0: ids_row("X"), B0: ids_row("Z")}, ["b"]),  # only the one
    ({"a": "X"}, {"a": "X"}, {B0: ids_row("Q")}, []),                              # a topic it did not read
    ({}, {}, {A0: ids_row("X")}, []),                                              # it read nothing
])
def test_a_read_is_of_the_planned_topics_only_while_every_id_stays_the_same(read, now, rows, changed):
    assert changed_topics(read, now, rows) == changed


def test_chunks_cover_the_range_in_order_without_overlap():
    assert chunks(Range(10, 20), 4) == [Range(10, 14), Range(14, 18), Range(18, 20)]
    assert chunks(Range(10, 20), 100) == [Range(10, 20)]
    assert chunks(Range(10, 10), 4) == []


@pytest.mark.parametrize("text, minute", [("1970-01-01 00:01", 1), ("1970-01-02T00:00", 1440),
                                          (" 2026-11-19 00:00:00 ", 29_917_440)])
def test_from_and_to_are_utc_minutes(text, minute):
    assert parse_minute(text, "FROM") == minute


@pytest.mark.parametrize("text", ["2026-11-19", "2026-11-19 00:00:30", "2026-02-30 00:00", "yesterday", ""])
def test_anything_else_is_a_config_error_naming_the_setting(text):
    with pytest.raises(ConfigError, match="TO="):
        parse_minute(text, "TO")


def test_the_batch_reads_exactly_the_spans_read_committed():
    options = batch_options(KafkaClient("k:9092", (("security.protocol", "SSL"),), 30),
                            {A1: (5, 9), A0: (0, 3), B0: (7, 7)})
    assert json.loads(options["assign"]) == {"a": [0, 1]}  # an empty span is not read
    assert json.loads(options["startingOffsets"]) == {"a": {"0": 0, "1": 5}}
    assert json.loads(options["endingOffsets"]) == {"a": {"0": 3, "1": 9}}
    assert options["kafka.isolation.level"] == "read_committed" and options["kafka.security.protocol"] == "SSL"
    assert options["failOnDataLoss"] == "true"


def test_figures_of_disjoint_reads_add_up_and_a_chunk_keeps_its_minutes():
    one = Figures({1: (1, 2), 5: (0, 1)}, {(1, "x"): (1, 2)})
    two = Figures({1: (2, 2), 9: (1, 1)}, {(1, "x"): (2, 2), (9, "y"): (1, 1)})
    both = added(one, two)
    assert both == Figures({1: (3, 4), 5: (0, 1), 9: (1, 1)}, {(1, "x"): (3, 4), (9, "y"): (1, 1)})
    assert within(both, Range(1, 6)) == Figures({1: (3, 4), 5: (0, 1)}, {(1, "x"): (3, 4)})


def test_rejects_of_disjoint_reads_add_up_per_topic_and_a_chunk_keeps_their_kafka_minutes():
    one = Figures({}, {}, {("a", 1): 2, ("a", 6): 1, ("b", 1): 1})
    two = Figures({3: (0, 1)}, {}, {("a", 1): 3, ("b", 5): 4})
    both = added(one, two)
    assert both.rejects == {("a", 1): 5, ("a", 6): 1, ("b", 1): 1, ("b", 5): 4}
    assert within(both, Range(1, 6)) == Figures({3: (0, 1)}, {}, {("a", 1): 5, ("b", 1): 1, ("b", 5): 4})


def test_the_ledger_writes_offsets_per_topic():
    assert json.loads(offsets_json({B0: 3, A1: 2, A0: 1})) == {"a": {"0": 1, "1": 2}, "b": {"0": 3}}
