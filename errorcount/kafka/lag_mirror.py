"""The committed offsets mirrored to a Kafka consumer group (KAFKA_LAG_GROUP), so the lag tools
operators already use (kafka-consumer-groups, Burrow, kminion, Kafka UIs) see this job: Spark's
Kafka source commits nothing to Kafka, and its readers use generated groups.

Best effort and off the batch's path: a batch hands its offsets over (offer) and returns; a
daemon thread writes the newest ones, at most every EVERY_S, through the driver's one Kafka admin
client (errorcount/kafka/admin.py), and writes them again at least every REFRESH_S while the topic is idle, so
the broker's offset retention (offsets.retention.minutes, 7 days by default) never drops them.
A failure is logged and counted, never retried in a loop, never fails or delays a batch. The
group is never read back: MySQL stays the only source of truth."""

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from errorcount.offsets import Position
from errorcount.retry import first_line

log = logging.getLogger(__name__)
REFRESH_S = 3600.0
# At most one write per EVERY_S: a write per 1 s batch cost the batches ~20 % at 150 000 records/s
# (make bench (e), mean batch 593 -> 737 ms); lag tools poll far less often.
EVERY_S = 5.0
TIMEOUT_S = 30


class GroupWriter(Protocol):
    """What the mirror writes through: errorcount/kafka/admin.py's KafkaAdmin."""

    def write_group_offsets(self, group: str, offsets: Position, timeout_s: int) -> None: ...


class OffsetMirror:
    """Writes the next offset of every topic and partition to `group` from its own thread, through
    `admin` (which its owner closes, after this mirror)."""

    def __init__(self, admin: GroupWriter, group: str,
                 failed: Callable[[], None] = lambda: None, refresh_s: float = REFRESH_S, every_s: float = EVERY_S):
        self.admin, self.group = admin, group
        self.failed, self.refresh_s, self.every_s = failed, refresh_s, every_s
        self.failures = 0
        self.written: Position | None = None  # the offsets the group holds since the last write
        self._pending: Position | None = None
        self._last: Position | None = None
        self._closed = False
        self._wake = threading.Condition()
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
            self.admin.write_group_offsets(self.group, offsets, TIMEOUT_S)
            self.written = dict(offsets)
        except Exception as error:  # noqa: BLE001 - best effort by design: any failure is logged and counted
            self.failures += 1
            self.failed()
            log.warning("lag mirror: writing the committed offsets to consumer group %r failed (%s); batches go on, "
                        "the next commit tries again. A consumer running in that group refuses the write: "
                        "give KAFKA_LAG_GROUP a group of its own (or empty to turn this off)", self.group,
                        first_line(error))
