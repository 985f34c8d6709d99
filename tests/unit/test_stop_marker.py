"""The stop marker through Hadoop's FileSystem API in the session's JVM (local files here; the same
calls reach HDFS or S3 on a cluster)."""

import logging
import threading

from errorcount.config.load import load_config
from errorcount.stop_marker import POLL_SECONDS, StopMarker
from errorcount.supervisor import Job


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_marker_is_seen_once_it_exists_and_polled_at_most_every_interval(spark, tmp_path):
    path = tmp_path / "STOP"
    clock = Clock()
    marker = StopMarker(spark, f"file://{path}", clock=clock)
    assert not marker.present()
    path.touch()
    assert not marker.present()  # within the poll interval: the file system is not asked again
    clock.now += POLL_SECONDS
    assert marker.present()
    path.unlink()
    assert marker.present()  # latched: a stop once requested is not taken back


def test_no_marker_configured_never_stops(spark):
    assert not StopMarker(spark, "").present()


def test_unreadable_file_system_keeps_the_job_running_and_warns_once(spark, caplog):
    clock = Clock()
    marker = StopMarker(spark, "nosuchscheme://bucket/STOP", clock=clock)
    with caplog.at_level(logging.WARNING, logger="errorcount"):
        for _ in range(3):
            assert not marker.present()
            clock.now += POLL_SECONDS
    warnings = [r.getMessage() for r in caplog.records if "cannot check the stop marker" in r.getMessage()]
    assert len(warnings) == 1 and "nosuchscheme://bucket/STOP" in warnings[0]


def test_a_start_with_the_marker_present_exits_0_before_touching_mysql(spark, tmp_path, caplog):
    """A restart or YARN re-attempt after the operator asked for a stop: nothing to do, and exit 0
    so that YARN records SUCCEEDED instead of starting yet another attempt."""
    (tmp_path / "STOP").touch()
    # A MySQL that cannot exist: reaching for it would fail the test with exit 5, not 0.
    cfg = load_config(["--stop-marker", f"file://{tmp_path}/STOP", "--mysql-host", "203.0.113.1",
                       "--mysql-connect-timeout", "1", "--retry-seconds", "0"], {})
    with caplog.at_level(logging.INFO, logger="errorcount"):
        assert Job(cfg, spark, threading.Event()).run() == 0
    assert any("exists: not starting" in r.getMessage() for r in caplog.records)
