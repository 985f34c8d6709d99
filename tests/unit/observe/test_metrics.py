"""The driver's Prometheus series, read back from the exposition text with a parser of this test's
own: every series exists at 0 from the start, a commit adds what the batch had, per-partition
offsets and lag carry their labels, and a port in use is a config error naming the setting."""

import re
import socket
import urllib.request

import pytest
from prometheus_client import generate_latest

from errorcount.errors import ConfigError
from errorcount.observe.metrics import JobMetrics

SAMPLE = re.compile(r'^(errorcount_\w+)\{([^}]*)\} (\S+)$', re.MULTILINE)


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    return {(name, frozenset(re.findall(r'(\w+)="([^"]*)"', labels))): float(value)
            for name, labels, value in SAMPLE.findall(text)}


def value(metrics: JobMetrics, name: str, **labels: str) -> float:
    return samples(generate_latest(metrics.registry).decode())[(name, frozenset({"job_name": metrics.job, **labels}.items()))]


def test_every_job_series_exists_at_zero_before_the_first_batch():
    metrics = JobMetrics("orders")
    for name in ("errorcount_batches_total", "errorcount_records_total", "errorcount_log_records_total",
                 "errorcount_error_lines_total", "errorcount_lines_total", "errorcount_ratio_error_lines_total",
                 "errorcount_rejected_records_total", "errorcount_dead_letters_total", "errorcount_commit_retries_total",
                 "errorcount_query_restarts_total", "errorcount_lag_mirror_failures_total", "errorcount_epoch",
                 "errorcount_lag_seconds", "errorcount_last_commit_timestamp_seconds", "errorcount_overflow_lines_total",
                 "errorcount_batch_duration_seconds_count", "errorcount_late_error_lines_total",
                 "errorcount_late_lines_total"):
        assert value(metrics, name) == 0, name


def test_commits_add_what_their_batches_had():
    metrics = JobMetrics("orders")
    batches = [(100, 7, 2, 1, {("logs", 0): 60, ("logs", 1): 40}), (50, 0, 5, 3, {("logs", 0): 110})]
    for number, (records, errors, rejected, dead, offsets) in enumerate(batches):
        metrics.committed(records=records, errors=errors, rejected=rejected, dead_letters=dead, offsets=offsets,
                          batch_s=0.5, commit_s=0.02, now_s=1_800_000_000 + number, lines=records - rejected)
    assert value(metrics, "errorcount_batches_total") == 2
    assert value(metrics, "errorcount_records_total") == 150
    assert value(metrics, "errorcount_error_lines_total") == 7
    assert value(metrics, "errorcount_lines_total") == 143
    assert value(metrics, "errorcount_ratio_error_lines_total") == 7  # both batches counted lines
    assert value(metrics, "errorcount_rejected_records_total") == 7
    assert value(metrics, "errorcount_dead_letters_total") == 4
    assert value(metrics, "errorcount_committed_offset", topic="logs", partition="0") == 110
    assert value(metrics, "errorcount_committed_offset", topic="logs", partition="1") == 40
    assert value(metrics, "errorcount_last_commit_timestamp_seconds") == 1_800_000_001
    assert value(metrics, "errorcount_commit_duration_seconds_count") == 2
    assert value(metrics, "errorcount_commit_duration_seconds_bucket", le="0.025") == 2


def test_the_ratio_numerator_counts_only_the_error_lines_of_batches_that_counted_lines():
    """COUNT_LINES off (lines 0) then on, as across a restart that turns it on: the ratio's two
    counters cover the same batches, errorcount_error_lines_total all of them."""
    metrics = JobMetrics("orders")
    for errors, lines in [(5, 0), (3, 0), (2, 40), (0, 0), (4, 10)]:  # (0, 0): a batch of rejects only
        metrics.committed(records=50, errors=errors, rejected=0, dead_letters=0, offsets={}, batch_s=0.1,
                          commit_s=0.01, now_s=1_800_000_000, lines=lines)
    assert value(metrics, "errorcount_error_lines_total") == 14
    assert value(metrics, "errorcount_lines_total") == 50
    assert value(metrics, "errorcount_ratio_error_lines_total") == 6


def test_lag_and_series_carry_their_labels_and_unknown_figures_leave_them_as_they_were():
    metrics = JobMetrics("orders")
    metrics.behind({("logs", 0): 12, ("audit", 2): 0}, 3.5)
    metrics.behind(None, None)  # no progress event yet, no record timestamp: nothing changes
    assert value(metrics, "errorcount_lag_records", topic="logs", partition="0") == 12
    assert value(metrics, "errorcount_lag_records", topic="audit", partition="2") == 0
    assert value(metrics, "errorcount_lag_seconds") == 3.5
    metrics.series_counted(40, 1000, 5)
    metrics.series_counted(41, 1000, 2)
    assert (value(metrics, "errorcount_series"), value(metrics, "errorcount_series_limit"),
            value(metrics, "errorcount_overflow_lines_total")) == (41, 1000, 7)


def test_the_endpoint_serves_the_series_and_a_port_in_use_names_the_setting():
    metrics = JobMetrics("orders")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"cannot serve metrics on 127.0.0.1:{port} .*METRICS_PORT"):
            metrics.serve("127.0.0.1", port)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    metrics.serve("127.0.0.1", free)
    metrics.epoch.labels("orders").set(4)
    text = urllib.request.urlopen(f"http://127.0.0.1:{free}/metrics", timeout=10).read().decode()
    assert samples(text)[("errorcount_epoch", frozenset({("job_name", "orders")}))] == 4
