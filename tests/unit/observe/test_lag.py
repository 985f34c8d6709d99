"""Lag from what a batch knows (errorcount/observe/lag.py) and the metrics' names (errorcount/observe/metrics.py)."""

from prometheus_client import generate_latest
from pyspark.sql import Row

from errorcount.observe import lag
from errorcount.observe.metrics import JobMetrics
from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.fold import fold
from tests.oracles.pyfold import summary_table


def test_end_offsets_come_from_a_progress_events_latest_offset():
    assert lag.end_offsets('{"logs": {"1": 20, "0": 7}, "b": {"0": 1}}') == {TP("logs", 0): 7, TP("logs", 1): 20, TP("b", 0): 1}
    assert lag.end_offsets(None) is None
    assert lag.end_offsets("not json") is None
    assert lag.end_offsets('["logs"]') is None


def test_records_behind_never_go_negative_and_need_the_ends():
    ends = {TP("a", 0): 10, TP("a", 1): 5, TP("b", 0): 9}
    assert lag.records_behind(ends, {TP("a", 0): 4, TP("a", 1): 7}) == {TP("a", 0): 6, TP("a", 1): 0, TP("b", 0): 9}
    assert lag.records_behind(None, {TP("a", 0): 4}) is None


def test_seconds_behind_the_newest_committed_record():
    assert lag.seconds_behind(1000.0, 998_500) == 1.5
    assert lag.seconds_behind(1000.0, 1_000_200) == 0.0  # a producer clock ahead of ours
    assert lag.seconds_behind(1000.0, None) is None


def test_the_summary_keeps_the_newest_timestamp_of_its_rows():
    fields = {"topic": "logs", "partition": 0, "minute": None, "dead_slot": None, "records": 3, "errors": 0, "rejected": 0,
              "min_offset": 0, "max_offset": 2, "reject_reason": None, "raw_value": None}
    assert fold(summary_table([Row(**fields, newest_ms=n) for n in (5, 9, None)])).newest_ms == 9
    assert fold(summary_table([Row(**fields)])).newest_ms is None


def test_metrics_follow_prometheus_naming_with_a_job_label():
    metrics = JobMetrics("job-a")
    metrics.committed(records=10, errors=3, rejected=1, dead_letters=1, offsets={TP("logs", 0): 10}, batch_s=0.2, commit_s=0.01,
                      now_s=1.0)
    metrics.behind({TP("logs", 0): 4}, 2.5)
    text = generate_latest(metrics.registry).decode()
    for line in ('errorcount_records_total{job_name="job-a"} 10.0', 'errorcount_error_lines_total{job_name="job-a"} 3.0',
                 'errorcount_lag_records{job_name="job-a",partition="0",topic="logs"} 4.0',
                 'errorcount_lag_seconds{job_name="job-a"} 2.5',
                 'errorcount_committed_offset{job_name="job-a",partition="0",topic="logs"} 10.0',
                 'errorcount_batch_duration_seconds_count{job_name="job-a"} 1.0'):
        assert line in text
