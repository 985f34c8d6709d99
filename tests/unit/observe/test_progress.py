"""Spark's progress events as the driver reads them: the topics' end offsets kept from the newest
event that has them (for lag), and one log line per batch that carried records."""

import logging
from types import SimpleNamespace

from errorcount.observe import logline
from errorcount.observe.progress import ProgressLogger, progress_line


def event(batch_id: int, rows: int, latest: str | None, durations: dict[str, int]) -> SimpleNamespace:
    source = SimpleNamespace(latestOffset=latest)
    return SimpleNamespace(progress=SimpleNamespace(batchId=batch_id, numInputRows=rows, sources=[source],
                                                    durationMs=durations))


def test_the_ends_of_the_newest_event_are_kept_and_an_event_without_them_keeps_the_last():
    listener = ProgressLogger()
    assert listener.ends is None
    listener.onQueryProgress(event(0, 5, '{"logs":{"0":120,"1":7},"audit":{"0":3}}', {}))
    assert listener.ends == {("logs", 0): 120, ("logs", 1): 7, ("audit", 0): 3}
    listener.onQueryProgress(event(1, 0, None, {}))  # an idle trigger: no source offsets
    listener.onQueryProgress(event(2, 0, "not json", {}))
    assert listener.ends == {("logs", 0): 120, ("logs", 1): 7, ("audit", 0): 3}


def test_a_batch_with_records_is_logged_with_spark_s_timing_and_an_idle_one_is_not(caplog):
    listener = ProgressLogger()
    with caplog.at_level(logging.INFO, logger="errorcount.observe.progress"):
        listener.onQueryProgress(event(4, 0, None, {"triggerExecution": 3}))
        listener.onQueryProgress(event(5, 250, None, {"triggerExecution": 900, "addBatch": 700, "walCommit": 40,
                                                      "latestOffset": 12, "unknownStep": 1}))
    assert [r.getMessage() for r in caplog.records] == [
        "spark batch 5: rows=250 trigger_ms=900 foreach_batch_ms=700 offset_log_ms=40 commit_log_ms=0 "
        "latest_offset_ms=12 planning_ms=0"]


def test_the_logged_line_parses_as_a_structured_log_line():
    text = "2026-11-26 10:00:00,000 INFO errorcount.observe.progress: " + progress_line(9, 3, {"addBatch": 8})
    [record] = logline.parse(text, logline.SPARK_BATCH)
    assert (record.number, record.integer("rows"), record.integer("foreach_batch_ms"), record.integer("planning_ms")) == (
        9, 3, 8, 0)
    assert logline.parse(text) == []  # not a batch line of the job's own
