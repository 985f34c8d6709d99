"""What the outside sees of each committed batch: how far behind the job is (errorcount/observe/lag.py),
the Prometheus metrics (errorcount/observe/metrics.py) and the offsets mirrored to a Kafka consumer group
(errorcount/kafka/lag_mirror.py). Called after the MySQL commit with figures the batch already has:
no Spark job, no network round trip on the batch's path."""

import logging
import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from errorcount.config.load import Config, interval_seconds
from errorcount.kafka.lag_mirror import GroupWriter, OffsetMirror
from errorcount.observe import lag
from errorcount.observe.metrics import JobMetrics
from errorcount.offsets import Position
from errorcount.pipeline.summary import BatchSummary

log = logging.getLogger(__name__)


class Watch:
    def __init__(self, metrics: JobMetrics | None = None, mirror: OffsetMirror | None = None,
                 ends: Callable[[], Position | None] = lambda: None):
        self.metrics, self.mirror, self.ends = metrics, mirror, ends

    def committed(self, summary: BatchSummary, after: Position, batch_s: float,
                  commit_s: float) -> tuple[int | None, float | None]:
        """Records this batch's commit; returns (records behind in all, seconds behind)."""
        now = time.time()
        behind = lag.records_behind(self.ends(), after)
        seconds = lag.seconds_behind(now, summary.newest_ms)
        if self.metrics:
            self.metrics.committed(records=summary.records, errors=summary.errors, rejected=summary.rejected,
                                   dead_letters=len(summary.dead_letters), offsets=after, batch_s=batch_s,
                                   commit_s=commit_s, now_s=now, lines=summary.lines,
                                   log_records=summary.records_logged)
            self.metrics.behind(behind, seconds)
        if self.mirror:
            self.mirror.offer(after)
        return (None if behind is None else sum(behind.values())), seconds

    def late(self, errors: int, lines: int) -> None:
        """ERROR lines and lines were counted into minutes already complete (batch/commit.py)."""
        if self.metrics:
            self.metrics.late(errors, lines)

    def counted_through(self, epoch_ms: int | None) -> None:
        """counted_through was stored (errorcount/counted_through.py)."""
        if self.metrics and epoch_ms is not None:
            self.metrics.counted_through_at(epoch_ms)

    def clocks_compared(self, skew_s: float) -> None:
        """An observation read the driver's clock `skew_s` seconds ahead of the SQL server's (negative: behind)."""
        if self.metrics:
            self.metrics.clocks_compared(skew_s)

    def series_counted(self, registered: int, limit: int, overflow_lines: int) -> None:
        """After a batch with GROUP_BY committed: the job's series against MAX_SERIES, and its overflow."""
        if self.metrics:
            self.metrics.series_counted(registered, limit, overflow_lines)

    def commit_retried(self) -> None:
        if self.metrics:
            self.metrics.commit_retries.labels(self.metrics.job).inc()

    def query_restarted(self) -> None:
        if self.metrics:
            self.metrics.query_restarts.labels(self.metrics.job).inc()

    def leased(self, epoch: int) -> None:
        if self.metrics:
            self.metrics.epoch.labels(self.metrics.job).set(epoch)

    def close(self) -> None:
        if self.mirror:
            self.mirror.close()


@dataclass(frozen=True)
class WatchSettings:
    """The settings of what the outside sees: the job's name (every metric's label), where metrics
    are served (port 0: nowhere), the lag mirror's consumer group (empty: no mirror), and the SLO
    objective and trigger interval (seconds) the alert rules read."""

    job_name: str
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    lag_group: str = ""
    slo_objective: float = 0.999
    trigger_seconds: float = 1.0

    @classmethod
    def of(cls, cfg: Config) -> "WatchSettings":
        return cls(cfg.job_name, cfg.metrics_host, cfg.metrics_port, cfg.kafka_lag_group, float(cfg.slo_objective),
                   interval_seconds(cfg.trigger_interval))

    def endpoint(self, env: Mapping[str, str] = os.environ) -> str | None:
        """host:port of the metrics endpoint as another machine reaches it, stored with the lease; None
        when off. Listening on every address, the host is the node's name as YARN knows it (NM_HOST,
        set in every container: the name the ResourceManager reaches the node by), else the machine's."""
        if not self.metrics_port:
            return None
        host = self.metrics_host
        if host in ("0.0.0.0", "::", ""):
            host = env.get("NM_HOST") or socket.getfqdn()
        return f"{host}:{self.metrics_port}"


def build(settings: WatchSettings, admin: GroupWriter, ends: Callable[[], Position | None]) -> Watch:
    """The Watch the settings ask for: metrics served when METRICS_PORT is set, the mirror (writing
    through `admin`) unless KAFKA_LAG_GROUP is empty."""
    metrics = JobMetrics(settings.job_name, settings.slo_objective, settings.trigger_seconds)
    if settings.metrics_port:
        metrics.serve(settings.metrics_host, settings.metrics_port)
        log.info("metrics: this driver's endpoint is http://%s/metrics (stored with the lease)", settings.endpoint())
    mirror = None
    if settings.lag_group:
        mirror = OffsetMirror(admin, settings.lag_group,
                              failed=lambda: metrics.mirror_failures.labels(settings.job_name).inc())
        log.info("lag mirror: committed offsets go to consumer group %r (never read back)", settings.lag_group)
    return Watch(metrics, mirror, ends)
