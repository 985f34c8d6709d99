"""The stop marker through Hadoop's FileSystem API in the session's JVM (local files here; the same
calls reach HDFS or S3 on a cluster)."""

import logging

from app.stop_marker import POLL_SECONDS, StopMarker


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
