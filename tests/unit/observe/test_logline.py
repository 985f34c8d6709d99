"""The driver's structured log lines: what the driver writes is what tests, bench and chaos read."""

import logging
import time

import pytest

from errorcount.observe import logline
from errorcount.observe.progress import progress_line
from errorcount.offsets import TopicPartition as TP

WRITTEN = ("2026-11-22 09:27:34,505 INFO errorcount.batch.commit: batch 12: records=500 errors=80 rejected=3 "
           "dead_letters=3 minutes=7 offsets=app-logs-0:10,app-logs-1:12,b-0:3 plan=one-task count_ms=40 commit_ms=8 batch_ms=55")


def test_a_literal_batch_line_reads_back_field_by_field():
    (record,) = logline.parse("noise\n" + WRITTEN + "\nINFO errorcount: resuming from {0: 1}\n")
    assert record.number == 12 and record.logged_at == 1795339654.505  # 09:27:34.505 UTC
    assert (record.integer("records"), record.integer("errors"), record.fields["plan"]) == (500, 80, "one-task")
    assert record.offsets() == {TP("app-logs", 0): 10, TP("app-logs", 1): 12, TP("b", 0): 3}


def test_the_writer_produces_the_line_the_parser_reads():
    formatter = logging.Formatter(logline.LOG_FORMAT)
    formatter.converter = time.gmtime
    message = logline.line(logline.BATCH, 3, records=7, offsets={TP("x-1", 1): 9, TP("x-1", 0): 4}, plan="parallel", count_ms=1)
    text = formatter.format(logging.LogRecord("errorcount.batch.commit", logging.INFO, __file__, 1, message, (), None))
    (record,) = logline.parse(text)
    offsets = {TP("x-1", 0): 4, TP("x-1", 1): 9}
    assert (record.number, record.integer("records"), record.offsets(), record.fields["plan"]) == (3, 7, offsets, "parallel")
    assert abs(record.logged_at - time.time()) < 5
    assert logline.parse(text, logline.SPARK_BATCH) == []


def test_spark_batch_lines_are_their_own_event():
    text = "2026-11-22 09:27:34,505 INFO errorcount.observe.progress: " + progress_line(4, 9, {"triggerExecution": 12})
    (record,) = logline.parse(text, logline.SPARK_BATCH)
    assert (record.number, record.integer("rows"), record.integer("trigger_ms"), record.integer("planning_ms")) == (4, 9, 12, 0)
    assert logline.parse(text) == []  # not a batch line


def test_a_value_with_a_space_is_refused_rather_than_written_unreadable():
    with pytest.raises(ValueError):
        logline.line(logline.BATCH, 1, plan="one task")


def position(topics: int, partitions: int, base: int = 1000) -> dict:
    return {TP(f"t{t}", p): base + t * partitions + p for t in range(topics) for p in range(partitions)}


@pytest.mark.parametrize("known, expected", [
    ({}, "-"),
    ({TP("logs", 1): 12, TP("logs", 0): 10}, "logs-0:10,logs-1:12"),   # few: every partition, as before
    (position(1, 8), ",".join(f"t0-{p}:{1000 + p}" for p in range(8))),
    (position(1, 2048), "t0[0-2047]:1000..3047"),                       # one topic: its ranges and spread
    ({**position(1, 9), TP("t0", 20): 5, TP("u", 0): 7}, "t0[0-8+20]:5..1008,u[0]:7"),
    (position(8, 4), ",".join(f"t{t}[0-3]:{1000 + 4 * t}..{1003 + 4 * t}" for t in range(8))),
    (position(100, 4), "400_partitions_of_100_topics:1000..1399"),      # many topics: totals
])
def test_a_position_is_one_short_word_at_any_partition_count(known, expected):
    assert logline.brief(known) == expected
    assert len(logline.line(logline.BATCH, 1, offsets=logline.brief(known))) < 200


def test_ranges_collapse_runs_and_the_topics_a_start_reads_are_summarized():
    assert logline.ranges([7, 0, 1, 2, 3, 5, 8, 9, 3]) == "0-3,5,7-9"
    assert logline.ranges([4]) == "4" and logline.ranges([]) == ""
    assert logline.topics_read({"a": ("ID", list(range(2048)))}) == "topics 'a' (ID ID, partitions 0-2047)"
    assert logline.topics_read({f"t{n}": ("I", [0, 1, 2, 3]) for n in range(100)}) == "100 topics (400 partitions)"
