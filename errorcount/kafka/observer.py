"""The thread that asks Kafka for the partitions' high watermarks every few seconds, for
counted_through (errorcount/counted_through.py): the clock is read first (the driver's, bounded by
the SQL server's: errorcount/store/clock.py), then the topics are listed (a pattern) and their
ends asked for, so every record appended before that time lies below the ends answered. A failed
look is logged once per outage and skipped: the marks simply do not move until it works again."""

import logging
import threading
import time
from collections.abc import Callable

from errorcount.config.load import interval_seconds
from errorcount.counted_through import Marks, Observation
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.subscription import Subscription
from errorcount.retry import first_line

log = logging.getLogger(__name__)


def look_interval(trigger_interval: str) -> float:
    """Seconds between looks for a TRIGGER_INTERVAL: the trigger's, kept within 1 to 10 s. One rule
    for the observer and for whatever waits on its looks (the batch committer's seen_wait_s)."""
    return min(max(interval_seconds(trigger_interval), 1.0), 10.0)


class EndObserver:
    def __init__(self, admin: KafkaAdmin, subscription: Subscription, marks: Marks, interval_s: float,
                 clock: Callable[[], float] = time.time):
        self.admin, self.subscription, self.marks = admin, subscription, marks
        self.interval_s, self.clock = interval_s, clock
        self._stop = threading.Event()
        self._failing = False
        self._thread = threading.Thread(target=self._run, name="errorcount-ends", daemon=True)

    def start(self) -> "EndObserver":
        self._thread.start()
        return self

    def look(self) -> Observation:
        at_ms = int(self.clock() * 1000)  # before anything is asked
        names = self.subscription.current(self.admin.list_topics() if self.subscription.is_pattern else ())
        ids, ends = self.admin.high_watermarks(names)
        return Observation(at_ms, ends, ids)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.marks.observe(self.look())
                if self._failing:
                    log.info("counted_through: the partitions' ends are read again")
                self._failing = False
            except Exception as error:  # noqa: BLE001  # the marks wait; the batches see Kafka's and MySQL's state themselves
                if not self._failing:
                    log.warning("counted_through: cannot observe the partitions' ends (%s); it holds still until "
                                "this works again", first_line(error))
                self._failing = True
            self._stop.wait(self.interval_s)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.interval_s + 60)
