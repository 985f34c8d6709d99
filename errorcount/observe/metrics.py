"""The driver's Prometheus metrics (METRICS_PORT; 0 = off), served by prometheus_client's own
HTTP server thread. Every series carries a `job_name` label (JOB_NAME). Updated after each
commit from figures the batch already has: nothing here adds a Spark job or waits on anything.

Rules and the dashboard read these names: conf/prometheus/, conf/grafana/ (docs/operations.md)."""

import logging

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from errorcount.errors import ConfigError
from errorcount.offsets import Position, TopicPartition

log = logging.getLogger(__name__)
SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class JobMetrics:
    """The job's series in a registry of their own (a second driver in one process, as in tests,
    gets its own)."""

    def __init__(self, job: str, slo_objective: float = 0.999, trigger_seconds: float = 1.0):
        self.registry = r = CollectorRegistry()
        self.job = job
        one = ["job_name"]
        per_partition = ["job_name", "topic", "partition"]
        self.batches = Counter("errorcount_batches", "Committed micro-batches", one, registry=r)
        self.records = Counter("errorcount_records", "Kafka records committed", one, registry=r)
        self.log_records = Counter("errorcount_log_records", "Log records in the Kafka records committed (as many "
                                   "but for LOG_FORMAT=otlp, whose records are requests of many)", one, registry=r)
        self.error_lines = Counter("errorcount_error_lines", "Records counted as errors", one, registry=r)
        self.lines = Counter("errorcount_lines", "Lines counted, error or not (COUNT_LINES; 0 when off)", one, registry=r)
        self.ratio_errors = Counter("errorcount_ratio_error_lines", "ERROR lines of the batches that counted lines "
                                    "(COUNT_LINES; 0 when off): the error ratio's numerator, over the same batches "
                                    "as errorcount_lines_total", one, registry=r)
        self.rejected = Counter("errorcount_rejected_records", "Records rejected by the contract", one, registry=r)
        self.dead_letters = Counter("errorcount_dead_letters", "Rejected records kept in rejected_lines", one, registry=r)
        self.commit_retries = Counter("errorcount_commit_retries", "MySQL commit attempts that failed and were retried",
                                      one, registry=r)
        self.query_restarts = Counter("errorcount_query_restarts", "Streaming queries started again after a failure",
                                      one, registry=r)
        self.mirror_failures = Counter("errorcount_lag_mirror_failures",
                                       "Failed writes of the committed offsets to KAFKA_LAG_GROUP", one, registry=r)
        self.batch_seconds = Histogram("errorcount_batch_duration_seconds", "A batch inside foreachBatch: Spark job "
                                       "and MySQL commit", one, buckets=SECONDS, registry=r)
        self.commit_seconds = Histogram("errorcount_commit_duration_seconds", "The batch's MySQL transaction", one,
                                        buckets=SECONDS, registry=r)
        self.lag = Gauge("errorcount_lag_records", "Records between the committed offset and the topic's end "
                         "(as of the newest progress Spark reported)", per_partition, registry=r)
        self.lag_seconds = Gauge("errorcount_lag_seconds", "Now minus the Kafka timestamp of the newest committed "
                                 "record, at the last commit", one, registry=r)
        self.epoch = Gauge("errorcount_epoch", "The job lease's epoch this driver holds", one, registry=r)
        self.offsets = Gauge("errorcount_committed_offset", "The next offset stored in MySQL", per_partition, registry=r)
        self.last_commit = Gauge("errorcount_last_commit_timestamp_seconds", "Unix time of the last batch commit", one,
                                 registry=r)
        self.series = Gauge("errorcount_series", "Series the job registered for GROUP_BY (its overflow series not "
                            "counted), as of the last commit", one, registry=r)
        self.series_limit = Gauge("errorcount_series_limit", "MAX_SERIES: the most series the job registers", one,
                                  registry=r)
        self.overflow_lines = Counter("errorcount_overflow_lines", "ERROR lines counted into an overflow series "
                                      "(MAX_SERIES reached)", one, registry=r)
        self.late_errors = Counter("errorcount_late_error_lines", "ERROR lines counted into minutes that already "
                                   "read as complete (their own time more than LATENESS before counted_through)",
                                   one, registry=r)
        self.late_lines = Counter("errorcount_late_lines", "Lines counted into minutes that already read as complete "
                                  "(COUNT_LINES; 0 when off)", one, registry=r)
        self.counted_through = Gauge("errorcount_counted_through_seconds", "Unix time before which every record Kafka "
                                     "had made readable is counted (counted_through; 0 until known)", one, registry=r)
        self.clock_skew = Gauge("errorcount_clock_skew_seconds", "The driver's clock minus the SQL server's at "
                                "counted_through's last observation, less what its round trip explains (the mark "
                                "follows the earlier; 0 until one)", one, registry=r)
        self.slo_objective = Gauge("errorcount_slo_objective", "SLO_OBJECTIVE: the share of lines that may not be "
                                   "errors (the burn-rate alerts' objective)", one, registry=r)
        self.slo_objective.labels(job).set(slo_objective)
        # The stall alerts wait a few triggers (at least 10 min): with TRIGGER_INTERVAL of minutes a
        # healthy job commits, and moves counted_through, only that often.
        self.trigger_interval = Gauge("errorcount_trigger_interval_seconds", "TRIGGER_INTERVAL: how often a batch "
                                      "may start (the stall alerts' unit)", one, registry=r)
        self.trigger_interval.labels(job).set(trigger_seconds)
        for series in (self.counted_through, self.batches, self.records, self.log_records, self.error_lines, self.lines,
                       self.ratio_errors, self.rejected, self.dead_letters, self.commit_retries, self.query_restarts,
                       self.mirror_failures, self.batch_seconds, self.commit_seconds, self.lag_seconds, self.epoch,
                       self.last_commit, self.overflow_lines, self.clock_skew, self.late_errors, self.late_lines):
            series.labels(job)  # every series exists from the start (0), so rules see it before it moves

    def serve(self, host: str, port: int) -> None:
        """Starts the HTTP endpoint (a daemon thread); a port in use is a configuration error."""
        try:
            start_http_server(port, addr=host, registry=self.registry)
        except OSError as error:
            raise ConfigError(f"cannot serve metrics on {host}:{port} ({error.strerror}): set METRICS_PORT to a "
                              "free port, or 0 to turn the endpoint off") from None
        log.info("metrics: serving Prometheus metrics on http://%s:%d/metrics", host, port)

    def committed(self, *, records: int, errors: int, rejected: int, dead_letters: int, offsets: Position,
                  batch_s: float, commit_s: float, now_s: float, lines: int = 0, log_records: int | None = None) -> None:
        j = self.job
        self.batches.labels(j).inc()
        self.records.labels(j).inc(records)
        self.log_records.labels(j).inc(records if log_records is None else log_records)
        self.error_lines.labels(j).inc(errors)
        self.lines.labels(j).inc(lines)
        # Every ERROR line is a line, so lines == 0 with errors means COUNT_LINES is off. Counting
        # the numerator only in batches that count the denominator keeps the ratio over any window
        # exact when COUNT_LINES is turned on or off by a restart (errorcount_error_lines_total
        # would divide the ERROR lines from before it by the lines from after it).
        self.ratio_errors.labels(j).inc(errors if lines else 0)
        self.rejected.labels(j).inc(rejected)
        self.dead_letters.labels(j).inc(dead_letters)
        self.batch_seconds.labels(j).observe(batch_s)
        self.commit_seconds.labels(j).observe(commit_s)
        for (topic, partition), offset in offsets.items():
            self.offsets.labels(j, topic, str(partition)).set(offset)
        self.last_commit.labels(j).set(now_s)

    def late(self, errors: int, lines: int) -> None:
        self.late_errors.labels(self.job).inc(errors)
        self.late_lines.labels(self.job).inc(lines)

    def counted_through_at(self, epoch_ms: int) -> None:
        self.counted_through.labels(self.job).set(epoch_ms / 1000)

    def clocks_compared(self, skew_s: float) -> None:
        self.clock_skew.labels(self.job).set(skew_s)

    def series_counted(self, registered: int, limit: int, overflow_lines: int) -> None:
        self.series.labels(self.job).set(registered)
        self.series_limit.labels(self.job).set(limit)
        self.overflow_lines.labels(self.job).inc(overflow_lines)

    def behind(self, records: dict[TopicPartition, int] | None, seconds: float | None) -> None:
        if records is not None:
            for (topic, partition), count in records.items():
                self.lag.labels(self.job, topic, str(partition)).set(count)
        if seconds is not None:
            self.lag_seconds.labels(self.job).set(seconds)
