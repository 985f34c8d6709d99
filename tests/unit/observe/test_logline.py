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
