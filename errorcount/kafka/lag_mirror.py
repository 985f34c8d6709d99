"""The committed offsets mirrored to a Kafka consumer group (KAFKA_LAG_GROUP), so the lag tools
operators already use (kafka-consumer-groups, Burrow, kminion, Kafka UIs) see this job: Spark's
Kafka source commits nothing to Kafka, and its readers use generated groups.

Best effort and off the batch's path: a batch hands its offsets over (offer) and returns; a
daemon thread writes the newest ones, at most every EVERY_S, with Kafka's admin API (the JVM's client, already on the
driver's classpath), and writes them again at least every REFRESH_S while the topic is idle, so
the broker's offset retention (offsets.retention.minutes, 7 days by default) never drops them.
A failure is logged and counted, never retried in a loop, never fails or delays a batch. The
group is never read back: MySQL stays the only source of truth."""

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from errorcount.kafka.topic_metadata import client_properties
from errorcount.offsets import Position
from errorcount.retry import first_line

log = logging.getLogger(__name__)
REFRESH_S = 3600.0
# At most one write per EVERY_S: a write per 1 s batch cost the batches ~20 % at 150 000 records/s
# (make bench (e), mean batch 593 -> 737 ms); lag tools poll far less often.
EVERY_S = 5.0
TIMEOUT_S = 30


def admin_properties(cfg) -> dict[str, str]:
    """The admin client's settings: the job's client properties (bootstrap servers, security), its
    own client id and timeouts."""
    return {**client_properties(cfg), "client.id": f"{cfg.kafka_lag_group}-mirror",
            "request.timeout.ms": str(TIMEOUT_S * 1000), "default.api.timeout.ms": str(TIMEOUT_S * 1000)}


def reason(error: Exception) -> str:
    """The Kafka client's own reason: py4j wraps it (ExecutionException around the cause)."""
    java = getattr(error, "java_exception", None)
    if java is not None:
        cause = java.getCause() or java
        return str(cause.toString())
    return first_line(error)


class OffsetMirror:
    """Writes the next offset of every topic and partition to `group` from its own thread."""

    def __init__(self, jvm, properties: dict[str, str], group: str,
                 failed: Callable[[], None] = lambda: None, refresh_s: float = REFRESH_S, every_s: float = EVERY_S):
        self.jvm, self.properties, self.group = jvm, properties, group
        self.failed, self.refresh_s, self.every_s = failed, refresh_s, every_s
        self.failures = 0
        self.written: Position | None = None  # the offsets the group holds since the last write
        self._pending: Position | None = None
        self._last: Position | None = None
        self._closed = False
        self._wake = threading.Condition()
        self._admin: Any = None  # a JVM Admin client, created at the first write
        self._thread = threading.Thread(target=self._run, name="errorcount-lag-mirror", daemon=True)
        self._thread.start()

    def offer(self, offsets: Position) -> None:
        """The offsets just committed to MySQL (returns at once)."""
        with self._wake:
            self._pending = dict(offsets)
            self._wake.notify()

    def close(self) -> None:
        """Stops the thread without waiting long: a write in flight against a broker that is away
        must not hold up the driver's exit (the group is only a mirror)."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._thread.join(2)
        if self._admin is not None:
            try:
                self._admin.close(self.jvm.java.time.Duration.ofSeconds(2))
            except Exception as error:  # noqa: BLE001 - the JVM may be stopping too
                log.debug("lag mirror: closing the admin client: %s", reason(error))

    def _run(self) -> None:
        written_at = time.monotonic() - self.every_s
        while True:
            with self._wake:
                # Commits that come faster than every_s coalesce: the newest offsets win.
                while not self._closed and (
                        (self._pending is None and time.monotonic() - written_at < self.refresh_s)
                        or (self._pending is not None and time.monotonic() - written_at < self.every_s)):
                    due = written_at + (self.every_s if self._pending is not None else self.refresh_s)
                    self._wake.wait(max(due - time.monotonic(), 0.01))
                if self._closed:
                    return
                offsets = self._pending if self._pending is not None else self._last
                self._pending = None
            written_at = time.monotonic()
            if offsets:
                self._last = offsets
                self._write(offsets)

    def _write(self, offsets: Position) -> None:
        try:
            self._alter(offsets)
            self.written = dict(offsets)
        except Exception as error:  # noqa: BLE001 - best effort by design: any failure is logged and counted
            self.failures += 1
            self.failed()
            log.warning("lag mirror: writing the committed offsets to consumer group %r failed (%s); batches go on, "
                        "the next commit tries again. A consumer running in that group refuses the write: "
                        "give KAFKA_LAG_GROUP a group of its own (or empty to turn this off)", self.group,
                        reason(error))

    def _alter(self, offsets: Position) -> None:
        jvm = self.jvm
        if self._admin is None:
            props = jvm.java.util.Properties()
            for key, value in self.properties.items():
                props.setProperty(key, value)
            self._admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
        java_offsets = jvm.java.util.HashMap()
        for (topic, partition), offset in sorted(offsets.items()):
            java_offsets.put(jvm.org.apache.kafka.common.TopicPartition(topic, partition),
                             jvm.org.apache.kafka.clients.consumer.OffsetAndMetadata(offset))
        seconds = jvm.java.util.concurrent.TimeUnit.SECONDS
        self._admin.alterConsumerGroupOffsets(self.group, java_offsets).all().get(TIMEOUT_S, seconds)
